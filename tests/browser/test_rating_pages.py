"""A worker on the Likert and Best-Worst Scaling pages, in a real browser."""

import json

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.rating.models import BestWorstJudgment, Rating
from tests.browser.rating_pages import (
    ARTICLE,
    LIKERT_CONFIG,
    QUESTION,
    SUMMARIES,
    bws_order,
    documents,
    likert_order,
    open_rating_page,
    rate_url,
    rating_assignment,
)
from tests.browser.reloads import reload_when_sent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BWS_CONFIG = {"bws": {"tuple_size": 3, "value_scale": 3, "value_labels": {"1": "slightly", "3": "much"}}}
BWS_TEXTS = ["First output.", "Second  output,\nover two lines.", "Third output.", "Fourth output."]


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def point(page, score):
    """The label of a scale point (clicking it is clicking its radio)."""
    return page.locator(f'.answer .scale-point:has(input[value="{score}"])')


def radio(page, score):
    return page.locator(f'.answer input[type=radio][value="{score}"]')


def unit_status(page):
    return page.locator("#unit-status")


def heading(page):
    return page.locator("#unit-heading")


def submit_through_dialog(page):
    expect(page.locator("#submit")).to_be_enabled()
    page.click("#submit")
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.click("#submit-confirm")


def expect_completed(page, assignment):
    code = page.locator("#completion-code")
    expect(code).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(code).to_have_text(assignment.completion_code)
    expect(page.locator("#banner")).to_have_text("You have submitted this task. Thank you!")
    expect(page.locator("#submit-row")).to_be_hidden()


def tab_to(page, selector, limit=30):
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        if page.evaluate("(selector) => document.activeElement?.matches(selector) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def stored_ratings(assignment):
    return dict(Rating.objects.filter(assignment=assignment).values_list("document__external_id", "score"))


def stored_judgments(assignment):
    return {
        j.position: (j.best.external_id, j.worst.external_id, j.value)
        for j in BestWorstJudgment.objects.filter(assignment=assignment).select_related("best", "worst")
    }


def summary_of(external_id):
    return SUMMARIES[int(external_id[1:])]


# --- Likert -----------------------------------------------------------------------------------


def test_likert_by_mouse_saves_reloads_and_submits(page, live_server, tmp_path):
    assignment = rating_assignment(tmp_path)
    order = likert_order(assignment)
    open_rating_page(page, live_server, assignment)
    expect(page.locator("#question")).to_have_text(QUESTION)
    expect(page.locator("#progress")).to_have_text("0 of 3 rated")
    expect(page.locator("#submit")).to_be_disabled()
    expect(point(page, 1)).to_contain_text("very poor")
    expect(point(page, 5)).to_contain_text("excellent")
    expect(page.get_by_role("radiogroup", name=QUESTION)).to_be_visible()

    clicks = dict(zip(order, [4, 2, 5], strict=True))
    for number, external_id in enumerate(order, start=1):
        expect(heading(page)).to_have_text(f"Output {number} of 3")
        output = page.locator(".text-panel.output .panel-text")
        source = page.locator(".text-panel.source .panel-text")
        # Exactly as stored (double space, newlines), the source on the left of the output.
        assert output.text_content() == summary_of(external_id)
        assert source.text_content() == ARTICLE
        source_box, output_box = source.bounding_box(), output.bounding_box()
        assert source_box["x"] + source_box["width"] <= output_box["x"]
        assert abs(source_box["y"] - output_box["y"]) < 5
        with page.expect_response("**/ratings/"):
            point(page, clicks[external_id]).click()
        expect(radio(page, clicks[external_id])).to_be_checked()
        expect(unit_status(page)).to_have_text(f"Saved: {clicks[external_id]}")
        expect(page.locator("#progress")).to_have_text(f"{number} of 3 rated")
        if number < 3:
            page.click("#next")
    # Changing one's mind on the first output: the new score replaces the old.
    page.click(".unit-button >> nth=0")
    with page.expect_response("**/ratings/"):
        point(page, 3).click()
    clicks[order[0]] = 3
    expect(unit_status(page)).to_have_text("Saved: 3")
    assert stored_ratings(assignment) == clicks
    page.screenshot(path="/tmp/likert.png", full_page=True)

    reload_when_sent(page)
    page.wait_for_selector("#unit-heading:not(:empty)")
    expect(page.locator("#progress")).to_have_text("3 of 3 rated")
    expect(page.locator(".unit-button.complete")).to_have_count(3)
    for number, external_id in enumerate(order):
        page.click(f".unit-button >> nth={number}")
        expect(radio(page, clicks[external_id])).to_be_checked()

    submit_through_dialog(page)
    expect_completed(page, assignment)
    expect(radio(page, clicks[order[-1]])).to_be_disabled()
    assert stored_ratings(assignment) == clicks


def test_likert_by_keyboard_only(page, live_server, tmp_path):
    assignment = rating_assignment(tmp_path)
    order = likert_order(assignment)
    open_rating_page(page, live_server, assignment)

    page.keyboard.press("4")
    expect(unit_status(page)).to_have_text("Saved: 4")
    page.keyboard.press("9")  # not on the scale: refused, nothing saved
    expect(page.locator("#message")).to_have_text("Choose a score from 1 to 5.")
    expect(radio(page, 4)).to_be_checked()
    page.keyboard.press("n")
    expect(heading(page)).to_have_text("Output 2 of 3")
    expect(heading(page)).to_be_focused()
    page.keyboard.press("2")
    expect(unit_status(page)).to_have_text("Saved: 2")
    page.keyboard.press("ArrowRight")
    expect(heading(page)).to_have_text("Output 3 of 3")
    # Tab into the scale: Space chooses the focused point, the arrows move and choose natively.
    tab_to(page, ".answer input[type=radio]")
    page.keyboard.press("Space")
    expect(unit_status(page)).to_have_text("Saved: 1")
    page.keyboard.press("ArrowRight")
    expect(radio(page, 2)).to_be_checked()
    expect(unit_status(page)).to_have_text("Saved: 2")
    page.keyboard.press("p")  # letters still move while the focus is in the scale
    expect(heading(page)).to_have_text("Output 2 of 3")
    page.keyboard.press("5")
    expect(unit_status(page)).to_have_text("Saved: 5")
    page.keyboard.press("ArrowLeft")
    expect(heading(page)).to_have_text("Output 1 of 3")
    expect(radio(page, 4)).to_be_checked()
    expect(page.locator("#progress")).to_have_text("3 of 3 rated")

    tab_to(page, "#submit")
    page.keyboard.press("Enter")
    expect(page.locator("#submit-dialog")).to_be_visible()
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect_completed(page, assignment)
    assert stored_ratings(assignment) == dict(zip(order, [4, 5, 2], strict=True))


def test_likert_submit_is_refused_while_an_output_is_missing(page, live_server, tmp_path):
    assignment = rating_assignment(tmp_path)
    order = likert_order(assignment)
    open_rating_page(page, live_server, assignment)
    page.keyboard.press("3")
    page.keyboard.press("n")
    page.keyboard.press("3")
    expect(page.locator("#progress")).to_have_text("2 of 3 rated")
    expect(page.locator("#submit")).to_be_disabled()
    page.keyboard.press("n")
    page.keyboard.press("n")  # the last one, unrated: n does not open Submit
    expect(page.locator("#submit-dialog")).to_be_hidden()
    expect(page.locator("#message")).to_have_text("1 still to do before you can submit.")

    page.keyboard.press("3")
    expect(unit_status(page)).to_have_text("Saved: 3")
    # The server lost a rating the page believes saved (say, another tab's doing):
    # it refuses the submit, the page says why, shows what is missing and stays editable.
    Rating.objects.filter(assignment=assignment, document__external_id=order[1]).delete()
    submit_through_dialog(page)
    expect(page.locator("#message")).to_have_text(
        "Not submitted: rate every output before submitting (1 left)"
    )
    expect(page.locator("#progress")).to_have_text("2 of 3 rated")
    expect(page.locator("#submit")).to_be_disabled()
    expect(page.locator("#completion")).to_be_hidden()
    assignment.refresh_from_db()
    assert assignment.status != Assignment.Status.SUBMITTED and not assignment.completion_code

    page.click(".unit-button >> nth=1")
    expect(unit_status(page)).to_have_text("Not rated yet")
    point(page, 1).click()
    expect(unit_status(page)).to_have_text("Saved: 1")
    submit_through_dialog(page)
    expect_completed(page, assignment)
    assert stored_ratings(assignment) == {order[0]: 3, order[1]: 1, order[2]: 3}


def test_likert_retries_a_network_error_and_reverts_a_refused_score(page, live_server, tmp_path):
    assignment = rating_assignment(tmp_path)
    order = likert_order(assignment)
    failures = {"network": 1, "refuse": 0}

    def flaky(route):
        if failures["network"]:
            failures["network"] -= 1
            return route.abort("internetdisconnected")
        if failures["refuse"]:
            failures["refuse"] -= 1
            return route.fulfill(status=400, content_type="application/json",
                                 body=json.dumps({"error": "that score is not allowed"}))  # fmt: skip
        return route.continue_()

    page.route("**/ratings/", flaky)
    open_rating_page(page, live_server, assignment)
    point(page, 2).click()
    expect(page.locator("#save-warning")).to_contain_text("Not saved yet – retrying")
    expect(unit_status(page)).to_have_text("Saving…")
    expect(unit_status(page)).to_have_text("Saved: 2")  # the retry after a second went through
    expect(page.locator("#save-warning")).to_be_hidden()

    failures["refuse"] = 1
    point(page, 5).click()
    expect(page.locator("#message")).to_have_text("Not saved: that score is not allowed")
    expect(radio(page, 2)).to_be_checked()  # back to what the server has
    expect(unit_status(page)).to_have_text("Saved: 2")
    assert stored_ratings(assignment) == {order[0]: 2}


def test_closed_likert_pages_are_read_only(page, live_server, tmp_path):
    from datetime import timedelta

    from django.utils import timezone

    assignment = rating_assignment(tmp_path, available_from=timezone.now() + timedelta(days=3))
    open_rating_page(page, live_server, assignment)
    expect(page.locator("#banner")).to_contain_text("This second round opens on")
    expect(radio(page, 1)).to_be_disabled()
    expect(page.locator("#submit-row")).to_be_hidden()
    page.keyboard.press("3")
    expect(radio(page, 3)).not_to_be_checked()

    Assignment.objects.filter(pk=assignment.pk).update(available_from=None, status=Assignment.Status.RELEASED)
    open_rating_page(page, live_server, assignment)
    expect(page.locator("#banner")).to_contain_text("released after a long time without activity")
    expect(radio(page, 1)).to_be_disabled()

    Assignment.objects.filter(pk=assignment.pk).update(
        status=Assignment.Status.SUBMITTED, completion_code="CODE-42"
    )
    open_rating_page(page, live_server, assignment)
    expect(page.locator("#completion-code")).to_have_text("CODE-42")
    expect(radio(page, 1)).to_be_disabled()
    page.keyboard.press("n")  # reading back is still possible
    expect(heading(page)).to_have_text("Output 2 of 3")


# --- BWS ---------------------------------------------------------------------------------------


def bws_assignment(tmp_path):
    return rating_assignment(
        tmp_path, protocol="bws", config=BWS_CONFIG, docs=documents(4, sources=[ARTICLE] * 4, texts=BWS_TEXTS)
    )


def choice(page, role, number):
    return page.get_by_role("button", name=f"{role}: output {number}", exact=True)


def card(page, number):
    return page.locator(".output-card").nth(number - 1)


def test_bws_by_mouse(page, live_server, tmp_path):
    assignment = bws_assignment(tmp_path)
    order = bws_order(assignment)
    assert len(order) == 4  # 4 outputs in tuples of 3, each output in at least 2 tuples
    open_rating_page(page, live_server, assignment)
    expect(page.locator("#progress")).to_have_text("0 of 4 tuples judged")
    expect(page.locator(".text-panel.source .panel-text")).to_have_text(ARTICLE)
    expect(page.locator("#value-question + .scale")).to_contain_text("slightly")
    expect(page.locator("#value-question")).to_contain_text("(required)")

    expected = {}
    for number, (position, shown) in enumerate(order, start=1):
        expect(heading(page)).to_have_text(f"Tuple {number} of 4")
        for offset, external_id in enumerate(shown):
            text = card(page, offset + 1).locator(".panel-text").text_content()
            assert text == BWS_TEXTS[int(external_id[1:])]
        choice(page, "Best", 1).click()
        expect(unit_status(page)).to_have_text("Now choose the worst output")
        # The study asks how large the difference is, and the answer is required (it used to be
        # optional, and best + worst were saved at once): the tuple is neither saved nor judged yet.
        choice(page, "Worst", 3).click()
        expect(unit_status(page)).to_have_text("Now choose how large the difference is")
        expect(page.locator("#message")).to_contain_text("Now choose how large the difference is.")
        expect(page.locator("#progress")).to_have_text(f"{number - 1} of 4 tuples judged")
        # The worst can't also be the best: choosing it clears the worst, and the page says so.
        choice(page, "Best", 3).click()
        expect(choice(page, "Best", 3)).to_have_attribute("aria-pressed", "true")
        expect(choice(page, "Worst", 3)).to_have_attribute("aria-pressed", "false")
        expect(choice(page, "Best", 1)).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#message")).to_contain_text("no longer the worst")
        expect(unit_status(page)).to_have_text("Now choose the worst output")
        choice(page, "Worst", 2).click()
        if number == 4:
            # Without the value the block cannot be submitted: n on the last tuple says so.
            expect(page.locator("#submit")).to_be_disabled()
            page.keyboard.press("n")
            expect(page.locator("#message")).to_have_text("1 still to do before you can submit.")
            expect(page.locator("#submit-dialog")).to_be_hidden()
        value = (number % 3) + 1
        with page.expect_response("**/judgments/"):
            point(page, value).click()
        expect(unit_status(page)).to_have_text("Saved")
        expect(card(page, 3)).to_have_attribute("data-chosen", "best")
        expected[position] = (shown[2], shown[1], value)
        if number == 2:
            page.screenshot(path="/tmp/bws.png", full_page=True)
        if number < 4:
            page.click("#next")

    expect(page.locator("#progress")).to_have_text("4 of 4 tuples judged")
    assert stored_judgments(assignment) == expected
    submit_through_dialog(page)
    expect_completed(page, assignment)
    expect(choice(page, "Best", 1)).to_be_disabled()
    assert stored_judgments(assignment) == expected


def test_bws_by_keyboard_only(page, live_server, tmp_path):
    assignment = bws_assignment(tmp_path)
    order = bws_order(assignment)
    open_rating_page(page, live_server, assignment)

    expected = {}
    for number, (position, shown) in enumerate(order, start=1):
        expect(heading(page)).to_have_text(f"Tuple {number} of 4")
        if number == 1:
            # Tab to the buttons, Enter presses them.
            tab_to(page, '[aria-label="Best: output 2"]')
            page.keyboard.press("Enter")
            tab_to(page, '[aria-label="Worst: output 1"]')
            page.keyboard.press("Enter")
            expect(unit_status(page)).to_have_text("Now choose how large the difference is")
            page.keyboard.press("v")
            page.keyboard.press("3")
            expected[position] = (shown[1], shown[0], 3)
        else:
            # b then a number that is no output: refused with a message.
            page.keyboard.press("b")
            page.keyboard.press("7")
            expect(page.locator("#message")).to_have_text("There is no output 7 in this tuple.")
            page.keyboard.press("b")
            expect(page.locator("#message")).to_have_text("Best: press the number of the output.")
            page.keyboard.press("3")
            page.keyboard.press("w")
            page.keyboard.press("1")
            page.keyboard.press("v")
            page.keyboard.press("2")
            expected[position] = (shown[2], shown[0], 2)
        expect(unit_status(page)).to_have_text("Saved")
        page.keyboard.press("n")

    expect(page.locator("#submit-dialog")).to_be_visible()  # n on the last tuple opens Submit
    page.keyboard.press("Escape")
    expect(page.locator("#submit-dialog")).to_be_hidden()
    tab_to(page, "#submit")
    page.keyboard.press("Enter")
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect_completed(page, assignment)
    assert stored_judgments(assignment) == expected


# --- escaping ------------------------------------------------------------------------------------

HOSTILE = "<script>alert(1)</script> and <img src=x onerror=alert(2)>"


def test_study_text_is_shown_literally_never_run(page, live_server, tmp_path):
    config = {"scale": {"min": 1, "max": 5, "labels": {"1": "<b>bad</b>", "5": "<img src=x onerror=alert(3)>"}},
              "question": f"Rate {HOSTILE}"}  # fmt: skip
    docs = documents(
        3, sources=[f"Article {HOSTILE}"] * 3, texts=[f"Summary {HOSTILE}", "Plain.", "Also plain."]
    )
    assignment = rating_assignment(tmp_path, config=config, docs=docs)
    hostile = likert_order(assignment).index("d0")
    page.goto(rate_url(live_server, assignment))
    page.wait_for_selector("#unit-heading:not(:empty)")
    page.click(f".unit-button >> nth={hostile}")
    expect(page.locator("#question")).to_have_text(f"Rate {HOSTILE}")
    assert page.locator(".text-panel.output .panel-text").text_content() == f"Summary {HOSTILE}"
    assert page.locator(".text-panel.source .panel-text").text_content() == f"Article {HOSTILE}"
    expect(point(page, 1)).to_contain_text("<b>bad</b>")
    expect(point(page, 5)).to_contain_text("<img src=x onerror=alert(3)>")
    page.keyboard.press("2")
    expect(unit_status(page)).to_have_text("Saved: 2")
    assert page.locator("img").count() == 0
    assert page.locator("main script, main b").count() == 0
    assert page.dialogs == []

    bws = rating_assignment(tmp_path / "bws", protocol="bws", config={"bws": {"tuple_size": 3}}, worker="w2",
                            docs=[{**d, "id": f"b{i}"} for i, d in enumerate(docs)])  # fmt: skip
    page.goto(rate_url(live_server, bws))
    page.wait_for_selector("#unit-heading:not(:empty)")
    expect(page.locator(".output-card").filter(has_text="Summary <script>")).to_have_count(1)
    assert page.locator("img").count() == 0
    assert page.dialogs == []


def test_likert_scale_from_zero_labels_at_every_point_and_no_source(page, live_server, tmp_path):
    labels = {str(n): f"label {n}" for n in range(0, 4)}
    config = {**LIKERT_CONFIG, "scale": {"min": 0, "max": 3, "labels": labels}}
    assignment = rating_assignment(tmp_path, config=config, docs=documents(3, sources=[""] * 3))
    open_rating_page(page, live_server, assignment)
    expect(page.locator(".text-panel.output")).to_be_visible()
    expect(page.locator(".text-panel.source")).to_have_count(0)  # no source: the output alone
    expect(page.locator(".answer .scale-point")).to_have_count(4)
    for n in range(4):
        expect(point(page, n)).to_contain_text(f"label {n}")
    page.keyboard.press("0")
    expect(unit_status(page)).to_have_text("Saved: 0")
