"""The researcher's whole path in a real browser, by mouse and keyboard: log in, make a span study
in the console from nothing (no file written by hand), preview it as a worker, launch it, a
worker annotates and submits, read the report, publish its tables.

Every console page is checked at 1280 x 800 and at 390 x 844: nothing scrolls sideways and
axe-core finds no serious or critical violation; each is photographed into test-results/console/.
"""

from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.services import researcher_create
from annotations.models import Assignment
from studies.models import Study
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.task_page import select_words

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "console"
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
TEXTS = (
    "Rosalie tore up the letter. The keeper counted the ships.\n\n"
    "After the incident at the customs house, nobody spoke.\n"
    "---\n"
    "Marguerite sold the orchard in spring.\n\n"
    "The the harbour was quiet for years."
)


def check(page, name):
    """The page as it is, at both widths: photographed, no sideways scroll, no serious axe finding."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)
        page.screenshot(path=str(SHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def next_step(page, heading):
    """Press "Next" and wait until the next step's page stands (its heading shown), so the checks
    never read a page that is still being replaced."""
    with page.expect_navigation():
        page.click("#next-step")
    expect(page.locator("h2", has_text=heading)).to_be_visible()


def test_a_researcher_goes_from_nothing_to_published_tables(browser, live_server, settings, eager_celery):
    settings.SITE_URL = live_server.url  # the task links the console shows
    researcher_create(username="rita", password="pass-w0rd-for-tests")
    researcher = browser.new_context(viewport=DESKTOP)
    page = researcher.new_page()

    page.goto(live_server.url + "/")  # the site's home is the console: first the login
    page.fill("#id_username", "rita")
    page.fill("#id_password", "pass-w0rd-for-tests")
    page.click("input[type=submit]")
    expect(page.locator("#no-studies")).to_be_visible()
    check(page, "01-home-empty")

    steps, typed = 0, 0
    with page.expect_navigation():
        page.click("#new-study")
    expect(page.locator("h1", has_text="New study")).to_be_visible()
    check(page, "02-new-study")
    page.fill("#id_title", "Coherence of summaries")
    typed += 1
    page.check("input[name=protocol][value=span]")
    next_step(page, "Documents")
    steps += 1

    check(page, "03-documents")
    page.fill("#id_text", TEXTS)
    typed += 1
    next_step(page, "Categories")
    steps += 1

    check(page, "04-categories")
    page.check("input[name=source][value=snac]")
    next_step(page, "Annotators and qualification")
    steps += 1

    check(page, "05-annotators")
    page.fill("#id_annotators_per_document", "1")
    typed += 1
    next_step(page, "Preview as a worker")
    steps += 1

    check(page, "06-preview")
    with page.expect_navigation():
        page.click("#open-preview")
    expect(page.locator("h1", has_text="Instructions")).to_be_visible()  # as a worker: instructions first
    page.click("text=Start")
    expect(page.locator(".current-box .segment-text")).to_contain_text("Rosalie")
    page.goto(
        live_server.url + reverse("console:preview", args=[Study.objects.get().pk])
    )  # back to the console
    next_step(page, "Launch")
    steps += 1

    check(page, "07-launch")
    page.check("input[name=stage][value=main]")
    page.fill("#id_workers", "ana")
    typed += 1
    page.click("#launch")
    steps += 1
    assert (steps, typed) == (6, 4)
    expect(page.locator("#join-link")).to_be_visible()
    check(page, "08-run")

    study = Study.objects.get(title="Coherence of summaries")
    assert study.status == "open" and study.documents.count() == 2
    assert not Assignment.objects.filter(study=study, worker__external_id__startswith="preview-").exists()

    # A worker annotates both documents with the mouse and keyboard, and submits.
    worker = browser.new_context(viewport=DESKTOP).new_page()
    for assignment in Assignment.objects.filter(study=study).order_by("document__position"):
        worker.goto(live_server.url + assignment.task_path)
        worker.click("text=Start")
        worker.wait_for_selector(".current-box .segment-text")
        first = assignment.document.segments.get(index=0).text
        select_words(worker, 0, first, first.split()[0])
        worker.keyboard.press("c")  # SNaC's "New character without introduction"
        worker.click("#add")
        expect(worker.locator("#annotation-list li")).to_have_count(1)
        while worker.locator("#next").is_visible():
            worker.click("#next")
        worker.click("#submit")
        worker.click("#submit-confirm")
        expect(worker.locator("#completion-code")).not_to_be_empty()

    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=analyse")
    expect(page.locator("#no-report")).to_be_visible()
    page.click("#compute-report")  # no broker in the test settings: computed before the page returns
    expect(page.locator("#report")).to_be_visible()
    expect(page.locator("#report figure.chart svg").first).to_be_visible()
    check(page, "09-analyse")

    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=publish")
    check(page, "10-publish")
    with page.expect_download() as download:
        page.click("#publish-latex")
    latex = Path(download.value.path()).read_text()
    assert r"\toprule" in latex and "CharE" in latex

    for number, tab in ((11, "design"), (12, "pilot")):
        page.goto(live_server.url + reverse("console:study", args=[study.pk]) + f"?tab={tab}")
        check(page, f"{number}-{tab}")
    page.goto(live_server.url + reverse("console:home"))
    expect(page.locator("#studies-running")).to_contain_text("Coherence of summaries")
    check(page, "13-home")
