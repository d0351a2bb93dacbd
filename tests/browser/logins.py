"""Logging in through the login form, as a researcher does, in a real browser.

Each helper returns only once the page the login leads to has loaded. Pressing the form's button
starts a navigation, and the session cookie comes with its response: Playwright's click waits for
a navigation only when it sees one start during the click, and a test that then went on at once
(a `page.goto`, a check) could cancel that response or read the login page. So the helpers wait
for the address only a logged-in researcher reaches.
"""

from django.urls import reverse

PASSWORD = "pass-w0rd-for-tests"


def log_in(page, live_server, username, password=PASSWORD):
    """Through the admin's login page; returns on the admin's index."""
    page.goto(live_server.url + reverse("admin:login"))
    _submit(page, username, password)
    page.wait_for_url(live_server.url + reverse("admin:index"))


def log_in_to_the_console(page, live_server, username, password=PASSWORD):
    """Through the console's address, which sends a stranger to the login page; returns on the
    console's home (the researcher's studies)."""
    page.goto(live_server.url + reverse("console:home"))
    _submit(page, username, password)
    page.wait_for_url(live_server.url + reverse("console:home"))


def _submit(page, username, password):
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
