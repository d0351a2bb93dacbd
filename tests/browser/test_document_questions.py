"""A worker answers the questions about the whole text below the last segment, in a real
browser: by mouse and by keyboard only, across a reload, through a failed save, to submit."""

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.span.models import DocumentAnswer, ErrorAnnotation
from tests.browser.reloads import reload_when_sent
from tests.browser.task_page import TEXTS, make_task, open_task, select_words
from tests.span_questions.questions import questions

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PANEL = "#document-questions"
STATUS = "#document-answers-status"
ANSWERED = {"coherence": 4, "better": "the other one", "problems": ["names", "repetition"],
            "notes": "Ends too soon."}  # fmt: skip


def question_task(**fields):
    return make_task(config={"document_questions": questions()}, **fields)


def stored(assignment):
    row = DocumentAnswer.objects.filter(assignment=assignment).first()
    return None if row is None else row.answers


def go_to_last_segment(page):
    for counter in ("Segment 2 of 3", "Segment 3 of 3"):
        with page.expect_response("**/move/"):
            page.click("#next")
        expect(page.locator("#segment-counter")).to_have_text(counter)


def option(page, key, index):
    return page.locator(f"#document-{key}-{index}")


def label_of(page, key, index):
    return page.locator(f'label[for="document-{key}-{index}"]')


def wait_answers_saved(page):
    expect(page.locator(STATUS)).to_have_text("Your answers are saved.")


def expect_answers_shown(page):
    expect(option(page, "coherence", 3)).to_be_checked()
    expect(option(page, "better", 1)).to_be_checked()
    expect(option(page, "problems", 0)).to_be_checked()
    expect(option(page, "problems", 1)).not_to_be_checked()
    expect(option(page, "problems", 2)).to_be_checked()
    expect(page.locator("#document-notes-text")).to_have_value("Ends too soon.")


def test_answers_by_mouse_survive_a_reload_and_are_submitted(page, live_server):
    assignment = question_task()
    open_task(page, live_server, assignment)
    expect(page.locator(PANEL)).to_be_hidden()  # the questions come after the text
    go_to_last_segment(page)

    panel = page.locator(PANEL)
    expect(panel).to_be_visible()
    expect(panel.get_by_role("heading", name="About the whole text")).to_be_visible()
    expect(
        panel.get_by_role("radiogroup", name="How coherent is the text as a whole? (required)")
    ).to_be_visible()
    expect(panel.get_by_role("radio", name="1 not at all")).to_be_visible()
    expect(panel.get_by_text("Optional: a sentence or two.")).to_be_visible()

    # Submit first: refused on the page, and the first open question takes the focus.
    page.click("#submit")
    expect(page.locator("#submit-dialog")).to_be_hidden()
    expect(page.locator("#message")).to_have_text(
        "Answer the questions about the whole text before submitting. Still to answer: "
        "How coherent is the text as a whole?; Which version reads better?"
    )
    expect(option(page, "coherence", 0)).to_be_focused()

    label_of(page, "coherence", 1).click()
    label_of(page, "coherence", 3).click()  # changed the mind: 4, not 2
    label_of(page, "better", 1).click()
    label_of(page, "problems", 0).click()
    label_of(page, "problems", 2).click()
    page.click("#document-notes-text")
    page.keyboard.type("Ends too soon.")
    page.click("#document-questions-heading")  # leaving the field sends the text at once
    wait_answers_saved(page)
    assert stored(assignment) == ANSWERED

    reload_when_sent(page)
    expect(page.locator(PANEL)).to_be_visible()
    expect_answers_shown(page)
    expect(page.locator(STATUS)).to_have_text("Your answers are saved.")

    page.click("#submit")
    page.click("#submit-confirm")
    expect(page.locator("#completion-code")).not_to_be_empty()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    # Read-only once submitted, also after a reload.
    for _ in range(2):
        expect(page.locator(PANEL)).to_be_visible()
        expect_answers_shown(page)
        expect(page.locator(f"{PANEL} input:enabled")).to_have_count(0)
        expect(page.locator("#document-notes-text")).not_to_be_editable()
        reload_when_sent(page)
    assert stored(assignment) == ANSWERED


def tab_to(page, selector, limit=60):
    for _ in range(limit):
        if page.evaluate("(selector) => document.activeElement?.matches(selector) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only_answers_and_submit(page, live_server):
    assignment = question_task()
    open_task(page, live_server, assignment)
    for counter in ("Segment 2 of 3", "Segment 3 of 3"):
        with page.expect_response("**/move/"):
            page.keyboard.press("n")
        expect(page.locator("#segment-counter")).to_have_text(counter)

    # Tab into the first radio group; Space picks, the arrows move the choice.
    tab_to(page, "#document-coherence-0")
    page.keyboard.press("Space")  # 1
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):  # 2, 3, 4, 5, back to 4
        page.keyboard.press(key)
    expect(option(page, "coherence", 3)).to_be_checked()
    expect(option(page, "coherence", 3)).to_be_focused()
    expect(page.locator("#segment-counter")).to_have_text(
        "Segment 3 of 3"
    )  # the arrows did not move segments

    page.keyboard.press("Tab")  # the next group
    expect(option(page, "better", 0)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(option(page, "better", 1)).to_be_checked()

    page.keyboard.press("Tab")
    expect(option(page, "problems", 0)).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(option(page, "problems", 2)).to_be_focused()
    page.keyboard.press("Space")

    page.keyboard.press("Tab")
    expect(page.locator("#document-notes-text")).to_be_focused()
    page.keyboard.type("Ends too soon.")

    tab_to(page, "#submit")  # leaving the text field sends it
    wait_answers_saved(page)
    assert stored(assignment) == ANSWERED
    page.keyboard.press("Enter")
    expect(page.locator("#submit-dialog")).to_be_visible()
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#completion-code")).not_to_be_empty()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert stored(assignment) == ANSWERED


def test_shortcuts_do_not_fire_while_typing_an_answer(page, live_server):
    assignment = question_task()
    open_task(page, live_server, assignment)
    go_to_last_segment(page)
    select_words(page, 2, TEXTS[2], "mill")
    page.keyboard.press("c")  # an annotation ready to add: Ctrl+Enter in the comment would add it
    expect(page.locator("#add")).to_be_enabled()

    notes = page.locator("#document-notes-text")
    notes.click()
    # r and s choose categories, n and p move, the arrows move: here they are text and the caret.
    page.keyboard.type("rs np")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    page.keyboard.type("!")
    expect(notes).to_have_value("rs np!")
    page.keyboard.press("Control+Enter")  # Add is the comment's key, not the answer's
    expect(page.locator("#segment-counter")).to_have_text("Segment 3 of 3")
    expect(page.locator('button.category[aria-pressed="true"]')).to_have_count(1)
    expect(page.locator('button.category[data-key="CharE"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#pending-span-text")).to_have_text("mill")
    expect(page.locator("#annotation-list > li")).to_have_count(0)
    typed = notes.input_value()

    # Outside the field the same keys are shortcuts again.
    page.click("#document-questions-heading")
    page.keyboard.press("s")
    expect(page.locator('button.category[data-key="SceneE"]')).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    with page.expect_response("**/move/"):
        page.keyboard.press("p")
    expect(page.locator("#segment-counter")).to_have_text("Segment 2 of 3")
    expect(page.locator(PANEL)).to_be_hidden()
    wait_answers_saved(page)
    assert stored(assignment) == {"notes": typed}
    assert ErrorAnnotation.objects.filter(assignment=assignment).count() == 0


def test_a_failed_save_of_an_answer_is_shown_and_retried(page, live_server):
    assignment = question_task()
    aborted = []

    def fail_first(route):
        if not aborted:
            aborted.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/api/task/**/document-answers/", fail_first)
    open_task(page, live_server, assignment)
    go_to_last_segment(page)
    label_of(page, "coherence", 1).click()

    expect(page.locator("#save-warning")).to_contain_text("Not saved yet – retrying…")
    expect(page.locator(STATUS)).to_have_text("Saving your answers…")
    wait_answers_saved(page)
    expect(page.locator("#save-warning")).to_be_hidden()
    assert len(aborted) == 1
    assert stored(assignment) == {"coherence": 2}


def test_a_refused_answer_shows_the_reason_and_is_undone(page, live_server):
    assignment = question_task()
    open_task(page, live_server, assignment)
    go_to_last_segment(page)
    label_of(page, "coherence", 0).click()
    wait_answers_saved(page)

    page.route(
        "**/api/task/**/document-answers/",
        lambda route: route.fulfill(status=400, json={"error": "coherence: give a whole number from 1 to 5"}),
    )
    label_of(page, "coherence", 4).click()

    expect(page.locator(STATUS)).to_have_text("Not saved: coherence: give a whole number from 1 to 5")
    expect(option(page, "coherence", 0)).to_be_checked()  # back to what the server has
    expect(option(page, "coherence", 4)).not_to_be_checked()
    assert stored(assignment) == {"coherence": 1}


def test_a_blocked_submit_points_at_a_text_question_but_types_nothing_into_it(page, live_server):
    """The first open question is a text: Submit refused shows it, and the worker's next keys are
    keys (n opens Submit again), not letters of an answer they did not choose to write."""
    why = {"key": "why", "label": "Why did the text stop making sense?", "kind": "text", "required": True}
    assignment = make_task(config={"document_questions": [why]})
    open_task(page, live_server, assignment)
    go_to_last_segment(page)
    page.keyboard.press("n")  # on the last segment: Submit, refused
    expect(page.locator("#message")).to_contain_text("Still to answer: Why did the text stop making sense?")
    expect(page.locator("#document-why-text")).not_to_be_focused()
    expect(page.locator('.document-question[data-question="why"]')).to_be_focused()
    page.keyboard.press("n")
    expect(page.locator("#document-why-text")).to_have_value("")
    expect(page.locator("#message")).to_contain_text("Still to answer")
    page.keyboard.press("Tab")  # the worker chooses the field: now letters are text
    expect(page.locator("#document-why-text")).to_be_focused()
    page.keyboard.type("no")
    expect(page.locator("#document-why-text")).to_have_value("no")
    assert stored(assignment) in (None, {}, {"why": "no"})
