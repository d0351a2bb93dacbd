"""A live DA study that spends its ratings on the close pair and stops by itself, in a real browser.

The researcher sets the `uncertain` policy and the `settled` rule on the console's Design tab;
workers come one after another through the join link, each in a browser of their own, and score
the translation they are given with the keyboard. Three systems: sysA clearly best, sysB and
sysC close. Once every pair's order is settled the study closes by itself: the join link says
so, and the Run tab shows which rule stopped it and when.
"""

from collections import Counter

import pytest
from playwright.sync_api import expect

from accounts.models import StudyMembership
from accounts.services import researcher_create
from annotations.models import Assignment
from studies.models import Study
from tests.browser.allocation_steps import (
    DESKTOP,
    assert_stopped_by_itself,
    assert_tabs_fit_a_phone,
    joined,
    researcher_sets_the_allocation,
    workers_until_refused,
)
from tests.browser.translation_page import next_segment, progress, submit_by_keyboard
from tests.translation.studies import make_translation_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-w0rd-for-tests"
QUALITY = {"sysA": 90, "sysB": 56, "sysC": 50}
NOISE_OFFSET = {"sysA": 0, "sysB": 3, "sysC": 7}
ITEMS = 8
MAX_WORKERS = 3 * ITEMS


def score_of(document, index):
    item = int(document.input_id.split("-")[1])
    return QUALITY[document.system] + (item * 5 + NOISE_OFFSET[document.system] + index) % 11 - 5


def worker_scores_one(browser, join_link):
    """A new worker: joins, scores every segment by the number field and Enter, submits by keyboard.
    Returns the assignment, or the refusal's text when the join link gave no task."""
    opened = joined(browser, join_link)
    if isinstance(opened, str):
        return opened
    context, page = opened
    page.click("text=Start")
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    token = page.url.split("/task/")[1].split("/")[0]
    assignment = Assignment.objects.select_related("document").get(token=token)
    document = assignment.document
    for index in range(document.segments.count()):
        if index:
            next_segment(page)
        expect(progress(page)).to_contain_text(f"Segment {index + 1} of 3")
        page.locator("#score-number").fill(str(score_of(document, index)))
        with page.expect_response("**/translation/scores/"):
            page.locator("#score-number").press("Enter")
        page.keyboard.press("Escape")
    submit_by_keyboard(page)
    expect(page.locator("#completion-code")).to_be_visible()
    context.close()
    return assignment


def test_a_da_study_spends_on_the_close_pair_and_stops_by_itself(browser, live_server):
    user = researcher_create(username="rita", password=PASSWORD)
    study = make_translation_study(
        "da", systems=tuple(QUALITY), documents=ITEMS, status=Study.Status.OPEN, annotators_per_document=1
    )
    StudyMembership.objects.create(study=study, user=user, role="researcher")
    researcher = browser.new_context(viewport=DESKTOP).new_page()
    researcher_sets_the_allocation(researcher, live_server, study, username="rita", password=PASSWORD)

    join_link = f"{live_server.url}/join/{study.join_key}/"
    done, refusal = workers_until_refused(browser, join_link, worker_scores_one, MAX_WORKERS)
    assert refusal is not None and "finished" in refusal

    spent = Counter(a.document.system for a in done)
    # The clearly better system was rated only until its place was settled; the close pair got the rest,
    # and the study stopped before every translation was rated.
    assert spent["sysB"] > spent["sysA"] and spent["sysC"] > spent["sysA"]
    assert len(done) < 3 * ITEMS
    assert_stopped_by_itself(researcher, live_server, study, rated=len(done), planned=3 * ITEMS, pairs=3)
    assert_tabs_fit_a_phone(researcher, live_server, study)
