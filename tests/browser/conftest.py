"""Headless Chromium (Debian's package) driven by Playwright, against live_server.

A missing browser fails these tests; it never skips them.
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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs  # an alert() from injected markup would land here
    yield page
    context.close()
