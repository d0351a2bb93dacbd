"""A worker on the translation page (MQM, ESA, DA/SQM), in a real browser with the real mouse and
keyboard: errors marked in the translation, in the source and with [missing], scores by keys and
by slider, a reload that restores everything, offsets in code points in right-to-left and CJK
text, and the page's layout and accessibility at 1280 and 390 px."""

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from annotations.services.task import assignment_submit
from protocols.translation.models import SegmentScore, TranslationError
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.mouse import press_and_hold
from tests.browser.reloads import reload_when_sent, wait_until_sent
from tests.browser.test_csp_pages import RECORD_VIOLATIONS
from tests.browser.translation_page import (
    category,
    document_assignment,
    error_rows,
    next_segment,
    open_page,
    progress,
    row,
    select_words,
    severity,
    submit_by_keyboard,
    text_cell,
    translation_assignment,
    wait_saved,
)
from tests.factories import CategoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def stored_errors(assignment):
    return [
        (
            e.segment.index,
            e.side,
            e.start,
            e.end,
            e.text,
            e.category.key if e.category_id else None,
            e.severity,
        )
        for e in TranslationError.objects.filter(assignment=assignment).select_related("segment", "category")
    ]


def stored_scores(assignment):
    return dict(
        SegmentScore.objects.filter(assignment=assignment)
        .values_list("segment__index", "score")
        .order_by("segment__index")
    )


def expect_completed(page, assignment):
    code = page.locator("#completion-code")
    expect(code).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(code).to_have_text(assignment.completion_code)
    expect(page.locator("#banner")).to_have_text("You have submitted this task. Thank you!")
    expect(page.locator("#tools")).to_be_hidden()
    expect(page.locator("button.remove")).to_have_count(0)


# --- MQM -------------------------------------------------------------------------------------


def test_an_mqm_document_marked_by_mouse_and_keys_is_restored_after_a_reload_and_submitted(page, live_server):
    assignment = translation_assignment("mqm", config={"show_reference": True})
    open_page(page, live_server, assignment)
    expect(progress(page)).to_have_text("Segment 1 of 3")
    expect(row(page, 0)).to_have_class("seg-row current")
    expect(row(page, 1)).to_have_class("seg-row unreached")
    expect(text_cell(page, 0, "source")).to_have_text("Der Hund bellt.")
    expect(row(page, 0).locator(".ref-text")).to_have_text("The dog barks.")
    # The source beside the translation on a wide screen.
    source_box, target_box = (
        text_cell(page, 0, "source").bounding_box(),
        text_cell(page, 0, "target").bounding_box(),
    )
    assert (
        source_box["x"] + source_box["width"] <= target_box["x"]
        and abs(source_box["y"] - target_box["y"]) < 5
    )

    # A span of the translation with the mouse; its category and severity by keyboard.
    start, end = select_words(page, 0, "dog")
    expect(page.locator("#pending-text")).to_contain_text("dog")
    page.keyboard.press("m")
    expect(category(page, "Mistranslation")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#step-prompt")).to_contain_text("Now choose its severity")
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press("3")  # Major: the error is complete and saved
    wait_saved(page, 1, segment=0)
    expect(error_rows(page, 0).first).to_contain_text("Major")
    expect(error_rows(page, 0).first).to_contain_text("Accuracy/Mistranslation")
    expect(row(page, 0).locator(".piece.hl.sev-major")).to_have_text("dog")
    assert (start, end) == (4, 7)

    # An omission shown where the source says it: Omission comes preselected, the severity by click.
    select_words(page, 0, "Hund", side="source")
    expect(page.locator("#pending-text")).to_contain_text("in the source")
    expect(category(page, "Omission")).to_have_attribute("aria-pressed", "true")
    severity(page, "Minor").click()
    wait_saved(page, 2, segment=0)
    expect(text_cell(page, 0, "source").locator(".piece.hl.sev-minor")).to_have_text("Hund")

    # Segment 2: the [missing] marker by keyboard, a second error removed again.
    next_segment(page)
    expect(progress(page)).to_have_text("Segment 2 of 3")
    expect(row(page, 1)).to_have_class("seg-row current")
    expect(text_cell(page, 1)).to_be_focused()
    page.keyboard.press("0")
    expect(page.locator("#pending-text")).to_contain_text("[missing]")
    page.keyboard.press("2")
    wait_saved(page, 1, segment=1)
    expect(row(page, 1).locator(".missing-chip")).to_have_text("[missing]")
    select_words(page, 1, "sofa")
    page.keyboard.press("p")  # Punctuation, not "previous": the category's letter comes first
    page.keyboard.press("1")
    wait_saved(page, 2, segment=1)
    remove = error_rows(page, 1).filter(has_text="Punctuation").get_by_role("button", name="Remove")
    remove.focus()
    with page.expect_response(lambda response: response.request.method == "DELETE"):
        page.keyboard.press("Enter")
    wait_saved(page, 1, segment=1)

    # Segment 3: a whole-segment category in one action.
    page.locator("#next").click()
    expect(progress(page)).to_have_text("Segment 3 of 3")
    with page.expect_response("**/translation/errors/"):
        category(page, "NonTranslation").click()
    wait_saved(page, 1, segment=2)
    expect(error_rows(page, 2).first).to_contain_text("whole segment")
    expect(row(page, 2).locator(".piece.hl.sev-major")).to_have_text("It is raining.")

    expected = [
        (0, "source", 4, 8, "Hund", "Omission", "Minor"),
        (0, "target", 4, 7, "dog", "Mistranslation", "Major"),
        (1, "missing", 0, 0, "", "Omission", "Minor"),
        (2, "target", 0, 14, "It is raining.", "NonTranslation", "Major"),
    ]
    assert sorted(stored_errors(assignment)) == expected

    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(progress(page)).to_have_text("Segment 3 of 3")
    expect(row(page, 2)).to_have_class("seg-row current")
    expect(error_rows(page)).to_have_count(4)
    expect(row(page, 0).locator(".piece.hl.sev-major")).to_have_text("dog")
    expect(text_cell(page, 0, "source").locator(".piece.hl.sev-minor")).to_have_text("Hund")
    expect(row(page, 1).locator(".missing-chip")).to_have_count(1)
    expect(row(page, 2).locator(".piece.hl")).to_have_text("It is raining.")
    expect(page.locator("#submit")).to_be_visible()

    text_cell(page, 2).focus()
    submit_by_keyboard(page)
    expect_completed(page, assignment)
    assert sorted(stored_errors(assignment)) == expected


def test_mqm_keys_choose_words_and_the_cap_holds(page, live_server):
    assignment = translation_assignment("mqm", config={"max_errors_per_segment": 2, "missing_marker": False})
    open_page(page, live_server, assignment)
    expect(page.locator("#missing")).to_have_count(0)
    page.keyboard.press("Tab")  # skip links and the header: Tab until the translation has the focus
    for _ in range(10):
        if page.evaluate("document.activeElement.matches('.seg-text[data-side=target]')"):
            break
        page.keyboard.press("Tab")
    expect(text_cell(page, 0)).to_be_focused()
    page.keyboard.press("ArrowRight")  # The
    page.keyboard.press("ArrowRight")  # dog
    expect(page.locator("#pending-text")).to_contain_text("dog")
    page.keyboard.press("Shift+ArrowRight")  # dog barks
    expect(row(page, 0).locator(".piece.hl-pending")).to_have_text("dog barks")
    page.keyboard.press("3")  # the severity first, then the category
    expect(page.locator("#step-prompt")).to_contain_text("its category")
    page.keyboard.press("m")
    wait_saved(page, 1)
    expect(text_cell(page, 0)).to_be_focused()
    page.keyboard.press("ArrowRight")  # on from the saved span: the full stop
    expect(page.locator("#pending-text")).to_contain_text(".")
    page.keyboard.press("Escape")
    expect(page.locator("#pending")).to_be_hidden()
    page.keyboard.press("ArrowLeft")  # back before the saved span's end: barks
    expect(page.locator("#pending-text")).to_contain_text("barks")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#pending-text")).to_contain_text(".")
    page.keyboard.press("p")
    page.keyboard.press("2")
    wait_saved(page, 2)

    # Two errors: the most this study takes for one segment.
    expect(page.locator("#step-prompt")).to_contain_text("the most this study allows")
    expect(severity(page, "Major")).to_be_disabled()
    expect(category(page, "Mistranslation")).to_be_disabled()
    select_words(page, 0, "The")
    expect(page.locator("#message")).to_contain_text("At most 2 errors per segment")
    assert sorted(stored_errors(assignment)) == [
        (0, "target", 4, 13, "dog barks", "Mistranslation", "Major"),
        (0, "target", 13, 14, ".", "Punctuation", "Minor"),
    ]
    error_rows(page).first.get_by_role("button", name="Remove").click()
    expect(severity(page, "Major")).to_be_enabled()


def test_a_failed_save_warns_and_is_retried(page, live_server):
    assignment = translation_assignment("mqm")
    aborted = []

    def fail_first_post(route):
        if route.request.method == "POST" and not aborted:
            aborted.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/translation/errors/", fail_first_post)
    open_page(page, live_server, assignment)
    select_words(page, 0, "barks")
    page.keyboard.press("m")
    page.keyboard.press("2")
    warning = page.locator("#save-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Not saved yet – retrying…")
    expect(error_rows(page).first).to_contain_text("saving…")
    wait_saved(page, 1)
    expect(warning).to_be_hidden()
    assert len(aborted) == 1
    assert stored_errors(assignment) == [(0, "target", 8, 13, "barks", "Mistranslation", "Minor")]


def test_a_remove_held_while_another_error_is_answered_still_counts(page, live_server):
    """The answer to an error's save re-draws the segment's list; the Remove button the worker is
    pressing at that moment keeps its node, so the release still makes a click."""
    assignment = translation_assignment("mqm")
    open_page(page, live_server, assignment)
    select_words(page, 0, "dog")
    page.keyboard.press("m")
    page.keyboard.press("3")
    wait_saved(page, 1)
    held = []
    page.route("**/translation/errors/", lambda route: route.continue_() if held else held.append(route))
    select_words(page, 0, "barks")
    page.keyboard.press("m")
    page.keyboard.press("2")
    expect(error_rows(page).filter(has_text="barks")).to_contain_text("saving…")
    press_and_hold(page, error_rows(page).filter(has_text="dog").get_by_role("button", name="Remove"))
    held[0].continue_()
    expect(page.locator('.error-list > li[data-saved="false"]')).to_have_count(0)
    page.mouse.up()
    wait_saved(page, 1)
    expect(error_rows(page).first).to_contain_text("barks")
    wait_until_sent(page)  # the page shows the removal at once; the server has it once the queue is empty
    assert stored_errors(assignment) == [(0, "target", 8, 13, "barks", "Mistranslation", "Minor")]


def test_a_refused_save_shows_the_reason_and_is_undone(page, live_server):
    assignment = translation_assignment("mqm")
    page.route(
        "**/translation/errors/",
        lambda route: route.fulfill(status=400, json={"error": "target span: offsets do not fit"}),
    )
    open_page(page, live_server, assignment)
    select_words(page, 0, "dog")
    page.keyboard.press("m")
    page.keyboard.press("3")
    expect(page.locator("#message")).to_have_text("Not saved: target span: offsets do not fit")
    expect(error_rows(page)).to_have_count(0)
    expect(page.locator(".piece.hl")).to_have_count(0)
    expect(page.locator("#save-warning")).to_be_hidden()


def test_the_page_keeps_to_the_content_security_policy(page, live_server):
    """No inline script or style from the page's own markup: the browser reports no violation
    while the page draws, marks an error and scores."""
    page.add_init_script(RECORD_VIOLATIONS)
    console = []
    page.on(
        "console",
        lambda message: console.append(message.text) if "Content Security Policy" in message.text else None,
    )
    assignment = translation_assignment("esa", taxonomy=None, config={"show_reference": True})
    open_page(page, live_server, assignment)
    select_words(page, 0, "dog")
    page.keyboard.press("2")
    wait_saved(page, 1)
    page.keyboard.press("s")
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("End")
    expect(page.locator("#score-warning")).to_be_visible()
    assert page.evaluate("window.__cspViolations") + console == []


# --- ESA -------------------------------------------------------------------------------------


def test_an_esa_document_minor_and_major_spans_scores_by_keys_and_slider_and_the_warning(page, live_server):
    assignment = translation_assignment("esa", taxonomy=None)
    open_page(page, live_server, assignment)
    expect(page.locator("#category-buttons")).to_have_count(0)
    expect(progress(page)).to_have_text("Segment 1 of 3 · 0 of 3 scored")
    expect(page.locator("#score-status")).to_have_text("Not scored yet.")
    expect(page.locator("#scale-labels")).to_contain_text("No meaning preserved")

    select_words(page, 0, "dog")
    page.keyboard.press("1")  # Minor: ESA asks no category
    wait_saved(page, 1)
    expect(row(page, 0).locator(".piece.hl.sev-minor")).to_have_text("dog")
    text_cell(page, 0).focus()
    page.keyboard.press("ArrowRight")  # The, dog, barks: the arrows step from word to word
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#pending-text")).to_contain_text("barks")
    page.keyboard.press("2")  # Major
    wait_saved(page, 2)
    expect(row(page, 0).locator(".piece.hl.sev-major")).to_have_text("barks")

    # Going on before a score: refused, and the score takes the focus.
    page.keyboard.press("n")
    expect(page.locator("#message")).to_have_text("Score this segment before going on.")
    expect(page.locator("#score-range")).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("End")  # 100, with a Major error: the server warns
    expect(page.locator("#score-warning")).to_contain_text("A score above 66 with a Major error marked")
    expect(page.locator("#score-status")).to_have_text("Saved: 100.")
    # The warning follows the errors: with the Major one removed the score fits, with it back it does not.
    with page.expect_response(
        lambda r: r.request.method == "GET" and r.url.endswith(f"/api/task/{assignment.token}/")
    ):
        error_rows(page, 0).filter(has_text="barks").get_by_role("button", name="Remove").click()
    expect(page.locator("#score-warning")).to_be_hidden()
    select_words(page, 0, "barks")
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press("2")
    expect(page.locator("#score-warning")).to_contain_text("A score above 66 with a Major error marked")
    page.locator("#score-number").fill("60")
    with page.expect_response("**/translation/scores/"):
        page.locator("#score-number").press("Enter")
    expect(page.locator("#score-status")).to_have_text("Saved: 60.")
    expect(page.locator("#score-warning")).to_be_hidden()
    assert stored_scores(assignment) == {0: 60}

    page.keyboard.press("Escape")  # out of the number field
    next_segment(page)
    expect(progress(page)).to_have_text("Segment 2 of 3 · 1 of 3 scored")
    # By the slider, with the mouse: far left is a low score with no error marked.
    slider = page.locator("#score-range").bounding_box()
    with page.expect_response("**/translation/scores/"):
        page.mouse.click(slider["x"] + 3, slider["y"] + slider["height"] / 2)
    expect(page.locator("#score-warning")).to_contain_text("A score below 33 with no error marked")
    assert stored_scores(assignment)[1] < 10
    with page.expect_response("**/translation/scores/"):
        page.mouse.click(slider["x"] + slider["width"] * 0.8, slider["y"] + slider["height"] / 2)
    expect(page.locator("#score-warning")).to_be_hidden()
    assert 70 <= stored_scores(assignment)[1] <= 90

    page.locator("#next").click()
    expect(progress(page)).to_have_text("Segment 3 of 3 · 2 of 3 scored")
    page.keyboard.press("s")
    expect(page.locator("#score-range")).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("Home")
    expect(page.locator("#score-warning")).to_contain_text("no error marked")
    page.locator("#submit").click()
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.click("#submit-confirm")
    expect_completed(page, assignment)
    assert sorted(stored_errors(assignment)) == [
        (0, "target", 4, 7, "dog", None, "Minor"),
        (0, "target", 8, 13, "barks", None, "Major"),
    ]
    scores = stored_scores(assignment)
    assert scores[0] == 60 and scores[2] == 0 and len(scores) == 3


# --- DA / SQM --------------------------------------------------------------------------------


def test_an_sqm_document_scored_with_digit_keys_and_resumed(page, live_server):
    labels = {"0": "Nonsense", "3": "Half the meaning", "6": "Perfect"}
    assignment = translation_assignment(
        "da", taxonomy=None, config={"scale": {"min": 0, "max": 6, "labels": labels}}
    )
    open_page(page, live_server, assignment)
    expect(page.locator("#error-panel")).to_have_count(0)
    expect(page.locator("#scale-labels li")).to_have_text(["0 Nonsense", "3 Half the meaning", "6 Perfect"])
    page.keyboard.press("n")
    expect(page.locator("#message")).to_have_text("Score this segment before going on.")
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("4")
    expect(page.locator("#score-status")).to_have_text("Saved: 4.")
    expect(page.locator("#score-range")).to_have_value("4")
    page.keyboard.press("9")  # off the scale: nothing
    next_segment(page, "Enter")
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("6")
    expect(row(page, 0).locator(".seg-status")).to_have_text("score 4")

    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(progress(page)).to_have_text("Segment 2 of 3 · 2 of 3 scored")
    expect(page.locator("#score-range")).to_have_value("6")
    page.keyboard.press("p")
    expect(progress(page)).to_have_text("Segment 1 of 3 · 2 of 3 scored")
    expect(page.locator("#score-number")).to_have_value("4")
    next_segment(page)
    expect(page.locator("#score-range")).to_be_focused()
    next_segment(page, "Enter")
    expect(progress(page)).to_have_text("Segment 3 of 3 · 2 of 3 scored")
    expect(page.locator("#score-range")).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("ArrowLeft")  # from the middle of 0-6
    expect(page.locator("#score-status")).to_have_text("Saved: 2.")
    page.keyboard.press("Escape")
    submit_by_keyboard(page)
    expect_completed(page, assignment)
    assert stored_scores(assignment) == {0: 4, 1: 6, 2: 2}


# --- right to left, CJK and emoji: offsets in code points ---------------------------------------

ARABIC = "😀 𠀀 مرحبا بالعالم الجميل."
CHINESE = "𠀀我爱你，美丽的世界。"


def test_offsets_are_code_points_in_an_arabic_translation_of_a_chinese_source(page, live_server):
    assignment = document_assignment(
        "esa", [CHINESE, "第二句。"], [ARABIC, "جملة ثانية."], source_lang="zh", target_lang="ar"
    )
    open_page(page, live_server, assignment)
    target, source = text_cell(page, 0), text_cell(page, 0, "source")
    expect(target).to_have_attribute("dir", "rtl")
    expect(target).to_have_attribute("lang", "ar")
    expect(source).to_have_attribute("lang", "zh")
    assert target.evaluate("node => getComputedStyle(node).direction") == "rtl"

    # By mouse, after an emoji and a CJK extension B character (two UTF-16 units each).
    start, end = select_words(page, 0, "بالعالم")
    expect(page.locator("#pending-text")).to_contain_text("بالعالم")
    page.keyboard.press("2")
    wait_saved(page, 1)
    assert (start, end) == (10, 17)

    # By keys: in a right-to-left text ← goes on in reading order (the emoji, 𠀀, then مرحبا).
    target.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(page.locator("#pending-text")).to_contain_text("مرحبا")
    page.keyboard.press("1")
    wait_saved(page, 2)

    # In the Chinese source, after 𠀀: each character is a word.
    source_start, source_end = select_words(page, 0, "世界", side="source")
    page.keyboard.press("1")
    wait_saved(page, 3)
    source.focus()
    page.keyboard.press("ArrowRight")  # 𠀀
    page.keyboard.press("ArrowRight")  # 我
    page.keyboard.press("Shift+ArrowRight")  # 我爱
    expect(page.locator("#pending-text")).to_contain_text("我爱")
    page.keyboard.press("2")
    wait_saved(page, 4)

    assert (source_start, source_end) == (8, 10)
    assert sorted(stored_errors(assignment)) == [
        (0, "source", 1, 3, "我爱", None, "Major"),
        (0, "source", 8, 10, "世界", None, "Minor"),
        (0, "target", 4, 9, "مرحبا", None, "Minor"),
        (0, "target", 10, 17, "بالعالم", None, "Major"),
    ]
    for segment_start, segment_end, text in [(10, 17, "بالعالم"), (4, 9, "مرحبا")]:
        assert list(ARABIC)[segment_start:segment_end] == list(text)
    # Drawn over the right words after a reload, too.
    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(target.locator(".piece.hl")).to_have_text(["مرحبا", "بالعالم"])
    expect(source.locator(".piece.hl")).to_have_text(["我爱", "世界"])


# --- layout and accessibility ------------------------------------------------------------------

LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis-and-antidisestablishmentarianism"


def mqm_mid_document(page, live_server):
    """Segment 2 of 3 in an MQM study with a reference: errors on segment 1 (one over a word longer
    than a phone's line), a span being marked, the category described."""
    assignment = document_assignment(
        "mqm",
        ["Der Hund bellt laut.", "Die Katze schläft.", "Es regnet."],
        [f"The dog {LONG_WORD} barks.", "The cat sleeps.", "It rains."],
        references=["The dog barks loudly.", "The cat is asleep.", "It is raining."],
        config={"show_reference": True},
        source_lang="de",
        target_lang="en",
    )
    study = assignment.study
    CategoryFactory(
        taxonomy=study.taxonomy,
        key="Mistranslation",
        label="Accuracy/Mistranslation",
        group="accuracy",
        shortcut="m",
    )
    CategoryFactory(
        taxonomy=study.taxonomy, key="Omission", label="Accuracy/Omission", group="accuracy", shortcut="o"
    )
    CategoryFactory(
        taxonomy=study.taxonomy,
        key="NonTranslation",
        label="Non-translation",
        group="other",
        whole_sentence=True,
    )
    segment = assignment.document.segments.get(index=0)
    start = segment.text.index(LONG_WORD)
    TranslationError.objects.create(assignment=assignment, segment=segment, side="target", start=start, end=start + len(LONG_WORD),
                                    text=LONG_WORD, severity="Major", client_id="a", comment=f"See {LONG_WORD}",
                                    category=study.taxonomy.categories.get(key="Mistranslation"))  # fmt: skip
    TranslationError.objects.create(assignment=assignment, segment=segment, side="missing", severity="Minor", client_id="b",
                                    category=study.taxonomy.categories.get(key="Omission"))  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=1, segments_visited=[0, 1])
    open_page(page, live_server, assignment)
    select_words(page, 1, "sleeps")
    category(page, "Mistranslation").hover()
    return assignment


def esa_warning(page, live_server):
    """An ESA segment scored high with a Major error: the server's warning shown."""
    assignment = translation_assignment("esa", taxonomy=None)
    open_page(page, live_server, assignment)
    select_words(page, 0, "barks")
    page.keyboard.press("2")
    wait_saved(page, 1)
    page.locator("#score-number").fill("95")
    page.locator("#score-number").press("Enter")
    expect(page.locator("#score-warning")).to_be_visible()


def da_last_segment(page, live_server):
    """A DA document on its last segment: the note to the researchers and Submit."""
    assignment = translation_assignment("da", taxonomy=None, config={"show_reference": True})
    for segment in assignment.document.segments.all():
        SegmentScore.objects.create(assignment=assignment, segment=segment, score=70)
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=2, segments_visited=[0, 1, 2])
    open_page(page, live_server, assignment)
    expect(page.locator("#worker-feedback")).to_be_visible()


def submit_dialog(page, live_server):
    mqm_mid_document(page, live_server)
    page.keyboard.press("Escape")
    page.locator("#next").click()
    page.locator("#submit").click()
    page.locator("#submit-dialog[open]").wait_for()


def submitted(page, live_server):
    assignment = translation_assignment("mqm")
    segment = assignment.document.segments.get(index=1)
    TranslationError.objects.create(assignment=assignment, segment=segment, side="target", start=4, end=7, text="cat",
                                    severity="Minor", client_id="a",
                                    category=assignment.study.taxonomy.categories.get(key="Mistranslation"))  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=2, segments_visited=[0, 1, 2])
    assignment_submit(token=assignment.token)
    open_page(page, live_server, assignment)
    page.locator("#completion:not([hidden])").wait_for()


STATES = [mqm_mid_document, esa_warning, da_last_segment, submit_dialog, submitted]


@pytest.mark.parametrize("open_state", STATES, ids=lambda f: f.__name__)
def test_at_1280_px_nothing_overflows_and_axe_finds_nothing_serious(page, live_server, open_state):
    open_state(page, live_server)
    assert_no_overflow(page)
    assert_accessible(page)


@pytest.mark.parametrize("open_state", STATES, ids=lambda f: f.__name__)
def test_at_390_px_the_source_is_above_its_translation_nothing_overflows_and_axe_finds_nothing_serious(
    phone_page, live_server, open_state
):
    open_state(phone_page, live_server)
    assert_no_overflow(phone_page)
    assert_accessible(phone_page)
    source, target = (
        text_cell(phone_page, 0, "source").bounding_box(),
        text_cell(phone_page, 0).bounding_box(),
    )
    assert source["y"] + source["height"] <= target["y"]
