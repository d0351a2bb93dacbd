"""The span page on a phone (390 x 844, a touch screen): the categories come with the text, on
the first screen, and the page's words fit a finger as well as a mouse."""

import pytest
from playwright.sync_api import expect

from protocols.span.models import ErrorAnnotation
from tests.browser.task_page import make_task, open_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Three segments of three sentences, as in the published SNaC study (2-4 sentences each).
TEXTS = [
    "Anna met Ben at the old mill by the river. They talked for hours about the harvest and the "
    "weather. The new schoolteacher had arrived from the city in the spring.",
    "Then they slept. Élodie woke before dawn and walked to the village, where the baker was already "
    "at work. Anna smiled when she saw her coming down the lane.",
    "Anna met Ben at the mill again. They talked for hours. Nobody remembered what about.",
]


# What a long press and the selection handles leave behind (Playwright cannot long-press to
# select): a selection over code points [start, end) of a shown segment, set in the page.
_TOUCH_SELECT = """([segment, start, end]) => {
  const root = [...document.querySelectorAll('.segment-text')]
    .find((node) => Number(node.dataset.segment) === segment);
  const characters = [...root.textContent];
  const units = (cp) => characters.slice(0, cp).join('').length;
  const place = (unit) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (unit <= node.length) return [node, unit];
      unit -= node.length;
    }
  };
  const [from, fromOffset] = place(units(start));
  const [to, toOffset] = place(units(end));
  document.getSelection().setBaseAndExtent(from, fromOffset, to, toOffset);
}"""


def touch_select(page, segment, text, words):
    start = TEXTS[segment].index(words)
    page.evaluate(_TOUCH_SELECT, [segment, start, start + len(words)])
    return start, start + len(words)


def top_and_bottom(page, selector):
    return page.evaluate(
        "(selector) => { const box = document.querySelector(selector).getBoundingClientRect();"
        " return [box.top + window.scrollY, box.bottom + window.scrollY]; }",
        selector,
    )


@pytest.mark.parametrize("segment", [0, 1, 2])
def test_the_categories_are_on_the_first_screen_right_under_the_text(phone_page, live_server, segment):
    assignment = make_task(TEXTS, current_segment=segment, segments_visited=list(range(segment + 1)))
    open_task(phone_page, live_server, assignment)
    height = phone_page.evaluate("window.innerHeight")
    _, text_bottom = top_and_bottom(phone_page, "#current")
    first_category = 'button.category[data-key="CharE"]'
    category_top, category_bottom = top_and_bottom(phone_page, first_category)
    assert category_bottom <= height, (
        f"the first category ends {category_bottom:.0f} px down a {height} px screen"
    )
    assert category_top >= text_bottom  # under the text, not over it
    # Nothing but the categories' heading stands between the text and them.
    between = phone_page.evaluate(
        """([text, first]) => [...document.querySelectorAll('main section, main nav, main aside > *')]
          .filter((node) => node.offsetParent !== null)
          .filter((node) => { const box = node.getBoundingClientRect();
            return box.top >= document.querySelector(text).getBoundingClientRect().bottom
              && box.bottom <= document.querySelector(first).getBoundingClientRect().top; })
          .map((node) => node.id || node.className)""",
        ["#current", first_category],
    )
    assert between == [], f"between the text and the categories: {between}"


def test_the_words_on_the_page_fit_touch_and_mouse(phone_page, live_server):
    assignment = make_task(TEXTS)
    open_task(phone_page, live_server, assignment)
    expect(phone_page.locator("#step-prompt")).to_contain_text("select")
    words = phone_page.evaluate("document.body.innerText").lower()
    for mouse_only in ("mouse", "click", "highlight an error span"):
        assert mouse_only not in words, f"the page says {mouse_only!r}"


def test_words_selected_by_touch_become_spans_when_a_category_or_add_is_tapped(phone_page, live_server):
    assignment = make_task(TEXTS, current_segment=1, segments_visited=[0, 1])
    open_task(phone_page, live_server, assignment)
    start, end = touch_select(phone_page, 1, TEXTS[1], "Élodie")
    phone_page.locator('button.category[data-key="CharE"]').tap()
    expect(phone_page.locator("#pending-span-text")).to_have_text("Élodie")
    phone_page.locator("#add").tap()
    expect(phone_page.locator('#annotation-list > li[data-saved="true"]')).to_have_count(1)

    # A paired category: the span, the category, then the earlier span and Add.
    touch_select(phone_page, 1, TEXTS[1], "Anna smiled")
    phone_page.locator('button.category[data-key="RepE"]').tap()
    expect(phone_page.locator("#step-prompt")).to_contain_text("select the earlier span")
    touch_select(phone_page, 0, TEXTS[0], "They talked for hours")
    phone_page.locator("#add").tap()
    expect(phone_page.locator('#annotation-list > li[data-saved="true"]')).to_have_count(2)
    stored = {
        a.category.key: a
        for a in ErrorAnnotation.objects.filter(assignment=assignment).select_related("category")
    }
    assert (stored["CharE"].start, stored["CharE"].end, stored["CharE"].text) == (start, end, "Élodie")
    assert (stored["RepE"].text, stored["RepE"].paired_text) == ("Anna smiled", "They talked for hours")
