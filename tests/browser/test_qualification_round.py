"""A candidate takes a two-summary qualification round as one task, in a real browser."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.browser.task_page import select_words
from tests.factories import DocumentFactory, SegmentFactory
from tests.qualification.builders import TEXTS, annotate, make_round, span

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROLIFIC = "PROLIFIC_PID=cand-7&STUDY_ID=st-1&SESSION_ID=se-1"


def round_of_two(completion_url):
    qualification, first = make_round()
    study = qualification.study
    study.config = {"prolific_completion_url": completion_url}
    study.save(update_fields=["config"])
    second = DocumentFactory(study=study, external_id="q2", kind="qualification", position=1)
    for index, text in enumerate(TEXTS):
        SegmentFactory(document=second, index=index, text=text)
    for document in (first, second):
        annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    return study


def annotate_and_submit(page):
    """Read both segments, mark 'Carl' as a new character, submit through the dialog."""
    expect(page.locator("#segment-counter")).to_have_text("Segment 1 of 2")
    with page.expect_response("**/move/"):
        page.click("#next")
    expect(page.locator("#segment-counter")).to_have_text("Segment 2 of 2")
    select_words(page, 1, TEXTS[1], "Carl")
    page.locator('button.category[data-key="CharE"]').click()
    page.click("#add")
    expect(page.locator('#annotation-list > li[data-saved="true"]')).to_have_count(1)
    page.click("#submit")
    page.click("#submit-confirm")


def test_two_summaries_one_join_one_code(page, live_server):
    completion_url = live_server.url + "/prolific-complete/"
    study = round_of_two(completion_url)
    page.goto(live_server.url + reverse("join", args=[study.join_key]) + "?" + PROLIFIC)
    expect(page.locator("#task-progress")).to_have_text("Text 1 of 2")
    page.click("#start")
    annotate_and_submit(page)

    # Straight on to the second summary: no code, no going back through the join link.
    expect(page.locator("#task-progress")).to_have_text("Text 2 of 2")
    first, second = Assignment.objects.filter(worker__external_id="cand-7").order_by("id")
    expect(page).to_have_url(live_server.url + reverse("task-annotate", args=[second.token]))
    expect(page.locator("#completion-code")).to_have_count(0)
    assert second.platform_ids == {"STUDY_ID": "st-1", "SESSION_ID": "se-1"}
    page.reload()  # a reload stays on the second summary
    expect(page.locator("#task-progress")).to_have_text("Text 2 of 2")

    annotate_and_submit(page)
    code = page.locator("#completion-code")
    expect(code).not_to_be_empty()
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.completion_code == second.completion_code != ""
    expect(code).to_have_text(first.completion_code)
    expect(page.locator("#return-to-platform")).to_have_attribute("href", completion_url)
    assert ErrorAnnotation.objects.filter(assignment__in=[first, second], text="Carl").count() == 2
    page.wait_for_url(completion_url)  # Prolific's completion URL, once
