"""Helpers for driving the annotation page: task data and real mouse selections."""

from django.urls import reverse

from studies.models import Category
from tests.factories import (
    AssignmentFactory,
    CategoryFactory,
    DocumentFactory,
    SegmentFactory,
    StudyFactory,
)

TEXTS = [
    "Tom & Jerry <b>ran</b> home 😀 quickly. Anna met Ben.",
    "Then  they   slept.\nÉlodie woke. Anna smiled.",
    "Anna met Ben at the mill. They talked for hours.",
]


def make_task(texts=TEXTS, *, categories=None, config=None, **assignment_fields):
    """An assignment on a document of `texts`, in a study with a singleton
    (CharE, key c), a paired (RepE, key r) and a whole-sentence (SceneE, key s) category."""
    study = StudyFactory(config=config or {})
    for order, fields in enumerate(categories or default_categories()):
        CategoryFactory(taxonomy=study.taxonomy, order=order, **fields)
    document = DocumentFactory(study=study)
    for index, text in enumerate(texts):
        SegmentFactory(document=document, index=index, text=text)
    return AssignmentFactory(document=document, study=study, **assignment_fields)


def default_categories():
    return [
        {"key": "CharE", "label": "New character", "description": "A person appears without introduction.",
         "shortcut": "c", "color": "#ffd166"},
        {"key": "RepE", "label": "Repetition", "description": "Says again what was said before.",
         "kind": Category.Kind.PAIRED, "group": "language", "shortcut": "r", "color": "#9be59b"},
        {"key": "SceneE", "label": "Abrupt scene", "description": "A sudden change of setting.",
         "whole_sentence": True, "shortcut": "s", "color": "#9ad0f5"},
    ]  # fmt: skip


def task_url(live_server, assignment):
    return live_server.url + reverse("task-annotate", args=[assignment.token])


def open_task(page, live_server, assignment):
    page.goto(task_url(live_server, assignment))
    page.wait_for_selector(".current-box .segment-text")


# The on-screen box of character `cp` (a code point) of a shown segment,
# found through a Range over its text node: the test then drags the real mouse.
_CHARACTER_BOX = """([segment, cp]) => {
  const root = [...document.querySelectorAll('.segment-text')]
    .find((node) => Number(node.dataset.segment) === segment);
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
  throw new Error('no character ' + cp + ' in segment ' + segment);
}"""


def character_box(page, segment, cp):
    return page.evaluate(_CHARACTER_BOX, [segment, cp])


def drag(page, first, last):
    """Press just before character `first` and release just after character `last`,
    each given as (segment, code point); the caret goes to the nearer edge."""
    page.locator(f'.segment-text[data-segment="{first[0]}"]').scroll_into_view_if_needed()
    start, end = character_box(page, *first), character_box(page, *last)
    page.mouse.move(start["left"] + start["width"] * 0.2, start["y"])
    page.mouse.down()
    page.mouse.move(end["right"] - end["width"] * 0.2, end["y"], steps=5)
    page.mouse.up()


def select_words(page, segment, text, words, occurrence=0):
    """Select `words` (its `occurrence`-th appearance) in `text`; returns its code-point (start, end)."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(words, start + 1)
    end = start + len(words)
    drag(page, (segment, start), (segment, end - 1))
    return start, end
