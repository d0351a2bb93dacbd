"""The shared checks of tests/browser/audit.py see what they are for: a page that breaks
them fails them, with what a developer needs to fix it; the other tests' silence means something."""

import pytest
from django.urls import reverse

from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.task_page import make_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Added through the DevTools protocol, as the audit itself is: the page's CSP does not apply.
BREAK_IT = """() => {
  const button = document.createElement("button");
  button.className = "nameless";
  const faint = document.createElement("p");
  faint.textContent = "Hard to read";
  faint.style.color = "#eeeeee";
  faint.style.background = "#ffffff";
  const wide = document.createElement("div");
  wide.className = "too-wide";
  wide.style.width = "600px";
  wide.style.height = "10px";
  document.querySelector("main").append(button, faint, wide);
}"""


def instructions_page(page, live_server):
    assignment = make_task()
    page.goto(live_server.url + reverse("task-instructions", args=[assignment.token]))
    page.locator("#start").wait_for()


def test_a_page_that_breaks_the_rules_fails_with_what_to_fix(phone_page, live_server):
    instructions_page(phone_page, live_server)
    assert_no_overflow(phone_page)
    assert_accessible(phone_page)
    phone_page.evaluate(BREAK_IT)

    with pytest.raises(AssertionError) as overflow:
        assert_no_overflow(phone_page)
    assert "scrolls sideways" in str(overflow.value)
    assert "div.too-wide" in str(overflow.value)

    with pytest.raises(AssertionError) as axe:
        assert_accessible(phone_page)
    report = str(axe.value)
    assert "[critical] button-name: Buttons must have discernible text" in report
    assert '<button class="nameless"></button>' in report
    assert "[serious] color-contrast" in report
    assert "dequeuniversity.com" in report  # the rule's help page


def test_lesser_violations_are_returned_not_asserted(page, live_server):
    instructions_page(page, live_server)
    page.evaluate("() => document.querySelector('h1').remove()")
    found = assert_accessible(page)
    assert "page-has-heading-one" in {violation["id"] for violation in found}


# A page that breaks both rules through its stylesheet alone: unstyled, it fits any window and
# its text is black on white.
LATE_PAGE = (
    '<!doctype html><html lang="en"><head><title>Styled late</title><link rel="stylesheet" href="late.css">'
    '</head><body><main><h1>Styled late</h1><p class="faint">Hard to read once styled</p>'
    '<div class="too-wide">Wide once styled</div></main></body></html>'
)
LATE_STYLESHEET = ".too-wide { width: 600px; } .faint { color: #eeeeee; background: #ffffff; }"


@pytest.mark.parametrize(
    "check, finding",
    [(assert_no_overflow, "div.too-wide"), (assert_accessible, "[serious] color-contrast")],
    ids=["overflow", "axe"],
)
def test_a_check_just_after_a_navigation_reads_the_new_page_whole(phone_page, live_server, check, finding):
    """Where a navigating click leaves the test (the new document committed, its stylesheet still
    coming, as on a loaded machine), the check waits for the page to load and so finds what the
    stylesheet breaks, instead of passing on a page not styled yet."""
    url = f"{live_server.url}/styled-late/"

    def late_stylesheet(route):
        phone_page.wait_for_timeout(500)  # a slow response, not a wait of the test's
        route.fulfill(body=LATE_STYLESHEET, content_type="text/css")

    phone_page.route(url, lambda route: route.fulfill(body=LATE_PAGE, content_type="text/html"))
    phone_page.route(url + "late.css", late_stylesheet)
    phone_page.goto(url, wait_until="commit")
    with pytest.raises(AssertionError) as found:
        check(phone_page)
    assert finding in str(found.value)
