"""The translation report's quality-check table in the console at 1280 x 800 and 390 x 844: every
annotator listed with pass or fail, no sideways scroll, no serious axe finding."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import StudyMembership
from accounts.services import researcher_create
from protocols.translation.quality_checks.making import quality_checks_make
from reports.models import Report
from reports.study_report import study_report_data
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in_to_the_console
from tests.translation.test_quality_checks import run_stream, translation_study

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_quality_check_table_fits_both_widths(browser, live_server):
    researcher = researcher_create(username="quinn", password="pass-w0rd-for-tests")
    study = translation_study("da", annotators_per_document=2)
    StudyMembership.objects.create(study=study, user=researcher, role=StudyMembership.Role.RESEARCHER)
    quality_checks_make(study=study, share=1.0, seed=3, segments=3)
    run_stream(Client(), study, "careful", main_score=80, check_score=20)
    run_stream(Client(), study, "careless", main_score=80, check_score=80)
    Report.objects.create(
        study=study, status=Report.Status.DONE, result=study_report_data(study), finished_at=timezone.now()
    )
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    log_in_to_the_console(page, live_server, "quinn")
    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=analyse")
    table = page.locator("#quality-control-table")
    expect(table).to_be_visible()
    assert sorted(table.locator("td.verdict").all_inner_texts()) == ["fail", "pass"]
    for size in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)
