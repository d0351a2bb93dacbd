"""A live pairwise study that spends its blocks on the close pair and stops by itself, in a real
browser.

The researcher sets the `uncertain` policy and the `settled` rule on the console's Design tab;
workers come one after another through the join link, each in a browser of their own, and choose
the better output of their block's pair with the keyboard. Each block holds two systems' outputs
of one input (tests/annotations/block_studies.py): sysA clearly best, sysB clearly worst, sysC
and sysD close. Once every pair's order is settled the study closes by itself.
"""

from collections import Counter

import pytest
from playwright.sync_api import expect

from accounts.models import StudyMembership
from accounts.services import researcher_create
from annotations.models import Assignment
from studies.models import Document
from tests.annotations.block_studies import import_block_study, pair_documents, quality
from tests.browser.allocation_steps import (
    DESKTOP,
    assert_stopped_by_itself,
    assert_tabs_fit_a_phone,
    joined,
    researcher_sets_the_allocation,
    workers_until_refused,
)
from tests.browser.audit import assert_accessible

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-w0rd-for-tests"
INPUTS = 12
BLOCKS = 2 * INPUTS


def worker_chooses_one_block(browser, join_link):
    """A new worker: joins, picks the better output of each pair by keyboard (a or b), submits.
    Returns the assignment, or the refusal's text when the join link gave no block."""
    opened = joined(browser, join_link)
    if isinstance(opened, str):
        return opened
    context, page = opened
    page.click("text=Start")
    page.wait_for_selector("#unit-heading:not(:empty)")
    token = page.url.split("/task/")[1].split("/")[0]
    assignment = Assignment.objects.get(token=token)
    documents = Document.objects.in_bulk(
        [pk for item in assignment.items for pk in (item["left"], item["right"])]
    )
    for number, item in enumerate(assignment.items):
        better = "a" if quality(documents[item["left"]]) > quality(documents[item["right"]]) else "b"
        with page.expect_response("**/choices/"):
            page.keyboard.press(better)
        if number < len(assignment.items) - 1:
            page.click("#next")
    page.click("#submit")
    page.click("#submit-confirm")
    expect(page.locator("#completion-code")).to_be_visible()
    context.close()
    return assignment


def test_a_pairwise_study_spends_its_blocks_on_the_close_pair_and_stops_by_itself(
    browser, live_server, tmp_path
):
    user = researcher_create(username="rita", password=PASSWORD)
    study = import_block_study(
        tmp_path, "pairwise", documents=pair_documents(INPUTS), allocation={"policy": "uniform"}
    ).study
    StudyMembership.objects.create(study=study, user=user, role="researcher")
    researcher = browser.new_context(viewport=DESKTOP).new_page()
    researcher_sets_the_allocation(researcher, live_server, study, username="rita", password=PASSWORD)
    # Blocks of two systems each: something to steer, so no warning.
    expect(researcher.locator("body")).not_to_contain_text("every block holds the same systems")

    join_link = f"{live_server.url}/join/{study.join_key}/"
    done, refusal = workers_until_refused(browser, join_link, worker_chooses_one_block, BLOCKS)
    assert refusal is not None and "finished" in refusal

    pairs = Counter(a.block.split("-")[1] for a in done)
    # Every C-D block was bought, and the study stopped before every block was.
    assert pairs["CD"] == INPUTS // 3
    assert len(done) < BLOCKS
    assert_stopped_by_itself(researcher, live_server, study, rated=len(done), planned=BLOCKS, pairs=6)
    expect(researcher.locator("dt", has_text="Blocks rated")).to_be_visible()
    assert_accessible(researcher)
    assert_tabs_fit_a_phone(researcher, live_server, study)
