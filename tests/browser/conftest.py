"""Headless Chromium (Debian's package) driven by Playwright, against live_server.

A missing browser fails these tests; it never skips them, and so does a
missing axe-core (tests/browser/audit.py: `npm ci --prefix tests/browser`).
"""

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls made
# by the tests between page actions are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


@pytest.fixture(scope="session", autouse=True)
def axe_installed():
    """The accessibility audit's axe-core is installed before any browser test runs."""
    from tests.browser.audit import axe_source

    axe_source()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    assert executable, (
        f"Chromium not found at {CHROMIUM}: install Debian's chromium (scripts/ensure-chromium)"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def _page_in(context):
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs  # an alert() from injected markup would land here
    return page


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield _page_in(context)
    context.close()


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_page(browser):
    """A page the size of a phone's screen (390 x 844 CSS pixels) with a touch screen."""
    context = browser.new_context(viewport=PHONE, has_touch=True)
    yield _page_in(context)
    context.close()
