"""Headless Chromium (Debian's package) driven by Playwright, against live_server.

A missing browser fails these tests; it never skips them, and so does a
missing axe-core (tests/browser/audit.py: `npm ci --prefix tests/browser`).
"""

import os
import shutil
import threading

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
def chromium():
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    assert executable, (
        f"Chromium not found at {CHROMIUM}: install Debian's chromium (scripts/ensure-chromium)"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def live_server(live_server):
    """pytest-django's live server, counting the connections it is still serving.

    A request the browser sent just before a test ended may still be running on the server when the
    test's database is emptied; on PostgreSQL its transaction and the flush can deadlock. The page
    `browser` fixture closes the contexts a test opened and then waits here until the server has finished every
    connection, so nothing outlives the test's data.
    """
    httpd = live_server.thread.httpd
    serve = httpd.process_request_thread
    open_connections = [0]
    idle = threading.Condition()

    def counted(*args):
        with idle:
            open_connections[0] += 1
        try:
            serve(*args)
        finally:
            with idle:
                open_connections[0] -= 1
                idle.notify_all()

    def wait_idle(timeout=30):
        with idle:
            finished = idle.wait_for(lambda: open_connections[0] == 0, timeout)
        assert finished, f"the live server still serves {open_connections[0]} connection(s) after the test"

    httpd.process_request_thread = counted  # ThreadingMixIn starts each connection's thread on this
    live_server.wait_idle = wait_idle
    return live_server


class _TestBrowser:
    """The session's Chromium as one test sees it: the contexts the test opens are closed after it."""

    def __init__(self, chromium):
        self._chromium = chromium
        self.contexts = []

    def new_context(self, **options):
        context = self._chromium.new_context(**options)
        self.contexts.append(context)
        return context

    def __getattr__(self, name):
        return getattr(self._chromium, name)


@pytest.fixture
def browser(chromium, request):
    """Every context a test opens is closed when it ends, and then the live server is waited for."""
    browser = _TestBrowser(chromium)
    yield browser
    for context in browser.contexts:
        context.close()
    if "live_server" in request.fixturenames:
        request.getfixturevalue("live_server").wait_idle()


def _page_in(context):
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs  # an alert() from injected markup would land here
    return page


@pytest.fixture
def page(browser):
    return _page_in(browser.new_context(viewport={"width": 1280, "height": 900}))


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_page(browser):
    """A page the size of a phone's screen (390 x 844 CSS pixels) with a touch screen."""
    return _page_in(browser.new_context(viewport=PHONE, has_touch=True))
