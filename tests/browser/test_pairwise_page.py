"""A worker on the pairwise comparison page, in a real browser: by mouse, by keyboard, after a reload."""

import pytest
from django.urls import reverse
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.pairwise.models import PairwiseChoice
from tests.browser.reloads import QUEUE_HOLDS_WORK, reload_when_sent
from tests.pairwise.bundles import QUESTION, import_pairwise, pair_assignment, pairwise_documents, shown_pairs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STRENGTH = {"question": QUESTION, "strength": {"max": 2, "labels": {1: "slightly", 2: "clearly"}}}


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def assignment_for(tmp_path, config=STRENGTH, inputs=1):
    """A link worker's block b1: one input of three systems is three pairs."""
    study = import_pairwise(
        tmp_path, config=config, documents=pairwise_documents(blocks=("b1",), inputs=inputs)
    )
    return pair_assignment(study)


def open_page(page, live_server, assignment):
    page.goto(live_server.url + reverse("task-annotate", args=[assignment.token]))
    page.wait_for_selector("#unit-heading:not(:empty)")


def text_of(external_id):
    block_input, system = external_id.rsplit("-", 1)
    return f"Summary of {block_input} by {system}."


def stored(assignment):
    return {
        c.position: (c.left.external_id, c.right.external_id, c.choice, c.strength)
        for c in PairwiseChoice.objects.filter(assignment=assignment).select_related("left", "right")
    }


def status(page):
    return page.locator("#unit-status")


def pressed(page, choice):
    return page.locator(f'button.choice[data-choice="{choice}"]')


def strength_radio(page, value):
    return page.locator(f'#strength-scale input[type=radio][value="{value}"]')


def expect_completed(page, assignment):
    code = page.locator("#completion-code")
    expect(code).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(code).to_have_text(assignment.completion_code)
    expect(page.locator("#banner")).to_have_text("You have submitted this task. Thank you!")
    expect(page.locator("#submit-row")).to_be_hidden()


def test_a_block_by_mouse_shows_a_left_of_b_saves_each_choice_and_submits(page, live_server, tmp_path):
    assignment = assignment_for(tmp_path)
    pairs = shown_pairs(assignment)
    open_page(page, live_server, assignment)
    expect(page.locator("#question")).to_have_text(QUESTION)
    expect(page.locator("#progress")).to_have_text("0 of 3 pairs chosen")
    expect(page.locator("#submit")).to_be_disabled()
    expect(page.locator(".unit-button")).to_have_count(3)
    expect(page.locator("#source")).to_contain_text("Article b1-in0: the mayor opened the bridge.")

    answers = [
        ("left", 2, "A is better (clearly)"),
        ("tie", None, "About the same"),
        ("right", 1, "B is better (slightly)"),
    ]
    for number, ((_, left, right), (choice, strength, saved)) in enumerate(zip(pairs, answers, strict=True)):
        expect(page.locator("#unit-heading")).to_have_text(f"Pair {number + 1} of 3")
        a, b = page.locator("#output-a"), page.locator("#output-b")
        assert a.text_content() == text_of(left) and b.text_content() == text_of(right)
        a_box, b_box = a.bounding_box(), b.bounding_box()
        assert a_box["x"] + a_box["width"] <= b_box["x"] and abs(a_box["y"] - b_box["y"]) < 5
        if strength is None:
            with page.expect_response("**/choices/"):
                pressed(page, choice).click()
        else:
            pressed(page, choice).click()  # a side waits for its strength before it is saved
            expect(status(page)).to_have_text(
                f"Now choose how much better {'A' if choice == 'left' else 'B'} is"
            )
            expect(page.locator("#strength-question")).to_have_text(
                f"How much better is {'A' if choice == 'left' else 'B'}?"
            )
            with page.expect_response("**/choices/"):
                page.locator(f'#strength-scale .scale-point:has(input[value="{strength}"])').click()
            expect(strength_radio(page, strength)).to_be_checked()
        expect(pressed(page, choice)).to_have_attribute("aria-pressed", "true")
        expect(status(page)).to_have_text(f"Saved: {saved}")
        expect(page.locator("#progress")).to_have_text(f"{number + 1} of 3 pairs chosen")
        if number < 2:
            page.click("#next")
    assert stored(assignment) == {
        position: (left, right, choice, strength)
        for (position, left, right), (choice, strength, _) in zip(pairs, answers, strict=True)
    }
    page.screenshot(path="/tmp/pairwise.png", full_page=True)

    page.click("#submit")
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.click("#submit-confirm")
    expect_completed(page, assignment)
    expect(pressed(page, "right")).to_be_disabled()
    expect(strength_radio(page, 1)).to_be_disabled()


def test_a_block_by_keyboard_only(page, live_server, tmp_path):
    assignment = assignment_for(tmp_path)
    pairs = shown_pairs(assignment)
    open_page(page, live_server, assignment)

    page.keyboard.press("1")  # a strength before a side: refused, nothing saved
    expect(page.locator("#message")).to_have_text("Choose A or B first.")
    page.keyboard.press("a")
    expect(status(page)).to_have_text("Now choose how much better A is")
    page.keyboard.press("7")  # off the scale
    expect(page.locator("#message")).to_have_text("Choose a strength from 1 to 2.")
    page.keyboard.press("2")
    expect(status(page)).to_have_text("Saved: A is better (clearly)")
    page.keyboard.press("ArrowRight")  # changes the side: its strength is asked again
    expect(status(page)).to_have_text("Now choose how much better B is")
    page.keyboard.press("1")
    expect(status(page)).to_have_text("Saved: B is better (slightly)")
    page.keyboard.press("n")
    expect(page.locator("#unit-heading")).to_have_text("Pair 2 of 3")
    expect(page.locator("#unit-heading")).to_be_focused()
    page.keyboard.press("t")
    expect(status(page)).to_have_text("Saved: About the same")
    page.keyboard.press("2")
    expect(page.locator("#message")).to_have_text("A tie has no strength.")
    page.keyboard.press("Enter")
    expect(page.locator("#unit-heading")).to_have_text("Pair 3 of 3")
    page.keyboard.press("ArrowDown")
    expect(status(page)).to_have_text("Saved: About the same")
    page.keyboard.press("p")
    expect(page.locator("#unit-heading")).to_have_text("Pair 2 of 3")
    page.keyboard.press("n")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("1")
    expect(status(page)).to_have_text("Saved: A is better (slightly)")
    expect(page.locator("#progress")).to_have_text("3 of 3 pairs chosen")

    page.keyboard.press("n")  # on the last pair: Submit
    expect(page.locator("#submit-dialog")).to_be_visible()
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect_completed(page, assignment)
    expected = [("right", 1), ("tie", None), ("left", 1)]
    assert stored(assignment) == {
        position: (left, right, *answer)
        for (position, left, right), answer in zip(pairs, expected, strict=True)
    }


def test_a_reload_mid_way_shows_the_saved_choices_and_opens_the_first_pair_left(page, live_server, tmp_path):
    assignment = assignment_for(tmp_path, inputs=2)
    open_page(page, live_server, assignment)
    page.click("#choose-right")
    with page.expect_response("**/choices/"):
        strength_radio(page, 2).check()
    page.click("#next")
    page.click("#next")
    with page.expect_response("**/choices/"):
        page.click("#choose-tie")
    expect(page.locator("#progress")).to_have_text("2 of 6 pairs chosen")

    reload_when_sent(page)
    page.wait_for_selector("#unit-heading:not(:empty)")
    expect(page.locator("#progress")).to_have_text("2 of 6 pairs chosen")
    expect(page.locator(".unit-button.complete")).to_have_count(2)
    expect(page.locator("#unit-heading")).to_have_text("Pair 2 of 6")  # the first one still to do
    page.click(".unit-button >> nth=0")
    expect(pressed(page, "right")).to_have_attribute("aria-pressed", "true")
    expect(strength_radio(page, 2)).to_be_checked()
    expect(status(page)).to_have_text("Saved: B is better (clearly)")
    page.click(".unit-button >> nth=2")
    expect(pressed(page, "tie")).to_have_attribute("aria-pressed", "true")
    expect(strength_radio(page, 1)).to_be_disabled()
    expect(page.locator("#submit")).to_be_disabled()
    assert len(stored(assignment)) == 2


def test_a_reload_while_a_choice_is_on_its_way_is_held_until_the_worker_agrees(page, live_server, tmp_path):
    """The page asks before leaving unsaved work: the tests' pages say no to every dialog, so the
    reload does not happen. Once the save is answered, a reload shows the choice."""
    assignment = assignment_for(tmp_path)
    open_page(page, live_server, assignment)
    held = []
    # The save waits here until the test lets it go.
    page.route("**/choices/", lambda route: held.append(route))
    page.click("#choose-tie")
    page.wait_for_function(QUEUE_HOLDS_WORK)  # queued, not answered
    with pytest.raises(PlaywrightTimeout):
        page.reload(timeout=3_000)
    assert page.dialogs == [""]  # the browser's own "leave site?" prompt, refused
    assert stored(assignment) == {}

    while not held:  # the route handler runs while Playwright waits
        page.wait_for_timeout(50)
    held[0].continue_()
    page.unroute("**/choices/")
    reload_when_sent(page)
    page.wait_for_selector("#unit-heading:not(:empty)")
    expect(page.locator("#progress")).to_have_text("1 of 3 pairs chosen")
    assert [answer[2] for answer in stored(assignment).values()] == ["tie"]


def test_without_ties_there_is_no_tie_button_and_no_tie_key(page, live_server, tmp_path):
    assignment = assignment_for(tmp_path, config={"allow_ties": False})
    open_page(page, live_server, assignment)
    expect(page.locator("#choose-left")).to_be_visible()
    expect(page.locator("#choose-right")).to_be_visible()
    expect(page.locator("#choose-tie")).to_have_count(0)
    expect(page.locator("#strength")).to_have_count(0)
    expect(page.locator("#keys-help")).not_to_contain_text("about the same")
    page.keyboard.press("t")
    expect(page.locator("#message")).to_contain_text("there is no “about the same”")
    page.keyboard.press("ArrowDown")
    expect(status(page)).to_have_text("Not chosen yet")
    with page.expect_response("**/choices/"):
        page.keyboard.press("b")
    expect(status(page)).to_have_text("Saved: B is better")
    assert [choice for _, _, choice, _ in stored(assignment).values()] == ["right"]
