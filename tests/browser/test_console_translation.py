"""A researcher makes an ESA study in the console from a CSV of translations, in a real browser:
the protocol, the upload (a bad file first, its problems named by line), the score warnings,
the annotators, a preview as a worker and the launch; then the Design tab lists the settings
and makes the study's quality checks.

Every console page is checked at 1280 x 800 and at 390 x 844: nothing scrolls sideways and
axe-core finds no serious or critical violation; each is photographed into
test-results/console-translation/.
"""

from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.services import researcher_create
from annotations.models import Assignment
from studies.models import Study
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in_to_the_console
from tests.browser.translation_page import text_cell

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "console-translation"
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
CSV = (
    "doc_id,system,source,target,reference\n"
    "wetter-1,sysA,Morgen wird es im Norden regnerisch und kühl.,"
    "Tomorrow it will be rainy and cool in the north.,Tomorrow will be rainy and cool in the north.\n"
    "wetter-1,sysA,Im Süden scheint die Sonne.,The sun shines in the south.,In the south the sun will shine.\n"
    "wetter-1,sysB,Morgen wird es im Norden regnerisch und kühl.,"
    "Morning it becomes in the North rainy and cool.,Tomorrow will be rainy and cool in the north.\n"
    "wetter-1,sysB,Im Süden scheint die Sonne.,In the south seems the sun.,In the south the sun will shine.\n"
)
BAD_CSV = "doc_id,system,source,target\nwetter-1,sysA,Im Süden scheint die Sonne.,\n"


def check(page, name):
    """The page as it is, at both widths: photographed, no sideways scroll, no serious axe finding."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)
        page.screenshot(path=str(SHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def choose_file(page, name, text):
    page.set_input_files("#id_files", files=[{"name": name, "mimeType": "text/csv", "buffer": text.encode()}])


def test_a_researcher_makes_an_esa_study_from_a_csv_up_to_launch(browser, live_server, settings):
    settings.SITE_URL = live_server.url
    researcher_create(username="rita", password="pass-w0rd-for-tests")
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in_to_the_console(page, live_server, "rita")

    page.click("#new-study")
    page.fill("#id_title", "Weather reports, German to English")
    page.check("input[name=protocol][value=esa]")
    expect(page.locator("h1", has_text="New study")).to_be_visible()
    check(page, "01-new-study")
    page.click("#next-step")

    expect(page.locator("h2", has_text="Documents")).to_be_visible()
    expect(page.locator("#id_text")).to_have_count(0)  # translations come as a file, not pasted
    check(page, "02-documents")
    choose_file(page, "weather.csv", BAD_CSV)
    page.click("#next-step")
    expect(page.locator("#problems")).to_contain_text("weather.csv:2: the target is empty")
    check(page, "03-documents-problem")
    choose_file(page, "weather.csv", CSV)
    page.click("#next-step")

    expect(page.locator("h2", has_text="Scores")).to_be_visible()
    check(page, "04-scores")
    page.fill("#id_settings-warn_low", "25")
    page.fill("#id_settings-warn_high", "75")
    page.check("#id_settings-show_reference")
    page.click("#next-step")

    expect(page.locator("h2", has_text="Annotators")).to_be_visible()
    page.fill("#id_annotators_per_document", "2")
    page.click("#next-step")

    expect(page.locator("h2", has_text="Preview as a worker")).to_be_visible()
    check(page, "05-preview")
    with page.expect_navigation():
        page.click("#open-preview")
    expect(page.locator("h1", has_text="Instructions")).to_be_visible()  # as a worker: instructions first
    page.click("text=Start")
    page.wait_for_selector(
        "#translation-layout:not(.awaiting-script)"
    )  # the first translation, its source beside it
    expect(text_cell(page, 0, "source")).to_have_text("Morgen wird es im Norden regnerisch und kühl.")
    expect(text_cell(page, 0, "target")).to_have_text("Tomorrow it will be rainy and cool in the north.")
    study = Study.objects.get(title="Weather reports, German to English")
    page.goto(live_server.url + reverse("console:preview", args=[study.pk]))
    page.click("#next-step")

    expect(page.locator("h2", has_text="Launch")).to_be_visible()
    check(page, "06-launch")
    page.check("input[name=stage][value=pilot]")
    page.fill("#id_workers", "ana, ben")
    page.click("#launch")
    expect(page.locator("#join-link")).to_be_visible()
    check(page, "07-run")

    study.refresh_from_db()
    assert study.status == "open" and study.config["stage"] == "pilot"
    assert (
        study.config["score_warnings"] == {"low": 25, "high": 75} and study.config["show_reference"] is True
    )
    assert [(d.external_id, d.meta["sources"][0][:6]) for d in study.documents.order_by("position")] == [
        ("wetter-1#sysA", "Morgen"), ("wetter-1#sysB", "Morgen")
    ]  # fmt: skip
    assert Assignment.objects.filter(study=study).count() == 4  # 2 translations x ana and ben, no preview

    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=design")
    expect(page.locator(".facts")).to_contain_text("below 25 with no error, above 75 with a Major error")
    check(page, "08-design")

    # Quality checks from the same tab: a dropped phrase in every translation, announced.
    expect(page.locator("#quality-checks + p")).to_contain_text("No quality checks yet.")
    page.fill("#id_checks-share", "1")
    page.check("input[name=checks-mode][value=drop]")
    page.check("#id_checks-announced")
    page.click("#make-quality-checks")
    expect(page.locator("body")).to_contain_text("2 new quality checks; 2 of the 2 the share asks for exist.")
    expect(page.locator("#quality-checks + p")).to_contain_text(
        "2 quality checks, one after every main document, announced to workers."
    )
    check(page, "09-quality-checks")
    # The same form by keyboard alone: Tab through it, the announcement turned off with Space.
    page.focus("#id_checks-share")
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    page.keyboard.press("Tab")  # the mode: the checked radio of the group
    expect(page.locator("#id_checks-mode_0")).to_be_focused()
    for field in ("segments", "every", "announced"):
        page.keyboard.press("Tab")
        expect(page.locator(f"#id_checks-{field}")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    expect(page.locator("#id_checks-seed")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#make-quality-checks")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_contain_text(
        "0 new quality checks; 2 of the 2 the share asks for exist. A check after every main document, "
        "silent (workers are not told)."
    )
    checks = study.documents.filter(kind="attention").order_by("position")
    assert [c.meta["original"] for c in checks] == ["wetter-1#sysA", "wetter-1#sysB"]
    assert {c.meta["quality_check"]["mode"] for c in checks} == {"drop"}


@pytest.mark.parametrize("protocol", ["mqm", "da"])
def test_the_mqm_and_da_settings_pages_fit_and_pass_axe(browser, live_server, protocol):
    """MQM's categories with its severities and cap, DA's choice of scale: both widths, no axe finding."""
    from console.services import study_create

    user = researcher_create(username="rita", password="pass-w0rd-for-tests")
    study = study_create(title=f"A {protocol} study", protocol=protocol, user=user)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in_to_the_console(page, live_server, "rita")
    page.goto(live_server.url + reverse("console:documents", args=[study.pk]))
    choose_file(page, "weather.csv", CSV)
    page.click("#next-step")
    if protocol == "mqm":
        expect(page.locator("input[name=source][value=mqm-core]")).to_be_checked()
        expect(page.locator("#id_settings-max_errors")).to_have_value("5")
        page.check("#id_settings-critical")
    else:
        page.check("input[name=settings-scale][value=sqm]")
    check(page, f"09-{protocol}-settings")
    page.click("#next-step")
    expect(page.locator("h2", has_text="Annotators")).to_be_visible()
    study.refresh_from_db()
    if protocol == "mqm":
        assert study.taxonomy.slug == "mqm-core" and study.config["severities"][-1] == "Critical"
    else:
        assert study.config["scale"]["max"] == 6
