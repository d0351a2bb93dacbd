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
from annotations.models import AllocationRecord, Assignment
from studies.models import Document, Study
from tests.annotations.block_studies import import_block_study, pair_documents, quality
from tests.browser.audit import assert_accessible

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PASSWORD = "pass-w0rd-for-tests"
INPUTS = 12
BLOCKS = 2 * INPUTS


def researcher_sets_the_allocation(page, live_server, study):
    page.goto(live_server.url + "/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.goto(f"{live_server.url}/console/studies/{study.pk}/?tab=design")
    page.get_by_label("Uncertain", exact=False).check()
    page.get_by_label("every pair of systems is settled").check()
    page.click("#save-allocation")
    expect(page.locator("body")).to_contain_text("The allocation settings are saved.")
    # Blocks of two systems each: something to steer, so no warning.
    expect(page.locator("body")).not_to_contain_text("every block holds the same systems")


def worker_chooses_one_block(browser, join_link):
    """A new worker: joins, picks the better output of each pair by keyboard (a or b), submits.
    Returns the assignment, or the refusal's text when the join link gave no block."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(join_link)
    if page.locator("text=Start").count() == 0:
        text = page.locator("#refused").inner_text()
        context.close()
        return text
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
    researcher_sets_the_allocation(researcher, live_server, study)

    join_link = f"{live_server.url}/join/{study.join_key}/"
    done, refusal = [], None
    for _ in range(BLOCKS):
        outcome = worker_chooses_one_block(browser, join_link)
        if isinstance(outcome, str):
            refusal = outcome
            break
        done.append(outcome)
    assert refusal is not None and "finished" in refusal

    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert AllocationRecord.objects.get(study=study).stopped_rule == "settled"
    pairs = Counter(a.block.split("-")[1] for a in done)
    # Every C-D block was bought, and the study stopped before every block was.
    assert pairs["CD"] == INPUTS // 3
    assert len(done) < BLOCKS

    researcher.goto(f"{live_server.url}/console/studies/{study.pk}/?tab=run")
    expect(researcher.locator("#stopped-rule")).to_contain_text("Stopped by itself")
    expect(researcher.locator("#stopped-rule")).to_contain_text("settled")
    expect(researcher.locator("#ratings-spent")).to_contain_text(f"{len(done)} of {BLOCKS} planned")
    expect(researcher.locator("dt", has_text="Blocks rated")).to_be_visible()
    expect(researcher.locator("#pairs-settled")).to_contain_text("6 of 6")
    assert_accessible(researcher)
