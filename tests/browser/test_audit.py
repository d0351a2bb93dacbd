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
