"""A worker on the annotation page, in a real browser with real mouse selections."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.browser.mouse import press_and_hold
from tests.browser.reloads import reload_when_sent, wait_until_sent
from tests.browser.task_page import (
    TEXTS,
    default_categories,
    drag,
    make_task,
    open_task,
    select_words,
    task_url,
)
from tests.factories import ErrorAnnotationFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PAGE_TIME = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # where a test that runs the page's clock starts it


def rows(page):
    return page.locator("#annotation-list > li")


def wait_saved(page, count):
    expect(rows(page)).to_have_count(count)
    expect(page.locator('#annotation-list > li[data-saved="false"]')).to_have_count(0)


def stored(assignment, **filters):
    return ErrorAnnotation.objects.select_related("segment", "paired_segment", "category").filter(
        assignment=assignment, **filters
    )


def category(page, key):
    return page.locator(f'button.category[data-key="{key}"]')


def highlighted(page, selector):
    """The text of the highlighted pieces (a span is cut into pieces at words and overlaps)."""
    return "".join(page.locator(selector).all_text_contents())


def go_next(page, expected_counter):
    with page.expect_response("**/move/"):
        page.click("#next")
    expect(page.locator("#segment-counter")).to_have_text(expected_counter)


def annotate_stored(assignment, segment_index, category_key, words, **fields):
    segment = assignment.document.segments.get(index=segment_index)
    start = segment.text.index(words)
    return ErrorAnnotationFactory(
        assignment=assignment, segment=segment, start=start, end=start + len(words), text=words,
        category=assignment.study.taxonomy.categories.get(key=category_key), **fields,
    )  # fmt: skip


def test_span_after_an_emoji_is_stored_in_code_points(page, live_server):
    assignment = make_task()
    open_task(page, live_server, assignment)
    expect(page.locator("#segment-counter")).to_have_text("Segment 1 of 3")
    expect(page.locator("#step-prompt")).to_contain_text("select the words of an error")

    start, end = select_words(page, 0, TEXTS[0], "quickly")
    expect(page.locator("#pending-span-text")).to_have_text("quickly")
    category(page, "CharE").click()
    page.click("#add")

    wait_saved(page, 1)
    expect(rows(page).first).to_contain_text("New character")
    expect(rows(page).first).to_contain_text("quickly")
    annotation = stored(assignment).get()
    assert (annotation.segment.index, annotation.category.key) == (0, "CharE")
    assert (annotation.start, annotation.end, annotation.text) == (start, end, TEXTS[0][start:end])
    assert annotation.text == "quickly" and start == 30  # 31 in UTF-16: the emoji counts once
    expect(page.locator(".current-box .piece.hl")).to_have_text("quickly")


def test_exact_white_space_and_a_paired_span_in_the_context(page, live_server):
    assignment = make_task()
    open_task(page, live_server, assignment)
    go_next(page, "Segment 2 of 3")

    # Across the triple space and the newline: kept exactly, nothing trimmed.
    start, end = select_words(page, 1, TEXTS[1], "they   slept.\nÉlodie")
    expect(page.locator("#pending-span-text")).to_have_text("they   slept.\nÉlodie")
    category(page, "CharE").click()
    page.click("#add")

    # The repetition's second span is earlier, in the context box.
    select_words(page, 1, TEXTS[1], "Anna")
    category(page, "RepE").click()
    expect(page.locator("#step-prompt")).to_have_text(
        "Now select the earlier span (in the context or the current segment)."
    )
    expect(page.locator("#add")).to_be_disabled()
    paired_start, paired_end = select_words(page, 0, TEXTS[0], "Anna met Ben")
    expect(page.locator("#pending-paired-text")).to_have_text("Anna met Ben")
    page.fill("#comment", "Repeats the first segment.")
    page.click("#add")

    wait_saved(page, 2)
    spaced = stored(assignment, category__key="CharE").get()
    assert (spaced.start, spaced.end, spaced.text) == (start, end, TEXTS[1][start:end])
    paired = stored(assignment, category__key="RepE").get()
    assert (paired.segment.index, paired.text) == (1, "Anna")
    assert paired.paired_segment.index == 0
    assert (paired.paired_start, paired.paired_end) == (paired_start, paired_end)
    assert paired.paired_text == TEXTS[0][paired_start:paired_end] == "Anna met Ben"
    assert paired.comment == "Repeats the first segment."
    expect(page.locator("#annotation-list")).to_contain_text("Repeats the first segment.")
    assert highlighted(page, ".context-box .piece.hl-paired") == "Anna met Ben"


def test_removing_an_annotation(page, live_server):
    assignment = make_task()
    annotate_stored(assignment, 0, "CharE", "Tom")
    annotate_stored(assignment, 0, "CharE", "Anna")
    open_task(page, live_server, assignment)
    expect(rows(page)).to_have_count(2)

    with page.expect_response(lambda response: response.request.method == "DELETE"):
        rows(page).filter(has_text="Anna").get_by_role("button", name="Remove").click()
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("Tom")
    assert list(stored(assignment).values_list("text", flat=True)) == ["Tom"]


def test_a_remove_held_while_an_add_is_answered_still_counts(page, live_server):
    """The add's answer marks its row saved and re-draws the list; the Remove button the worker
    is pressing at that moment keeps its node, so the release still makes a click."""
    assignment = make_task()
    annotate_stored(assignment, 0, "CharE", "Tom")
    open_task(page, live_server, assignment)
    held = []
    page.route("**/annotations/", lambda route: route.continue_() if held else held.append(route))
    select_words(page, 0, TEXTS[0], "quickly")
    category(page, "CharE").click()
    page.click("#add")
    expect(rows(page).filter(has_text="quickly")).to_contain_text("saving")
    remove = rows(page).filter(has_text="Tom").get_by_role("button", name="Remove")
    press_and_hold(page, remove)
    held[0].continue_()
    wait_saved(page, 2)  # the add answered, the list drawn again under the pressed button
    page.mouse.up()
    wait_saved(page, 1)
    expect(rows(page).first).to_contain_text("quickly")
    wait_until_sent(page)  # the page shows the removal at once; the server has it once the queue is empty
    assert list(stored(assignment).values_list("text", flat=True)) == ["quickly"]


def test_reload_resumes_at_the_same_segment_with_every_annotation(page, live_server):
    assignment = make_task()
    annotate_stored(assignment, 0, "CharE", "Jerry", comment="Who is he?")
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "home")
    page.keyboard.press("c")
    page.click("#add")
    go_next(page, "Segment 2 of 3")
    wait_saved(page, 2)

    reload_when_sent(page)
    expect(page.locator("#segment-counter")).to_have_text("Segment 2 of 3")
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#annotation-list")).to_contain_text("Jerry")
    expect(page.locator("#annotation-list")).to_contain_text("home")
    expect(page.locator("#annotation-list")).to_contain_text("Who is he?")
    expect(page.locator(".context-box .piece.hl")).to_have_text(["Jerry", "home"])
    assert Assignment.objects.get(pk=assignment.pk).current_segment == 1


def test_submit_through_the_dialog_shows_the_code_and_locks_the_page(page, live_server):
    assignment = make_task()
    annotate_stored(assignment, 0, "CharE", "Tom")
    open_task(page, live_server, assignment)
    go_next(page, "Segment 2 of 3")
    expect(page.locator("#submit")).to_be_hidden()
    go_next(page, "Segment 3 of 3")
    expect(page.locator("#next")).to_be_hidden()

    page.click("#submit")
    dialog = page.locator("#submit-dialog")
    expect(dialog).to_be_visible()
    page.click("#submit-confirm")
    expect(page.locator("#completion-code")).not_to_be_empty()

    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    expect(page.locator("#completion-code")).to_have_text(assignment.completion_code)
    expect(page.locator("#add")).to_be_disabled()
    expect(page.locator("button.remove")).to_have_count(0)
    expect(page.locator("button.category:enabled")).to_have_count(0)
    expect(page.locator("#segment-nav")).to_be_hidden()

    # Selecting text no longer starts an annotation, also after a reload.
    reload_when_sent(page)
    expect(page.locator("#completion-code")).to_have_text(assignment.completion_code)
    select_words(page, 2, TEXTS[2], "mill")
    expect(page.locator(".piece.hl-pending")).to_have_count(0)
    expect(page.locator("button:enabled", has_text="Remove")).to_have_count(0)


def test_keyboard_only_categories_segments_and_submit(page, live_server):
    assignment = make_task()
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Jerry")
    page.keyboard.press("c")
    expect(category(page, "CharE")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#add")).to_be_focused()
    page.keyboard.press("Enter")
    wait_saved(page, 1)

    # Letters typed into the comment are text, not shortcuts.
    select_words(page, 0, TEXTS[0], "Ben")
    page.focus("#comment")
    page.keyboard.type("no precise name")
    expect(page.locator("#comment")).to_have_value("no precise name")
    expect(page.locator("#segment-counter")).to_have_text("Segment 1 of 3")
    page.keyboard.press("Escape")
    expect(page.locator("#pending-span")).to_be_hidden()

    for key, counter in [
        ("n", "Segment 2 of 3"),
        ("p", "Segment 1 of 3"),
        ("n", "Segment 2 of 3"),
        ("ArrowLeft", "Segment 1 of 3"),
        ("ArrowRight", "Segment 2 of 3"),
        ("n", "Segment 3 of 3"),
    ]:
        with page.expect_response("**/move/"):
            page.keyboard.press(key)
        expect(page.locator("#segment-counter")).to_have_text(counter)

    for _ in range(40):  # Tab to the Submit button
        if page.evaluate("document.activeElement.id") == "submit":
            break
        page.keyboard.press("Tab")
    expect(page.locator("#submit")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#submit-dialog")).to_be_visible()
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#completion-code")).not_to_be_empty()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert stored(assignment).get().text == "Jerry"


def test_after_ctrl_enter_the_next_key_moves_on_and_is_never_typed_into_a_comment(page, live_server):
    """The worker comments, adds with Ctrl+Enter, then presses n for the next segment: the focus is
    back on the text, so n moves on; no field the worker did not choose receives a key."""
    assignment = make_task()
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Jerry")
    page.keyboard.press("c")
    page.locator("#comment").click()
    page.keyboard.type("Who is he?")
    page.keyboard.press("Control+Enter")
    wait_saved(page, 1)
    expect(page.locator("#current")).to_be_focused()  # the text, ready for the next selection or key
    with page.expect_response("**/move/"):
        page.keyboard.press("n")
    expect(page.locator("#segment-counter")).to_have_text("Segment 2 of 3")
    expect(page.locator("#comment")).to_have_value("")

    # The next annotation, by mouse and keys alone: its comment is empty, not "n".
    select_words(page, 1, TEXTS[1], "Élodie")
    page.keyboard.press("c")
    page.keyboard.press("Enter")  # on Add
    wait_saved(page, 2)
    expect(page.locator("#current")).to_be_focused()
    page.keyboard.type("np")  # next, previous: keys, not text
    expect(page.locator("#segment-counter")).to_have_text("Segment 2 of 3")
    expect(page.locator("#comment")).to_have_value("")
    assert dict(stored(assignment).values_list("text", "comment")) == {"Jerry": "Who is he?", "Élodie": ""}


def test_markup_in_texts_labels_and_comments_is_shown_literally(page, live_server):
    hostile = "Anna wrote <script>alert(1)</script> and <img src=x onerror=alert(2)> here. Then she left."
    categories = [
        {"key": "Bad", "label": "Odd <img src=x onerror=alert(3)>",
         "description": "<img src=x onerror=alert(3)> too", "shortcut": "b"},
    ]  # fmt: skip
    assignment = make_task([hostile, "A quiet second segment."], categories=categories)
    annotate_stored(assignment, 0, "Bad", "<script>", comment="<script>alert(4)</script>")
    open_task(page, live_server, assignment)

    expect(page.locator(".current-box .segment-text")).to_have_text(hostile)
    button = page.locator("button.category")
    expect(button).to_contain_text("Odd <img src=x onerror=alert(3)>")
    button.hover()
    expect(page.locator("#category-description")).to_contain_text("<img src=x onerror=alert(3)> too")
    expect(page.locator("#annotation-list")).to_contain_text("<script>alert(4)</script>")
    expect(page.locator(".current-box .piece.hl")).to_have_text("<script>")
    assert page.locator("#task-text img").count() == 0
    assert page.locator("img").count() == 0
    assert page.locator("main script").count() == 0
    assert page.dialogs == []


def test_a_failed_save_warns_and_is_retried(page, live_server):
    assignment = make_task()
    aborted = []

    def fail_first_post(route):
        if route.request.method == "POST" and not aborted:
            aborted.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/api/task/**/annotations/", fail_first_post)
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Tom")
    category(page, "CharE").click()
    page.click("#add")

    warning = page.locator("#save-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Not saved yet – retrying…")
    expect(rows(page).first).to_contain_text("saving…")
    wait_saved(page, 1)
    expect(warning).to_be_hidden()
    assert len(aborted) == 1
    assert list(stored(assignment).values_list("text", flat=True)) == ["Tom"]


def test_a_refused_save_shows_the_reason_and_is_undone(page, live_server):
    assignment = make_task()
    page.route(
        "**/api/task/**/annotations/",
        lambda route: route.fulfill(status=400, json={"error": "span: offsets do not fit"}),
    )
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Tom")
    page.keyboard.press("c")
    page.click("#add")
    expect(page.locator("#message")).to_have_text("Not saved: span: offsets do not fit")
    expect(rows(page)).to_have_count(0)
    expect(page.locator(".piece.hl")).to_have_count(0)
    expect(page.locator("#save-warning")).to_be_hidden()


def test_unsaved_work_is_sent_again_from_local_storage(page, live_server):
    assignment = make_task()
    page.route("**/api/task/**/annotations/", lambda route: route.abort())
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Tom")
    page.keyboard.press("c")
    page.click("#add")
    expect(page.locator("#save-warning")).to_be_visible()

    # The same browser opens the task again (the first tab is still retrying, unsuccessfully).
    second = page.context.new_page()
    open_task(second, live_server, assignment)
    wait_saved(second, 1)
    assert list(stored(assignment).values_list("text", flat=True)) == ["Tom"]


def test_whole_sentence_category_snaps_to_the_sentence(page, live_server):
    assignment = make_task()
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "met")
    expect(page.locator("#pending-span-text")).to_have_text("met")
    category(page, "SceneE").click()
    expect(page.locator("#pending-span-text")).to_have_text("Anna met Ben.")
    assert highlighted(page, ".current-box .piece.hl-pending") == "Anna met Ben."
    page.click("#add")

    wait_saved(page, 1)
    annotation = stored(assignment).get()
    sentence = assignment.document.segments.get(index=0).sentences[1]
    assert [annotation.start, annotation.end] == sentence
    assert annotation.text == "Anna met Ben." == TEXTS[0][sentence[0] : sentence[1]]


def test_snap_to_words_category_widens_a_selection_to_whole_words(page, live_server):
    snapping = {"key": "GramE", "label": "Ungrammatical", "shortcut": "g", "snap_to_words": True}
    assignment = make_task(categories=[*default_categories(), snapping])
    open_task(page, live_server, assignment)
    # Cuts "Anna" and "Ben" mid-way, after the emoji (one code point, two UTF-16 units).
    select_words(page, 0, TEXTS[0], "nna met B")
    category(page, "GramE").click()
    expect(page.locator("#pending-span-text")).to_have_text("Anna met Ben")
    page.click("#add")
    wait_saved(page, 1)
    # The same cut on a category without the option stays as selected.
    start, end = select_words(page, 0, TEXTS[0], "uickl")
    category(page, "CharE").click()
    page.click("#add")

    wait_saved(page, 2)
    snapped = stored(assignment, category__key="GramE").get()
    words = TEXTS[0].index("Anna met Ben")
    assert (snapped.start, snapped.end, snapped.text) == (words, words + len("Anna met Ben"), "Anna met Ben")
    kept = stored(assignment, category__key="CharE").get()
    assert (kept.start, kept.end, kept.text) == (start, end, "uickl")


def test_selection_is_clamped_to_the_current_segment_or_refused(page, live_server):
    assignment = make_task(current_segment=1, segments_visited=[0, 1])
    open_task(page, live_server, assignment)
    # From the context into the current segment: only the current part counts.
    drag(page, (0, TEXTS[0].index("Anna")), (1, TEXTS[1].index("they") + len("they") - 1))
    expect(page.locator("#pending-span-text")).to_have_text("Then  they")

    page.keyboard.press("Escape")
    select_words(page, 0, TEXTS[0], "Anna met")
    expect(page.locator("#message")).to_contain_text("outside the current segment")
    expect(page.locator("#pending-span")).to_be_hidden()


def test_released_assignment_is_read_only_with_a_banner(page, live_server):
    assignment = make_task(status=Assignment.Status.RELEASED)
    annotate_stored(assignment, 0, "CharE", "Tom")
    open_task(page, live_server, assignment)
    expect(page.locator("#banner")).to_contain_text("released after a long time without activity")
    expect(page.locator("#banner")).to_contain_text("saved is kept")
    expect(rows(page)).to_have_count(1)
    expect(page.locator("button.remove")).to_have_count(0)
    expect(page.locator("#pending-panel")).to_be_hidden()


def test_a_conflict_makes_the_page_read_only(page, live_server):
    assignment = make_task()
    open_task(page, live_server, assignment)
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RELEASED)
    select_words(page, 0, TEXTS[0], "Tom")
    page.keyboard.press("c")
    # After the 409 the page asks for the state (was it submitted elsewhere?); wait for it.
    with page.expect_response(
        lambda response: response.request.method == "GET" and "/api/task/" in response.url
    ):
        page.click("#add")
    expect(page.locator("#banner")).to_contain_text("released")
    expect(page.locator("button.category:enabled")).to_have_count(0)
    assert not stored(assignment).exists()


def test_coreference_cue_marks_other_occurrences(page, live_server):
    assignment = make_task(current_segment=1, segments_visited=[0, 1])
    open_task(page, live_server, assignment)
    page.locator('.current-box [data-word="Anna"]').hover()
    expect(page.locator(".context-box .cue-match")).to_have_text(["Anna"])
    expect(page.locator(".cue-match")).to_have_count(2)
    assert page.locator('[data-word="Then"]').count() == 0  # a common sentence starter

    off = make_task(config={"ui": {"coreference_cue": False}})
    page.goto(task_url(live_server, off))
    expect(page.locator(".current-box .segment-text")).to_have_text(TEXTS[0])
    assert page.locator("[data-word]").count() == 0


def test_active_time_is_reported(page, live_server, settings):
    settings.TASK_ACTIVITY_INTERVAL_SECONDS = 1
    assignment = make_task()
    # The page's time stands still until the test moves it, however slow the machine.
    page.clock.install(time=PAGE_TIME)
    page.clock.pause_at(PAGE_TIME + timedelta(seconds=1))
    open_task(page, live_server, assignment)
    with page.expect_response("**/activity/"):  # Playwright's 30 s: a hang bound only
        page.mouse.move(100, 300)
        page.clock.run_for(2000)  # two ticks of the page's activity clock, one report due
    page.goto("about:blank")  # stop the clock: no report may race the database teardown
    assignment.refresh_from_db()
    assert assignment.active_seconds >= 1


def test_screenshot_of_a_worked_page(page, live_server):
    assignment = make_task(current_segment=2, segments_visited=[0, 1, 2])
    annotate_stored(assignment, 0, "CharE", "Jerry", comment="Never introduced.")
    annotate_stored(assignment, 0, "SceneE", "Anna met Ben.")
    annotate_stored(assignment, 1, "CharE", "Élodie")
    first = assignment.document.segments.get(index=0)
    paired_start = TEXTS[0].index("Anna met Ben")
    annotate_stored(
        assignment, 2, "RepE", "Anna met Ben", paired_segment=first, paired_start=paired_start,
        paired_end=paired_start + len("Anna met Ben"), paired_text="Anna met Ben",
    )  # fmt: skip
    open_task(page, live_server, assignment)
    select_words(page, 2, TEXTS[2], "mill")
    category(page, "RepE").click()
    page.screenshot(path="/tmp/task.png", full_page=True)
    expect(rows(page)).to_have_count(4)


def test_prolific_worker_is_sent_to_the_completion_url_after_submit(page, live_server):
    # The study's completion URL stands in for Prolific's (no outside network here).
    completion_url = f"{live_server.url}/admin/login/?cc=PROLIFIC-DONE"
    assignment = make_task(texts=TEXTS[:1], config={"prolific_completion_url": completion_url},
                           worker__platform="prolific")  # fmt: skip
    open_task(page, live_server, assignment)
    page.click("#submit")
    page.click("#submit-confirm")
    expect(page.locator("#return-to-platform")).to_have_attribute("href", completion_url)
    page.wait_for_url(completion_url, timeout=10_000)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
