"""The annotation page with 200 annotations: drawn once, nothing moves afterwards.

Layout shifts are asserted; the script and layout times from Chromium's trace
(its performance timeline) are printed beside those of the same page without
annotations, in the same run, and not asserted: the machine is shared.
Run with `-s` to see them.
"""

import json
import os

import pytest
from playwright.sync_api import expect

from tests.browser.task_page import make_task, task_url
from tests.factories import ErrorAnnotationFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEGMENTS = 40
PER_SEGMENT = 5
WORDS = ["Anna", "Ben", "mill", "river", "lamps"]
SEGMENT_TEXT = "Anna met Ben at the old mill near the river. They talked until the lamps were lit."

# Every layout shift the page has had, from the first paint on (buffered entries), and
# those that followed a user's input (excluded from the cumulative layout shift).
_LAYOUT_SHIFTS = """() => new Promise((resolve) => {
  const shifts = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      shifts.push({value: entry.value, input: entry.hadRecentInput, at: entry.startTime,
                   sources: entry.sources.map((s) => s.node ? s.node.nodeName + '#' + s.node.id + '.' + s.node.className : '?')});
    }
  });
  observer.observe({type: 'layout-shift', buffered: true});
  // Two frames and a pause: anything the page changes after its first render is recorded.
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    observer.disconnect();
    resolve(shifts);
  }, 500)));
})"""


def make_annotated_task(annotations_per_segment):
    assignment = make_task(
        [SEGMENT_TEXT] * SEGMENTS, current_segment=SEGMENTS - 1, segments_visited=list(range(SEGMENTS))
    )
    categories = list(assignment.study.taxonomy.categories.exclude(kind="paired"))
    for segment in assignment.document.segments.all():
        for number, word in enumerate(WORDS[:annotations_per_segment]):
            start = SEGMENT_TEXT.index(word)
            ErrorAnnotationFactory(
                assignment=assignment, segment=segment, category=categories[number % len(categories)],
                start=start, end=start + len(word), text=word,
            )  # fmt: skip
    return assignment


# Main-thread trace events (Chromium's performance timeline) that run the page's scripts, and
# those that lay it out. main.js awaits its optional modules, so most of its work runs as
# microtasks: Performance.getMetrics' ScriptDuration leaves those out.
SCRIPT_EVENTS = {"v8.compileModule", "v8.evaluateModule", "EvaluateScript", "FunctionCall", "RunMicrotasks",
                 "TimerFire", "EventDispatch", "FireAnimationFrame"}  # fmt: skip
LAYOUT_EVENTS = {"Layout", "UpdateLayoutTree"}


def main_thread_times(trace):
    """Milliseconds of script and of layout + style on the renderer's main thread; an
    event inside another of its kind (a call from a microtask) is counted once."""
    events = trace["traceEvents"]
    main = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("ph") == "M"
        and event.get("name") == "thread_name"
        and event["args"].get("name") == "CrRendererMain"
    }
    times = {}
    for kind, names in (("script", SCRIPT_EVENTS), ("layout", LAYOUT_EVENTS)):
        spans = sorted(
            (event["ts"], event["ts"] + event.get("dur", 0))
            for event in events
            if event.get("ph") == "X" and event["name"] in names and (event["pid"], event["tid"]) in main
        )
        total, reached = 0, 0
        for begin, end in spans:
            total += max(0, end - max(begin, reached))
            reached = max(reached, end)
        times[kind] = total / 1000
    return times


def load_and_measure(context, live_server, assignment, expected_rows):
    """Open the page in a new tab, traced from navigation until it has been still for a while."""
    page = context.new_page()
    context.browser.start_tracing(page=page, categories=["devtools.timeline", "v8.execute"])
    page.goto(task_url(live_server, assignment))
    page.wait_for_selector(".current-box .segment-text")
    expect(page.locator("#annotation-list > li")).to_have_count(expected_rows)
    shifts = page.evaluate(_LAYOUT_SHIFTS)
    times = main_thread_times(json.loads(context.browser.stop_tracing()))
    return page, shifts, times


def describe(name, shifts, times):
    layout_shift = sum(shift["value"] for shift in shifts if not shift["input"])
    print(
        f"\n{name}: script {times['script']:.1f} ms, layout and style {times['layout']:.1f} ms "
        f"(main thread, Chromium trace); {len(shifts)} layout shifts (cumulative {layout_shift:.4f}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return layout_shift


def test_two_hundred_annotations_render_without_layout_shifts(page, live_server):
    reference = make_annotated_task(0)
    annotated = make_annotated_task(PER_SEGMENT)

    # A first load, not measured, warms the live server and Chromium's module cache, so
    # neither measured page pays for compiling the (same) scripts.
    warm_up, _, _ = load_and_measure(page.context, live_server, reference, 0)
    warm_up.close()
    reference_page, reference_shifts, reference_times = load_and_measure(
        page.context, live_server, reference, 0
    )
    reference_page.close()
    page, shifts, times = load_and_measure(page.context, live_server, annotated, SEGMENTS * PER_SEGMENT)

    describe(f"no annotations, {SEGMENTS} segments (reference)", reference_shifts, reference_times)
    layout_shift = describe(f"{SEGMENTS * PER_SEGMENT} annotations, {SEGMENTS} segments", shifts, times)
    assert page.locator(".current-box .piece.hl").count() >= PER_SEGMENT
    assert layout_shift < 0.001, shifts
