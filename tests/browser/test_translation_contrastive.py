"""A worker on a contrastive translation page (MQM, ESA, DA side by side), in a real browser with
the real mouse and keyboard: each segment's source once and every system's translation under it
as Translation 1, 2, 3 in the worker's own order; errors and scores on the translation they were
made in, down to the database's documents; the next segment once every translation is scored; a
reload that restores all of it; the layout and accessibility at 1280 and 390 px."""

from itertools import pairwise

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from annotations.services.joining import assignment_join
from protocols.translation.models import SegmentScore, TranslationError
from studies.models import Document
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.reloads import reload_when_sent
from tests.browser.translation_page import open_page, row, select_words, text_cell
from tests.translation.studies import SOURCES, TARGETS, make_translation_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYSTEMS = ("sysA", "sysB", "sysC")


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Every test also fails on an uncaught error in the page's scripts."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield
    assert errors == []


def contrastive_assignment(protocol, systems=SYSTEMS, **fields):
    """A worker's block of a contrastive study: every system's translation of one source, in the
    order the platform shuffled for them. Returns the assignment and the documents in that order."""
    study = make_translation_study(protocol, systems=systems, **fields)
    assignment = assignment_join(study=study, platform="link", external_id="w1")
    documents = Document.objects.in_bulk([item["document"] for item in assignment.items])
    ordered = [documents[item["document"]] for item in sorted(assignment.items, key=lambda i: i["position"])]
    return assignment, ordered


def output_cell(page, segment, output):
    return row(page, segment).locator(f'.output-cell[data-output="{output}"]')


def score_range(page, output):
    return page.locator(f"#score-range-{output}")


def progress(page):
    return page.locator("#progress")


def last_word(text):
    return text.rstrip(".").split()[-1]


def stored_scores(assignment):
    """{(system, segment index): score} from the database."""
    return {
        (s.segment.document.system, s.segment.index): s.score
        for s in SegmentScore.objects.filter(assignment=assignment).select_related("segment__document")
    }


def stored_errors(assignment):
    return sorted(
        (e.segment.document.system, e.segment.index, e.side, e.start, e.end, e.text,
         e.category.key if e.category_id else None, e.severity)
        for e in TranslationError.objects.filter(assignment=assignment).select_related("segment__document", "category")
    )  # fmt: skip


def expect_submitted(page, assignment):
    expect(page.locator("#completion-code")).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(page.locator("#tools")).to_be_hidden()


# --- ESA, three translations ------------------------------------------------------------------


def test_a_contrastive_esa_page_marks_and_scores_each_translation_resumes_and_submits(page, live_server):
    assignment, documents = contrastive_assignment("contrastive-esa", taxonomy=None)
    systems = [d.system for d in documents]
    open_page(page, live_server, assignment)
    expect(progress(page)).to_have_text("Segment 1 of 3 · 0 of 3 scored")
    # The source once, then each system's translation under a neutral name, in this worker's order.
    expect(row(page, 0).locator(".seg-text[data-side=source]")).to_have_text(SOURCES[0])
    expect(row(page, 0).locator(".output-title")).to_have_text(
        ["Translation 1", "Translation 2", "Translation 3"]
    )
    for output, system in enumerate(systems):
        expect(text_cell(page, 0, output=output)).to_have_text(TARGETS[system][0])
    assert not any(name in page.content() for name in (*SYSTEMS, "src-0-"))
    # Three columns on a wide screen.
    boxes = [output_cell(page, 0, output).bounding_box() for output in range(3)]
    assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"] and len({round(b["y"]) for b in boxes}) == 1

    # A span of Translation 2 by mouse: the error is Translation 2's, and drawn there only.
    word = last_word(TARGETS[systems[1]][0])
    start, end = select_words(page, 0, word, output=1)
    expect(page.locator("#pending-text")).to_have_text(f"{word} in Translation 2")
    expect(page.locator('button.output-choice[aria-pressed="true"]')).to_have_text("Translation 2")
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press("2")  # Major
    expect(output_cell(page, 0, 1).locator(".error-list > li")).to_have_count(1)
    expect(page.locator('.error-list > li[data-saved="false"]')).to_have_count(0)
    expect(output_cell(page, 0, 1).locator(".piece.hl.sev-major")).to_have_text(word)
    for other in (0, 2):
        expect(output_cell(page, 0, other).locator(".piece.hl, .error-list > li")).to_have_count(0)

    # Going on before every translation is scored is refused; the first unscored one takes the focus.
    page.keyboard.press("n")
    expect(page.locator("#message")).to_have_text("Score every translation of this segment before going on.")
    expect(score_range(page, 0)).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("Home")  # Translation 1: 0, with no error marked
    expect(output_cell(page, 0, 0).locator(".score-warning")).to_contain_text(
        "A score below 33 with no error marked"
    )
    # t: the next translation (its text, as the study marks errors); s: its score.
    page.keyboard.press("t")
    expect(text_cell(page, 0, output=1)).to_be_focused()
    expect(page.locator("#message")).to_have_text("The tools now work on Translation 2.")
    expect(output_cell(page, 0, 1)).to_have_class("seg-cell cell-target output-cell active")
    page.keyboard.press("s")
    expect(score_range(page, 1)).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("End")  # 100 with a Major error: the warning is Translation 2's alone
    expect(output_cell(page, 0, 1).locator(".score-status")).to_have_text("Saved: 100.")
    expect(output_cell(page, 0, 1).locator(".score-warning")).to_contain_text(
        "A score above 66 with a Major error"
    )
    expect(output_cell(page, 0, 2).locator(".score-warning")).to_be_hidden()
    page.keyboard.press("n")
    expect(page.locator("#message")).to_have_text("Score every translation of this segment before going on.")
    expect(score_range(page, 2)).to_be_focused()
    # Translation 3 by its slider, with the mouse.
    slider = score_range(page, 2).bounding_box()
    with page.expect_response("**/translation/scores/"):
        page.mouse.click(slider["x"] + slider["width"] * 0.75, slider["y"] + slider["height"] / 2)
    expect(output_cell(page, 0, 2).locator(".score-status")).to_contain_text("Saved")
    expect(row(page, 0).locator(".seg-status")).to_have_text("Current · 1 error · 3 of 3 scored")
    with page.expect_response("**/translation/move/"):
        page.keyboard.press("n")
    expect(progress(page)).to_have_text("Segment 2 of 3 · 1 of 3 scored")
    expect(text_cell(page, 1, output=0)).to_be_focused()

    # Segment 2 by the number fields; segment 3 half done when the page reloads.
    for output, value in enumerate((40, 50, 60)):
        page.locator(f"#score-number-{output}").fill(str(value))
        with page.expect_response("**/translation/scores/"):
            page.locator(f"#score-number-{output}").press("Enter")
    page.keyboard.press("Escape")
    with page.expect_response("**/translation/move/"):
        page.keyboard.press("n")
    page.keyboard.press("t")
    page.keyboard.press("t")
    page.keyboard.press("s")
    expect(score_range(page, 2)).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("PageUp")  # from the middle: 60
    third = stored_scores(assignment)[(systems[1], 0)]
    expected = {
        (systems[0], 0): 0, (systems[1], 0): 100, (systems[2], 0): stored_scores(assignment)[(systems[2], 0)],
        (systems[0], 1): 40, (systems[1], 1): 50, (systems[2], 1): 60, (systems[2], 2): 60,
    }  # fmt: skip
    assert third == 100 and 65 <= expected[(systems[2], 0)] <= 85
    assert stored_scores(assignment) == expected
    assert stored_errors(assignment) == [(systems[1], 0, "target", start, end, word, None, "Major")]

    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(progress(page)).to_have_text("Segment 3 of 3 · 2 of 3 scored")
    expect(output_cell(page, 0, 1).locator(".piece.hl.sev-major")).to_have_text(word)
    expect(output_cell(page, 0, 1).locator(".output-status")).to_have_text("1 error · score 100")
    expect(output_cell(page, 0, 0).locator(".output-status")).to_have_text("0 errors · score 0")
    expect(output_cell(page, 1, 2).locator(".output-status")).to_have_text("0 errors · score 60")
    expect(score_range(page, 2)).to_have_value("60")
    expect(output_cell(page, 2, 2).locator(".score-status")).to_have_text("Saved: 60.")
    expect(output_cell(page, 2, 0).locator(".score-status")).to_have_text("Not scored yet.")
    # Back on segment 1 the warnings are where they were.
    page.keyboard.press("p")
    page.keyboard.press("p")
    expect(progress(page)).to_have_text("Segment 1 of 3 · 2 of 3 scored")
    expect(output_cell(page, 0, 1).locator(".score-warning")).to_contain_text("A score above 66")
    expect(score_range(page, 1)).to_have_value("100")
    page.keyboard.press("n")
    page.keyboard.press("n")
    expect(progress(page)).to_have_text("Segment 3 of 3 · 2 of 3 scored")

    # Submitting asks for every translation's score first.
    page.locator("#submit").click()
    expect(page.locator("#message")).to_have_text(
        "Score every translation of every segment before submitting (2 scores left)."
    )
    for output in (0, 1):
        page.locator(f"#score-number-{output}").fill("70")
        with page.expect_response("**/translation/scores/"):
            page.locator(f"#score-number-{output}").press("Enter")
    page.keyboard.press("Escape")
    page.keyboard.press("n")  # on the last segment: Submit
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.keyboard.press("Enter")
    expect_submitted(page, assignment)
    assert stored_scores(assignment) == {**expected, (systems[0], 2): 70, (systems[1], 2): 70}
    assert stored_errors(assignment) == [(systems[1], 0, "target", start, end, word, None, "Major")]


# --- MQM --------------------------------------------------------------------------------------


def test_a_contrastive_mqm_page_puts_each_error_on_its_translation(page, live_server):
    assignment, documents = contrastive_assignment("contrastive-mqm")
    systems = [d.system for d in documents]
    open_page(page, live_server, assignment)
    expect(page.locator("#keys-help")).to_contain_text("t the next translation, Shift+t the one before")
    expect(page.locator("#score-panel")).to_have_count(0)

    # Translation 1 by keyboard: t and Shift+t go from translation to translation, the arrows choose words.
    page.keyboard.press("t")
    expect(text_cell(page, 0, output=1)).to_be_focused()
    page.keyboard.press("Shift+T")
    expect(text_cell(page, 0, output=0)).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    first_words = TARGETS[systems[0]][0].rstrip(".").split()
    expect(page.locator("#pending-text")).to_have_text(f"{first_words[1]} in Translation 1")
    page.keyboard.press("m")
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press("3")  # Major
    expect(output_cell(page, 0, 0).locator(".piece.hl.sev-major")).to_have_text(first_words[1])

    # [missing] in Translation 3: the arrows down in a text go on to the next translation.
    page.keyboard.press("ArrowDown")
    expect(text_cell(page, 0, output=1)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(text_cell(page, 0, output=2)).to_be_focused()
    page.keyboard.press("0")
    expect(page.locator("#pending-text")).to_have_text(
        "[missing] an omission in Translation 3: nothing to select"
    )
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press("2")  # Minor; Omission came preselected
    expect(output_cell(page, 0, 2).locator(".missing-chip")).to_have_text("[missing]")
    expect(output_cell(page, 0, 2).locator(".error-list > li")).to_contain_text("Accuracy/Omission")

    # An omission shown in the source, for Translation 2 chosen in the tools.
    page.locator('button.output-choice[data-output="1"]').click()
    select_words(page, 0, "Hund", side="source")
    expect(page.locator("#pending-text")).to_have_text("Hund in the source, for Translation 2")
    with page.expect_response("**/translation/errors/"):
        page.locator('button.severity[data-severity="Minor"]').click()
    source_mark = text_cell(page, 0, "source").locator(".piece.hl")
    expect(source_mark).to_have_text("Hund")
    expect(source_mark).to_have_attribute("title", "Translation 2: Minor · Accuracy/Omission")
    expect(output_cell(page, 0, 1).locator(".error-list > li")).to_contain_text("in the source")
    for output in range(3):
        expect(output_cell(page, 0, output).locator(".error-list > li")).to_have_count(1)

    # Segment 2: a whole-segment category on Translation 2.
    with page.expect_response("**/translation/move/"):
        page.keyboard.press("n")
    expect(text_cell(page, 1, output=0)).to_be_focused()
    page.keyboard.press("t")
    with page.expect_response("**/translation/errors/"):
        page.locator('button.category[data-key="NonTranslation"]').click()
    expect(output_cell(page, 1, 1).locator(".piece.hl")).to_have_text(TARGETS[systems[1]][1])
    expect(output_cell(page, 1, 0).locator(".piece.hl")).to_have_count(0)

    hund = SOURCES[0].index("Hund")
    expected = sorted([
        (systems[0], 0, "target", len(first_words[0]) + 1, len(first_words[0]) + 1 + len(first_words[1]),
         first_words[1], "Mistranslation", "Major"),
        (systems[2], 0, "missing", 0, 0, "", "Omission", "Minor"),
        (systems[1], 0, "source", hund, hund + 4, "Hund", "Omission", "Minor"),
        (systems[1], 1, "target", 0, len(TARGETS[systems[1]][1]), TARGETS[systems[1]][1], "NonTranslation", "Major"),
    ])  # fmt: skip
    assert stored_errors(assignment) == expected

    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(output_cell(page, 0, 0).locator(".piece.hl.sev-major")).to_have_text(first_words[1])
    expect(output_cell(page, 0, 2).locator(".missing-chip")).to_have_count(1)
    expect(output_cell(page, 0, 1).locator(".error-list > li")).to_contain_text("Hund")
    expect(text_cell(page, 0, "source").locator(".piece.hl")).to_have_text("Hund")
    expect(output_cell(page, 1, 1).locator(".piece.hl")).to_have_text(TARGETS[systems[1]][1])
    expect(row(page, 0).locator(".seg-status")).to_have_text("3 errors")
    for output in (0, 2):
        expect(output_cell(page, 1, output).locator(".output-status")).to_have_text("0 errors")

    with page.expect_response("**/translation/move/"):
        page.keyboard.press("n")
    page.keyboard.press("n")  # on the last segment: Submit
    expect(page.locator("#submit-dialog")).to_be_visible()
    page.keyboard.press("Enter")
    expect_submitted(page, assignment)
    assert stored_errors(assignment) == expected


# --- DA / SQM: scores alone -----------------------------------------------------------------


def test_a_contrastive_sqm_page_is_scored_translation_by_translation_with_keys(page, live_server):
    assignment, documents = contrastive_assignment(
        "contrastive-da", systems=("sysA", "sysB"), taxonomy=None, config={"scale": {"min": 0, "max": 6}}
    )
    systems = [d.system for d in documents]
    open_page(page, live_server, assignment)
    expect(page.locator("#error-panel")).to_have_count(0)
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("4")  # a digit scores the chosen translation: Translation 1
    expect(output_cell(page, 0, 0).locator(".score-status")).to_have_text("Saved: 4.")
    page.keyboard.press("Enter")
    expect(page.locator("#message")).to_have_text("Score every translation of this segment before going on.")
    expect(score_range(page, 1)).to_be_focused()
    page.keyboard.press("t")  # round to Translation 1 and back to 2: the sliders take the focus
    expect(score_range(page, 0)).to_be_focused()
    page.keyboard.press("Shift+T")
    expect(score_range(page, 1)).to_be_focused()
    with page.expect_response("**/translation/scores/"):
        page.keyboard.press("ArrowRight")  # from the middle of 0-6
    with page.expect_response("**/translation/move/"):
        page.keyboard.press("Enter")
    expect(score_range(page, 0)).to_be_focused()
    expect(row(page, 0).locator(".output-status")).to_have_text(["score 4", "score 4"])
    assert stored_scores(assignment) == {(systems[0], 0): 4, (systems[1], 0): 4}


# --- layout and accessibility ------------------------------------------------------------------

LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis-and-antidisestablishmentarianism"


def esa_warning_and_long_word(page, live_server):
    """Three ESA translations, the second with a word longer than a phone's line, a Major error
    over it and a score of 100: its warning shown; the first scored 0, the third not yet."""
    assignment, documents = contrastive_assignment("contrastive-esa", taxonomy=None)
    segment = documents[1].segments.get(index=0)
    segment.text = f"The dog {LONG_WORD} barks."
    segment.save()
    start = segment.text.index(LONG_WORD)
    TranslationError.objects.create(assignment=assignment, segment=segment, side="target", start=start,
                                    end=start + len(LONG_WORD), text=LONG_WORD, severity="Major", client_id="a")  # fmt: skip
    SegmentScore.objects.create(assignment=assignment, segment=segment, score=100)
    SegmentScore.objects.create(assignment=assignment, segment=documents[0].segments.get(index=0), score=0)
    open_page(page, live_server, assignment)
    expect(output_cell(page, 0, 1).locator(".score-warning")).to_be_visible()
    return 3


def mqm_span_being_marked(page, live_server):
    """Three MQM translations with the reference shown: a span of the third being marked, a
    category described."""
    assignment, _ = contrastive_assignment("contrastive-mqm", config={"show_reference": True})
    open_page(page, live_server, assignment)
    select_words(
        page, 0, "bark" if "bark" in text_cell(page, 0, output=2).text_content() else "dog", output=2
    )
    page.locator('button.category[data-key="Mistranslation"]').hover()
    expect(page.locator("#pending")).to_be_visible()
    return 3


def sqm_two_translations_last_segment(page, live_server):
    """Two DA translations on a 0-6 scale, on the last segment, the first two segments scored."""
    assignment, documents = contrastive_assignment(
        "contrastive-da", systems=("sysA", "sysB"), taxonomy=None, config={"scale": {"min": 0, "max": 6}}
    )
    for document in documents:
        for segment in document.segments.filter(index__lt=2):
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=4)
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=2, segments_visited=[0, 1, 2])
    open_page(page, live_server, assignment)
    expect(page.locator("#submit")).to_be_visible()
    return 2


STATES = [esa_warning_and_long_word, mqm_span_being_marked, sqm_two_translations_last_segment]


def current_cells(page, count):
    segment = int(page.locator(".seg-row.current").get_attribute("data-index"))
    return [output_cell(page, segment, output).bounding_box() for output in range(count)], segment


@pytest.mark.parametrize("open_state", STATES, ids=lambda f: f.__name__)
def test_at_1280_px_the_translations_stand_side_by_side_and_axe_finds_nothing_serious(
    page, live_server, open_state
):
    count = open_state(page, live_server)
    cells, _ = current_cells(page, count)
    assert all(a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 1 for a, b in pairwise(cells))
    assert_no_overflow(page)
    assert_accessible(page)


@pytest.mark.parametrize("open_state", STATES, ids=lambda f: f.__name__)
def test_at_390_px_the_translations_are_stacked_under_the_source_and_axe_finds_nothing_serious(
    phone_page, live_server, open_state
):
    count = open_state(phone_page, live_server)
    cells, segment = current_cells(phone_page, count)
    source = text_cell(phone_page, segment, "source").bounding_box()
    assert source["y"] + source["height"] <= cells[0]["y"]
    assert all(a["y"] + a["height"] <= b["y"] for a, b in pairwise(cells))
    assert_no_overflow(phone_page)
    assert_accessible(phone_page)
