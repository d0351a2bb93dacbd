"""The note to the researchers at the end of every task page, typed with the real keyboard.

On each protocol's page: the protocol's keys stay silent while the worker
types, the text is saved after a pause, comes back after a reload, and a
text typed just before Submit is stored before the submit.
"""

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.pairwise.models import PairwiseChoice
from protocols.rating.models import BestWorstJudgment, Rating
from protocols.rating.services import judgment_save, rating_save
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import study_questions
from protocols.span.models import ErrorAnnotation
from tests.browser.rating_pages import open_rating_page, rating_assignment
from tests.browser.reloads import reload_when_sent
from tests.browser.review_page import open_review_page, review_assignment
from tests.browser.task_page import make_task, open_task
from tests.pairwise.bundles import import_pairwise, pair_assignment, pairwise_documents

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LABEL = "Anything you want to tell the researchers? (optional)"
# Letters, digits and Enter that are shortcuts on one page or another, and markup that must stay text.
FIRST = "Output 2 looked cut off: a b t c s n p 1 2 3 <b>bold</b> & more"
SECOND = "Also: the instructions were clear."


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def box(page):
    return page.get_by_role("textbox", name=LABEL)


def stored_feedback(assignment):
    assignment.refresh_from_db()
    return assignment.worker_feedback


def type_reload_and_submit(page, assignment, *, reopen, unchanged):
    """What a worker does with the box on any page; `unchanged()` is the page's own work,
    which the keys typed into the box must not have touched."""
    before = unchanged()
    expect(box(page)).to_be_visible()
    expect(box(page)).to_be_editable()
    box(page).click()
    page.keyboard.type(FIRST)
    for key in ["Enter", "ArrowLeft", "ArrowRight", "ArrowDown", "ArrowUp", "End"]:
        page.keyboard.press(key)
    page.keyboard.press("Control+End")
    typed = FIRST + "\n"
    expect(box(page)).to_have_value(typed)
    expect(page.locator("#worker-feedback-status")).to_have_text("Saved.")
    assert stored_feedback(assignment) == typed
    assert unchanged() == before

    reload_when_sent(page)
    reopen()
    expect(box(page)).to_have_value(typed)
    expect(page.locator("b")).to_have_count(0)  # shown as text, never as markup

    # Typed just before Submit, without waiting for the pause: the submit sends it first.
    box(page).click()
    page.keyboard.press("Control+End")
    page.keyboard.type(SECOND)
    page.click("#submit")
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.click("#submit-confirm")
    expect(page.locator("#completion-code")).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.worker_feedback == typed + SECOND
    assert unchanged() == before

    # Read-only from now on, also after a reload.
    expect(box(page)).not_to_be_editable()
    reload_when_sent(page)
    expect(page.locator("#completion-code")).to_be_visible()
    expect(box(page)).to_have_value(typed + SECOND)
    expect(box(page)).not_to_be_editable()


def test_span_page(page, live_server):
    # One segment: the page opens on the last one, where Submit and the box are.
    assignment = make_task(["Tom met Anna at the mill. They talked."])
    open_task(page, live_server, assignment)
    expect(page.locator("#worker-feedback")).to_be_visible()

    def unchanged():
        assignment.refresh_from_db()
        pending = page.locator("button.category[aria-pressed=true]").count()
        return (
            ErrorAnnotation.objects.filter(assignment=assignment).count(),
            assignment.current_segment,
            pending,
        )

    type_reload_and_submit(
        page,
        assignment,
        reopen=lambda: page.wait_for_selector(".current-box .segment-text"),
        unchanged=unchanged,
    )
    expect(page.get_by_text("Tom met Anna")).to_be_visible()


def test_span_page_shows_the_box_next_to_submit_on_the_last_segment(page, live_server):
    assignment = make_task(["First segment.", "Last segment."])
    open_task(page, live_server, assignment)
    expect(page.locator("#worker-feedback")).to_be_hidden()
    with page.expect_response("**/move/"):
        page.click("#next")
    expect(page.locator("#submit")).to_be_visible()
    expect(page.locator("#worker-feedback")).to_be_visible()
    # Before Submit in the page's order.
    assert page.evaluate(
        "document.getElementById('worker-feedback').compareDocumentPosition("
        "document.getElementById('submit')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )


def test_likert_page(page, live_server, tmp_path):
    assignment = rating_assignment(tmp_path)
    for document in assignment.study.documents.all():
        rating_save(token=assignment.token, data={"document": document.external_id, "score": 4})
    open_rating_page(page, live_server, assignment)

    def unchanged():
        scores = sorted(Rating.objects.filter(assignment=assignment).values_list("document_id", "score"))
        return scores, page.locator("#unit-heading").text_content()

    type_reload_and_submit(
        page,
        assignment,
        reopen=lambda: page.wait_for_selector("#unit-heading:not(:empty)"),
        unchanged=unchanged,
    )


def test_bws_page(page, live_server, tmp_path):
    # b, w and v then a digit choose on this page: none of them may act from the box.
    assignment = rating_assignment(tmp_path, protocol="bws")
    external = dict(assignment.study.documents.values_list("pk", "external_id"))
    for entry in assignment.items:
        best, worst = (external[pk] for pk in (entry["documents"][0], entry["documents"][-1]))
        judgment_save(
            token=assignment.token, data={"position": entry["position"], "best": best, "worst": worst}
        )
    open_rating_page(page, live_server, assignment)

    def unchanged():
        judgments = BestWorstJudgment.objects.filter(assignment=assignment)
        return sorted(judgments.values_list("position", "best_id", "worst_id")), page.locator(
            "#unit-heading"
        ).text_content()

    type_reload_and_submit(
        page,
        assignment,
        reopen=lambda: page.wait_for_selector("#unit-heading:not(:empty)"),
        unchanged=unchanged,
    )


def test_review_page(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    single = [q for q in study_questions(assignment.study) if q["kind"] == "single"]
    for item in ReviewItem.objects.filter(document=assignment.document):
        ReviewAnswer.objects.create(
            assignment=assignment, item=item, answers={q["key"]: q["options"][0] for q in single}
        )
    open_review_page(page, live_server, assignment)

    def unchanged():
        return sorted(
            map(str, ReviewAnswer.objects.filter(assignment=assignment).values_list("item", "answers"))
        )

    type_reload_and_submit(
        page, assignment, reopen=lambda: page.wait_for_selector(".item-card"), unchanged=unchanged
    )


def test_pairwise_page(page, live_server, tmp_path):
    study = import_pairwise(
        tmp_path, config={"question": "Which is better?", "allow_ties": True},
        documents=pairwise_documents(blocks=("b1",), inputs=1),
    )  # fmt: skip
    assignment = pair_assignment(study)
    for entry in assignment.items:
        PairwiseChoice.objects.create(
            assignment=assignment, position=entry["position"], left_id=entry["left"], right_id=entry["right"],
            choice="tie",
        )  # fmt: skip
    open_rating_page(page, live_server, assignment)

    def unchanged():
        choices = sorted(
            PairwiseChoice.objects.filter(assignment=assignment).values_list("position", "choice")
        )
        return choices, page.locator("#unit-heading").text_content()

    type_reload_and_submit(
        page,
        assignment,
        reopen=lambda: page.wait_for_selector("#unit-heading:not(:empty)"),
        unchanged=unchanged,
    )


def test_a_text_still_waiting_for_its_pause_goes_out_before_the_submit(page, live_server, tmp_path):
    # Leaving the box sends the text ("change"), so a real click on Submit never finds one
    # waiting. Set it as a script would, without a change event, to see the queue send it first.
    assignment = rating_assignment(tmp_path)
    for document in assignment.study.documents.all():
        rating_save(token=assignment.token, data={"document": document.external_id, "score": 2})
    open_rating_page(page, live_server, assignment)
    page.evaluate(
        "() => { const area = document.getElementById('worker-feedback-text');"
        " area.value = 'sent first'; area.dispatchEvent(new Event('input')); }"
    )
    page.click("#submit")
    page.click("#submit-confirm")
    expect(page.locator("#completion-code")).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.worker_feedback == "sent first"


def test_offline_the_text_is_kept_retried_and_restored_in_a_new_tab(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    page.context.route("**/feedback/", lambda route: route.abort())
    open_review_page(page, live_server, assignment)
    box(page).click()
    page.keyboard.type("Item 2 has no span.")
    page.keyboard.press("Tab")
    expect(page.locator("#save-warning")).to_contain_text("Not saved yet")
    assert stored_feedback(assignment) == ""

    # The same browser opens the task again, still offline: the text comes back from the
    # page's stored queue, not from the server; back online, it is saved.
    second = page.context.new_page()
    open_review_page(second, live_server, assignment)
    expect(box(second)).to_have_value("Item 2 has no span.")
    assert stored_feedback(assignment) == ""
    page.context.unroute("**/feedback/")
    expect(second.locator("#worker-feedback-status")).to_have_text("Saved.", timeout=15_000)
    assert stored_feedback(assignment) == "Item 2 has no span."


def test_a_refused_text_says_why(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    open_review_page(page, live_server, assignment)
    page.route(
        "**/feedback/",
        lambda route: route.fulfill(
            status=400, content_type="application/json", body='{"error": "too long"}'
        ),
    )
    box(page).click()
    page.keyboard.type("x")
    page.keyboard.press("Tab")
    expect(page.locator("#worker-feedback-status")).to_have_text("Not saved: too long")
