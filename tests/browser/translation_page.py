"""Helpers for driving the translation page (MQM, ESA, DA): opening it and real mouse selections
in a segment's source or translation (on a contrastive page, in one of its translations:
`output`, its place on the page, 0 for Translation 1)."""

from django.urls import reverse
from playwright.sync_api import expect

from studies.models import Document, Segment
from tests.factories import AssignmentFactory, StudyFactory
from tests.translation.studies import make_translation_study


def translation_assignment(protocol="mqm", *, system="sysA", **study_fields):
    """A worker's assignment of `system`'s translation in a study of tests/translation/studies.py."""
    study = make_translation_study(protocol, **study_fields)
    return AssignmentFactory(document=study.documents.get(system=system), study=study)


def document_assignment(
    protocol, sources, targets, *, config=None, source_lang="", target_lang="", references=None
):
    """An assignment on one document of the given sources and translations (ESA and DA take no taxonomy)."""
    study = StudyFactory(
        protocol=protocol, config=config or {}, **({} if protocol == "mqm" else {"taxonomy": None})
    )
    meta = {"sources": sources, "source_lang": source_lang, "target_lang": target_lang}
    if references:
        meta["references"] = references
    document = Document.objects.create(
        study=study, external_id="doc-1", input_id="doc-1", system="sysA", meta=meta
    )
    for index, text in enumerate(targets):
        Segment.objects.create(document=document, index=index, text=text)
    return AssignmentFactory(document=document, study=study)


def task_url(live_server, assignment):
    return live_server.url + reverse("task-annotate", args=[assignment.token])


def open_page(page, live_server, assignment):
    page.goto(task_url(live_server, assignment))
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")


def _cell_selector(segment, side, output=None):
    where = f'[data-output="{output}"]' if output is not None else ""
    return f'.seg-text[data-segment="{segment}"][data-side="{side}"]{where}'


def text_cell(page, segment, side="target", output=None):
    return page.locator(_cell_selector(segment, side, output))


def row(page, segment):
    return page.locator(f'.seg-row[data-index="{segment}"]')


def error_rows(page, segment=None):
    where = f'.seg-row[data-index="{segment}"] ' if segment is not None else ""
    return page.locator(f"{where}.error-list > li")


def wait_saved(page, count, segment=None):
    expect(error_rows(page, segment)).to_have_count(count)
    expect(page.locator('.error-list > li[data-saved="false"]')).to_have_count(0)


# The on-screen box of character `cp` (a code point) of a text cell, found through a Range over
# its text nodes: the test then drags the real mouse over it.
_CHARACTER_BOX = """([selector, cp]) => {
  const root = document.querySelector(selector);
  const characters = [...root.textContent];
  let units = characters.slice(0, cp).join('').length;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (units < node.length) {
      const range = document.createRange();
      range.setStart(node, units);
      range.setEnd(node, units + characters[cp].length);
      const box = range.getClientRects()[0];
      return {left: box.left, right: box.right, width: box.width, y: box.top + box.height / 2};
    }
    units -= node.length;
  }
  throw new Error('no character ' + cp + ' in ' + selector);
}"""


def select_words(page, segment, words, side="target", occurrence=0, output=None):
    """Drag the mouse over `words` (its `occurrence`-th appearance) in one side of a segment, from
    its first character to its last in reading order (right to left in an RTL text); returns the
    code-point (start, end) of the words."""
    selector = _cell_selector(segment, side, output)
    text_cell(page, segment, side, output).scroll_into_view_if_needed()
    text = page.evaluate("(selector) => document.querySelector(selector).textContent", selector)
    characters = list(text)
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(words, start + 1)
    start = len(list(text[:start]))  # code points
    end = start + len(list(words))
    first = page.evaluate(_CHARACTER_BOX, [selector, start])
    last = page.evaluate(_CHARACTER_BOX, [selector, end - 1])
    rtl = first["left"] > last["left"]
    # Press just inside the first character's leading edge and release just inside the last one's trailing edge.
    from_x = first["right"] - first["width"] * 0.2 if rtl else first["left"] + first["width"] * 0.2
    to_x = last["left"] + last["width"] * 0.2 if rtl else last["right"] - last["width"] * 0.2
    page.mouse.move(from_x, first["y"])
    page.mouse.down()
    page.mouse.move(to_x, last["y"], steps=5)
    page.mouse.up()
    assert "".join(characters[start:end]) == words
    return start, end


def progress(page):
    return page.locator("#progress")


def category(page, key):
    return page.locator(f'button.category[data-key="{key}"]')


def severity(page, name):
    return page.locator(f'button.severity[data-severity="{name}"]')


def next_segment(page, key="n"):
    with page.expect_response("**/translation/move/"):
        page.keyboard.press(key)


def submit_by_keyboard(page):
    page.keyboard.press("n")  # on the last segment: Submit
    expect(page.locator("#submit-dialog")).to_be_visible()
    expect(page.locator("#submit-confirm")).to_be_focused()
    page.keyboard.press("Enter")
