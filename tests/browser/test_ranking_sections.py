"""The report's ranking sections (a Likert study: raw and z-scores) at 1280 x 800 and 390 x 844:
no sideways scroll, no serious axe finding, the pairs' details opened by keyboard."""

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from accounts.services import researcher_create
from reports.models import Report
from reports.study_report import study_report_data
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in_to_the_console
from tests.console.test_rankings import likert_study

pytestmark = pytest.mark.django_db(transaction=True)


def test_ranking_sections_fit_both_widths_and_open_by_keyboard(browser, live_server, tmp_path):
    researcher = researcher_create(username="rhea", password="pass-w0rd-for-tests")
    study = likert_study(tmp_path / "likert", researcher)
    Report.objects.create(
        study=study, status=Report.Status.DONE, result=study_report_data(study), finished_at=timezone.now()
    )
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    log_in_to_the_console(page, live_server, "rhea")
    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=analyse")
    expect(page.locator("#ranking-table")).to_be_visible()
    expect(page.locator("#ranking-z-table")).to_be_visible()

    summary = page.locator("#ranking-pairs summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#ranking-pairs table")).to_be_visible()
    for size in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)
