"""A reviewer judging LLM evaluators' error annotations on the review page, in a real browser."""

import json

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from tests.browser.reloads import reload_when_sent
from tests.browser.review_page import (
    card,
    comment,
    highlights,
    open_review_page,
    option,
    review_assignment,
    review_items,
    stored_answers,
    tab_to,
)
from tests.reviews.bundles import OUTPUTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLOR_A, COLOR_B = "rgb(255, 209, 102)", "rgb(154, 208, 245)"  # Evaluator A and B in review_selectors
REAL_NAMES = ["gpt-4o", "llama-70b", "claude"]


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def wait_until_saved(page):
    expect(page.locator('.item-status[data-kind="saving"]')).to_have_count(0)


def submit_through_dialog(page):
    expect(page.locator("#submit")).to_be_enabled()
    page.click("#submit")
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.click("#submit-confirm")


def test_input_table_output_highlights_and_items_are_shown_literally(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young, young_again, score, hostile, no_span = review_items(assignment)
    open_review_page(page, live_server, assignment)

    # The input: its text, and the box score as a table whose cells are text.
    expect(page.locator("#input-box .source-text")).to_have_text("Match report")
    table = page.locator("#input-box table.data-table")
    expect(table.locator("caption")).to_have_text("Box score")
    expect(table.locator("thead th")).to_have_text(["player", "pts"])
    expect(table.locator("tbody tr").nth(1).locator("td")).to_have_text(["<b>LaVine</b>", "28"])
    expect(table.locator("b")).to_have_count(0)

    # The output, segment by segment, exactly as stored.
    segments = page.locator("#output-box .output-segment")
    expect(segments).to_have_count(2)
    shown = segments.evaluate_all(
        "nodes => nodes.map((node) => [...node.childNodes].filter((c) => c.nodeName !== 'SUP').map((c) => c.textContent).join(''))"
    )
    assert shown == OUTPUTS["game1"]

    # Items under their evaluator labels, with their colours.
    expect(page.locator(".evaluator-heading")).to_have_text(
        [r"Evaluator A2 items", r"Evaluator B2 items", r"Evaluator C1 item"]
    )
    for group, items in zip(
        page.locator(".evaluator").all(), [[young, young_again], [score, hostile], [no_span]], strict=True
    ):
        expect(group.locator(".item-card")).to_have_count(len(items))
        for item in items:
            expect(group.locator(f"#item-{item.pk}")).to_have_count(1)

    # Every item's span at all its locations: "Young" (every occurrence) twice, the second one once.
    expect(highlights(page, young)).to_have_text(["Young", "Young"])
    expect(highlights(page, young).nth(0)).to_have_css("background-color", COLOR_A)
    expect(highlights(page, young_again)).to_have_text(["Young"])
    expect(highlights(page, young_again)).to_have_attribute("data-items", f"{young.pk} {young_again.pk}")
    expect(highlights(page, score)).to_have_text(["102-99"])
    expect(highlights(page, score)).to_have_css("background-color", COLOR_B)
    expect(highlights(page, hostile)).to_have_text(["won again"])
    expect(highlights(page, no_span)).to_have_count(0)
    expect(card(page, young).locator(".span-places")).to_have_text("2 places in the output")

    # The empty span, and the hostile explanation shown as text, never run.
    expect(card(page, no_span).locator(".badge")).to_have_text("no span given")
    expect(card(page, no_span).locator("q")).to_have_count(0)
    expect(card(page, hostile).locator(".explanation-text")).to_have_text("<script>alert(1)</script>")
    expect(card(page, score).locator("q.span-text")).to_have_text("102-99")
    assert page.dialogs == []

    # Real evaluator names never reach the page.
    html = page.content().lower()
    for name in REAL_NAMES:
        assert name not in html

    # Pointing at a card shows its spans more strongly; clicking a span goes to its card.
    card(page, score).hover()
    expect(highlights(page, score)).to_have_class("hl active")
    expect(highlights(page, young).nth(0)).not_to_have_class("hl active")
    page.locator("#output-box").hover()
    highlights(page, hostile).click()
    expect(card(page, hostile)).to_be_focused()
    expect(highlights(page, hostile)).to_have_class("hl active")
    # The shared "Young": one click goes to the first item, the next click to the second.
    shared = highlights(page, young_again)
    shared.click()
    expect(card(page, young)).to_be_focused()
    shared.click()
    expect(card(page, young_again)).to_be_focused()


def test_answering_every_item_by_mouse_saves_reloads_and_submits(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    items = review_items(assignment)
    young, young_again, score, hostile, no_span = items
    open_review_page(page, live_server, assignment)
    expect(page.locator("#progress")).to_have_text("0 of 5 items answered")
    expect(page.locator("#submit")).to_be_disabled()

    choices = {
        young: {"span": "Error", "explanation": "Correct"},
        young_again: {"span": "Not an error", "explanation": "Not an error"},
        score: {"span": "Not an error", "explanation": "Partially correct"},
        hostile: {"span": "Not an error", "explanation": "Vague"},
        no_span: {"span": "No span given", "explanation": "Incomplete"},
    }
    for item, answers in choices.items():
        for question, name in answers.items():
            option(page, item, question, name).click()
    # A change of mind replaces the answer.
    option(page, young_again, "span", "Error").click()
    choices[young_again]["span"] = "Error"
    # Flags: tick two, untick one.
    option(page, score, "flags", "Too strict").click()
    option(page, score, "flags", "Repeated").click()
    option(page, score, "flags", "Too strict").click()
    choices[score]["flags"] = ["Repeated"]
    # Comments: one saved after a pause in typing, one when the field is left.
    comment(page, no_span).fill("The text is long enough.")
    expect(card(page, no_span).locator(".item-status")).to_have_text("answered")
    comment(page, hostile).fill("Markup <i>kept</i>")
    comment(page, hostile).blur()
    choices[no_span]["comment"] = "The text is long enough."
    choices[hostile]["comment"] = "Markup <i>kept</i>"

    expect(page.locator("#progress")).to_have_text("5 of 5 items answered")
    wait_until_saved(page)
    assert stored_answers(assignment) == {item.pk: answers for item, answers in choices.items()}

    reload_when_sent(page)
    page.wait_for_selector(".item-card")
    expect(page.locator("#progress")).to_have_text("5 of 5 items answered")
    expect(option(page, young_again, "span", "Error")).to_be_checked()
    expect(option(page, young_again, "explanation", "Not an error")).to_be_checked()
    expect(option(page, score, "flags", "Repeated")).to_be_checked()
    expect(option(page, score, "flags", "Too strict")).not_to_be_checked()
    expect(comment(page, hostile)).to_have_value("Markup <i>kept</i>")
    assert page.dialogs == []

    # Cancelling the dialog submits nothing.
    page.click("#submit")
    page.click("#submit-cancel")
    expect(page.locator("#submit-dialog")).to_be_hidden()
    assignment.refresh_from_db()
    assert assignment.status != Assignment.Status.SUBMITTED

    submit_through_dialog(page)
    code = page.locator("#completion-code")
    expect(code).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(code).to_have_text(assignment.completion_code)
    expect(page.locator("#banner")).to_have_text("You have submitted this task. Thank you!")
    expect(page.locator("#submit-bar")).to_be_hidden()
    expect(option(page, young, "span", "Not an error")).to_be_disabled()
    expect(comment(page, hostile)).not_to_be_editable()
    assert stored_answers(assignment) == {item.pk: answers for item, answers in choices.items()}


def test_an_item_answered_by_keyboard_only(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young = review_items(assignment)[0]
    open_review_page(page, live_server, assignment)

    first_radio = f'#item-{young.pk} fieldset[data-question="span"] input'
    tab_to(page, first_radio)
    expect(highlights(page, young).nth(0)).to_have_class("hl active")  # the focused item's spans stand out
    page.keyboard.press("Space")  # "Error"
    page.keyboard.press("Tab")  # into "Explanation OK?"
    page.keyboard.press("ArrowRight")  # "Partially correct"
    page.keyboard.press("ArrowRight")  # "Incomplete"
    # Tab skips "Too strict" (it goes only with "Not an error") to the next flag.
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # "Not aspect related"
    tab_to(page, f"#item-{young.pk} textarea")
    page.keyboard.type("Typed by keyboard.")
    page.keyboard.press("Tab")

    expect(card(page, young).locator(".item-status")).to_have_text("answered")
    expect(page.locator("#progress")).to_have_text("1 of 5 items answered")
    wait_until_saved(page)
    assert stored_answers(assignment) == {
        young.pk: {"span": "Error", "explanation": "Incomplete", "flags": ["Not aspect related"],
                   "comment": "Typed by keyboard."}
    }  # fmt: skip

    # "Next to answer" takes the focus to the next item's first open question.
    second = review_items(assignment)[1]
    page.click("#next-open")
    expect(page.locator(f'#item-{second.pk} fieldset[data-question="span"] input').first).to_be_focused()


def test_a_failed_save_warns_and_is_retried_and_a_refused_one_is_undone(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young = review_items(assignment)[0]
    failures = {"network": 1, "refuse": 0}

    def flaky(route):
        if failures["network"]:
            failures["network"] -= 1
            return route.abort("internetdisconnected")
        if failures["refuse"]:
            failures["refuse"] -= 1
            return route.fulfill(status=400, content_type="application/json",
                                 body=json.dumps({"error": "span: 'Error' is not one of its options"}))  # fmt: skip
        return route.continue_()

    page.route("**/answers/", flaky)
    open_review_page(page, live_server, assignment)
    option(page, young, "span", "Error").click()
    expect(page.locator("#save-warning")).to_contain_text("Not saved yet – retrying")
    expect(card(page, young).locator(".item-status")).to_have_text("saving…")
    wait_until_saved(page)  # the retry after a second went through
    expect(page.locator("#save-warning")).to_be_hidden()
    assert stored_answers(assignment) == {young.pk: {"span": "Error"}}

    failures["refuse"] = 1
    option(page, young, "span", "Not an error").click()
    expect(page.locator("#message")).to_have_text("Not saved: span: 'Error' is not one of its options")
    expect(option(page, young, "span", "Error")).to_be_checked()  # back to what the server has
    assert stored_answers(assignment) == {young.pk: {"span": "Error"}}


def test_submitted_and_released_reviews_are_read_only(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path, status=Assignment.Status.RELEASED)
    young = review_items(assignment)[0]
    open_review_page(page, live_server, assignment)
    expect(page.locator("#banner")).to_contain_text("released after a long time without activity")
    expect(option(page, young, "span", "Error")).to_be_disabled()
    expect(page.locator("#submit-bar")).to_be_hidden()

    Assignment.objects.filter(pk=assignment.pk).update(
        status=Assignment.Status.SUBMITTED, completion_code="CODE-7"
    )
    open_review_page(page, live_server, assignment)
    expect(page.locator("#completion-code")).to_have_text("CODE-7")
    expect(option(page, young, "flags", "Repeated")).to_be_disabled()


def test_screenshot_of_a_review_in_progress(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young = review_items(assignment)[0]
    open_review_page(page, live_server, assignment)
    option(page, young, "span", "Error").click()
    option(page, young, "explanation", "Correct").click()
    option(page, young, "flags", "Repeated").click()
    wait_until_saved(page)
    page.evaluate("window.scrollTo(0, 0)")
    card(page, young).locator(".item-heading").hover()  # in view at the top: no scrolling
    expect(highlights(page, young)).to_have_class(["hl active", "hl hl-overlap active"])
    page.screenshot(path="/tmp/review.png", full_page=False)


def test_records_emoji_offsets_overlaps_not_found_and_study_questions(page, live_server, tmp_path):
    questions = [{"key": "ok", "label": "Is the <em>error</em> real?", "kind": "single", "options": ["yes", "no"]},
                 {"key": "note", "label": "Note", "kind": "text"}]  # fmt: skip
    assignment = review_assignment(
        tmp_path,
        segments=["😀 Young 🏀 scored 30 points.", "Plain second paragraph."],
        data={"records": [{"team": "Hawks", "pts": 102}, {"team": "<i>Bulls</i>", "coach": "Donovan"}]},
        items=[
            {"document": "game1", "evaluator": evaluator, "span": span, "explanation": explanation}
            for evaluator, span, explanation in [
                ("gpt-4o", "scored 30", "After two emoji."),
                ("claude", "30 points", "Overlaps A."),
                ("claude", "Celtics", "Not in the text."),
            ]
        ],
        questions=questions,
    )
    scored, points, celtics = review_items(assignment)
    open_review_page(page, live_server, assignment)

    # Records: one table, the union of their keys as columns; an empty source shows nothing.
    table = page.locator("#input-box table.data-table")
    expect(table.locator("thead th")).to_have_text(["team", "pts", "coach"])
    expect(table.locator("tbody tr").nth(1).locator("td")).to_have_text(["<i>Bulls</i>", "", "Donovan"])
    expect(page.locator("#input-box .source-text")).to_have_count(0)

    # Code-point offsets after emoji land on the right characters; the overlap shows both colours.
    expect(highlights(page, scored)).to_have_text(["scored ", "30"])
    expect(highlights(page, points)).to_have_text(["30", " points"])
    overlap = page.locator(f'#output-box .hl[data-items="{scored.pk} {points.pk}"]')
    expect(overlap).to_have_text("30")
    assert "repeating-linear-gradient" in overlap.evaluate("node => node.style.background")
    expect(card(page, celtics).locator(".badge")).to_have_text("not found in the output")
    expect(card(page, celtics).locator("q.span-text")).to_have_text("Celtics")
    expect(highlights(page, celtics)).to_have_count(0)

    # The study's own questions, their labels as text.
    expect(card(page, scored).locator("legend")).to_have_text(["Is the <em>error</em> real?"])
    expect(page.locator("em")).to_have_count(0)
    option(page, scored, "ok", "no").click()
    comment(page, scored).fill("fine")
    comment(page, scored).blur()
    option(page, points, "ok", "yes").click()
    option(page, celtics, "ok", "no").click()
    wait_until_saved(page)
    expect(page.locator("#progress")).to_have_text("3 of 3 items answered")
    assert stored_answers(assignment) == {
        scored.pk: {"ok": "no", "note": "fine"},
        points.pk: {"ok": "yes"},
        celtics.pk: {"ok": "no"},
    }
    for name in REAL_NAMES:
        assert name not in page.content().lower()


def test_unsent_answers_are_sent_again_from_local_storage(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young = review_items(assignment)[0]
    page.route("**/answers/", lambda route: route.abort())
    open_review_page(page, live_server, assignment)
    option(page, young, "span", "Not an error").click()
    option(page, young, "flags", "Hard to parse").click()
    expect(page.locator("#save-warning")).to_contain_text("Not saved yet")
    assert stored_answers(assignment) == {}

    # The same browser opens the task again (the first tab is still retrying, unsuccessfully).
    second = page.context.new_page()
    open_review_page(second, live_server, assignment)
    expect(option(second, young, "span", "Not an error")).to_be_checked()
    wait_until_saved(second)
    assert stored_answers(assignment) == {young.pk: {"span": "Not an error", "flags": ["Hard to parse"]}}


def test_options_the_rules_do_not_allow_are_disabled_with_their_reason(page, live_server, tmp_path):
    assignment = review_assignment(tmp_path)
    young, _, _, _, no_span = review_items(assignment)
    open_review_page(page, live_server, assignment)

    # "No span given" and "Hallucination" are not for an item whose span was found.
    for name, reason in [("No span given", "only for items whose span is not given"),
                         ("Hallucination", "only for items whose span is not found in the output")]:  # fmt: skip
        expect(option(page, young, "span", name)).to_be_disabled()
        expect(option(page, young, "span", name)).to_have_accessible_description(reason)
        expect(
            card(page, young).locator(".option-slot", has_text=name).locator(".option-reason")
        ).to_have_text(reason)
    expect(option(page, no_span, "span", "No span given")).to_be_enabled()
    expect(option(page, no_span, "span", "Hallucination")).to_be_disabled()

    # The keyboard moves between the options left: arrow keys skip the disabled ones.
    option(page, young, "span", "Error").focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    expect(option(page, young, "span", "Not an error")).to_be_checked()
    expect(option(page, young, "span", "Not an error")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(option(page, young, "span", "Error")).to_be_checked()

    # "Too strict" goes only with "Not an error"; changing the verdict unticks it.
    too_strict = option(page, young, "flags", "Too strict")
    expect(too_strict).to_be_disabled()
    expect(too_strict).to_have_accessible_description("only with Error span OK?: Not an error")
    option(page, young, "span", "Not an error").click()
    expect(too_strict).to_be_enabled()
    too_strict.focus()
    page.keyboard.press("Space")
    expect(too_strict).to_be_checked()
    wait_until_saved(page)
    assert stored_answers(assignment) == {young.pk: {"span": "Not an error", "flags": ["Too strict"]}}
    option(page, young, "span", "Error").click()
    expect(too_strict).to_be_disabled()
    expect(too_strict).not_to_be_checked()
    expect(page.locator("#message")).to_have_text('Unticked "Too strict": it no longer fits this answer.')
    wait_until_saved(page)
    assert stored_answers(assignment) == {young.pk: {"span": "Error", "flags": []}}
