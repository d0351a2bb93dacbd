"""Two whole translation campaigns, ESA and MQM, as their people run them in a real browser.

The researcher makes the study in the console from a CSV of two source documents translated by
three systems (one polished, one fair, one broken), previews it and launches it; quality checks
are made (a degraded copy of every translation, both segments changed); two workers come
through the join link in browsers of their own and do three documents and two checks each with
the mouse and the keyboard; one of them catches the degraded copies, the other does not. The
researcher computes the report on the Analyse tab, reads the ranking, the systems' scores and
the quality-check table there, and downloads the published CSV tables.
"""

import csv
import io
import re
import zipfile
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.pseudonyms import pseudonyms_of
from accounts.services import researcher_create
from annotations.models import Assignment
from protocols.translation.keys import QUALITY_CHECK
from protocols.translation.quality_checks.making import quality_checks_make
from studies.models import Document, Study
from tests.browser.logins import log_in_to_the_console
from tests.browser.test_console_translation import choose_file
from tests.browser.translation_page import (
    category,
    next_segment,
    progress,
    select_words,
    submit_by_keyboard,
    text_cell,
    wait_saved,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PASSWORD = "pass-w0rd-for-tests"
SOURCES = {
    "wetter": ["Morgen wird es im Norden regnerisch und kühl.", "Im Süden scheint den ganzen Tag die Sonne."],
    "markt": ["Der Markt öffnet jeden Samstag um acht Uhr.", "Die Bauern verkaufen dort Obst und Gemüse."],
}
TRANSLATIONS = {
    "polished": {
        "wetter": ["Tomorrow it will be rainy and cool in the north.", "In the south the sun will shine all day."],
        "markt": ["The market opens every Saturday at eight o'clock.", "The farmers sell fruit and vegetables there."],
    },
    "fair": {
        "wetter": ["Tomorrow it becomes rainy and cool in the north.", "In the south shines the sun the whole day."],
        "markt": ["The market opens each Saturday around eight hour.", "The farmers sell there fruit and vegetable."],
    },
    "broken": {
        "wetter": ["Morning becomes it in North rainy cool and the.", "South in seems whole the day sun the."],
        "markt": ["Market the opens Saturday every by eight clock.", "Farmers the sell there obst and gemüse."],
    },
}  # fmt: skip
SYSTEMS = list(TRANSLATIONS)  # best first
# What a worker scores (ESA) each segment of a system's translation, and the words they mark in it.
ESA_SCORES = {"polished": (92, 88), "fair": (64, 58), "broken": (14, 9)}
MARKED = {"fair": (None, "Minor"), "broken": (0, "Major")}  # (which word of each segment, severity)


def campaign_csv():
    rows = ["doc_id,system,source,target"]
    for doc_id, sources in SOURCES.items():
        for system in SYSTEMS:
            for source, target in zip(sources, TRANSLATIONS[system][doc_id], strict=True):
                rows.append(f"{doc_id},{system},{source},{target}")
    return "\n".join(rows) + "\n"


# --- the researcher in the console -----------------------------------------------------------


def researcher_launches(browser, live_server, *, title, protocol, settings_step):
    """The new-study flow of the console, from the protocol to the launch; returns the researcher's
    page, the study and its join link as the Run tab shows it."""
    researcher_create(username="rita", password=PASSWORD)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in_to_the_console(page, live_server, "rita", PASSWORD)
    page.click("#new-study")
    page.fill("#id_title", title)
    page.check(f"input[name=protocol][value={protocol}]")
    page.click("#next-step")

    expect(page.locator("h2", has_text="Documents")).to_be_visible()
    choose_file(page, "campaign.csv", campaign_csv())
    page.click("#next-step")
    settings_step(page)
    page.click("#next-step")

    expect(page.locator("h2", has_text="Annotators")).to_be_visible()
    page.fill("#id_annotators_per_document", "1")
    page.click("#next-step")

    expect(page.locator("h2", has_text="Preview as a worker")).to_be_visible()
    with page.expect_navigation():
        page.click("#open-preview")
    page.click("text=Start")
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(text_cell(page, 0, "source")).to_have_text(SOURCES["wetter"][0])
    expect(text_cell(page, 0, "target")).to_have_text(TRANSLATIONS["polished"]["wetter"][0])
    study = Study.objects.get(title=title)
    page.goto(live_server.url + reverse("console:preview", args=[study.pk]))
    page.click("#next-step")

    expect(page.locator("h2", has_text="Launch")).to_be_visible()
    page.check("input[name=stage][value=main]")
    page.click("#launch")
    join_link = page.locator("#join-link")
    expect(join_link).to_be_visible()
    study.refresh_from_db()
    assert study.status == "open" and study.documents.count() == 6
    return page, study, join_link.get_attribute("href")


def researcher_reads_the_report(page, live_server, study):
    """Compute the report on the Analyse tab; returns the ranking's systems, the systems table's
    (system, score) rows and the quality-check table's rows by annotator."""
    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=analyse")
    page.click("#compute-report")  # Celery runs eager in the tests: computed before the page returns
    expect(page.locator("#report")).to_be_visible()
    ranking = page.locator("#ranking-table tbody tr")
    expect(ranking).to_have_count(3)
    ranked = [row.locator("td").nth(2).inner_text() for row in ranking.all()]
    systems = {
        row.locator("td").nth(0).inner_text(): float(row.locator("td").nth(1).inner_text())
        for row in page.locator("#translation-systems-table tbody tr").all()
    }
    checks = {}
    headers = page.locator("#quality-control-table thead th").all_inner_texts()
    for row in page.locator("#quality-control-table tbody tr").all():
        cells = dict(zip(headers, row.locator("td").all_inner_texts(), strict=True))
        checks[cells["annotator"]] = cells
    return ranked, systems, checks


def checked(row):
    """A quality-check row's checks submitted, checks flagged, pairs and result."""
    return row["checks"], row["flagged"], row["pairs"], row["result"]


def published_ranking(page, live_server, study):
    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=publish")
    with page.expect_download() as download:
        page.click("#publish-csv")
    archive = zipfile.ZipFile(Path(download.value.path()))
    return list(csv.reader(io.StringIO(archive.read("ranking.csv").decode())))


# --- the workers on the translation page -----------------------------------------------------


def joins(page, join_link):
    """Through the join link to the instructions, Start, the translation page; the assignment."""
    page.goto(join_link)
    page.click("text=Start")
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    token = page.url.split("/task/")[1].split("/")[0]
    return Assignment.objects.select_related("document").get(token=token)


def injected(document, index):
    """The phrase put into segment `index` of a quality check, and which of its appearances it is."""
    for gold in document.meta[QUALITY_CHECK]["segments"]:
        if gold["index"] == index:
            text = document.segments.get(index=index).text
            return gold["inserted"], text[: gold["start"]].count(gold["inserted"])
    return None


def marks(page, segment, words, severity_key, occurrence=0, category_key=None):
    """Drag the mouse over the words, then the category's letter (MQM) and the severity's digit."""
    select_words(page, segment, words, occurrence=occurrence)
    if category_key:
        page.keyboard.press(category_key)
        expect(category(page, "Mistranslation")).to_have_attribute("aria-pressed", "true")
    with page.expect_response("**/translation/errors/"):
        page.keyboard.press(severity_key)


def scores(page, value, by_slider=False):
    """An ESA score typed in the number field and Enter, or clicked near `value` on the slider with
    the mouse; returns the score saved."""
    if by_slider:
        box = page.locator("#score-range").bounding_box()
        with page.expect_response("**/translation/scores/"):
            page.mouse.click(box["x"] + box["width"] * value / 100, box["y"] + box["height"] / 2)
        expect(page.locator("#score-status")).to_have_text(re.compile(r"Saved: \d+\."))
        return int(page.locator("#score-status").inner_text().split()[1].rstrip("."))
    page.locator("#score-number").fill(str(value))
    with page.expect_response("**/translation/scores/"):
        page.locator("#score-number").press("Enter")
    expect(page.locator("#score-status")).to_have_text(f"Saved: {value}.")
    page.keyboard.press("Escape")  # out of the number field, for the page's keys
    return value


def does_a_document(page, assignment, *, protocol, careful, given):
    """Every segment in order, then Submit by keyboard. A careful worker marks a quality check's
    injected phrase as a Major error and (ESA) scores its segments 40 lower than the original's.
    The ESA scores of main documents are added to `given`, by system."""
    document = assignment.document
    is_check = document.kind == Document.Kind.ATTENTION
    keys = page.locator("button.severity").evaluate_all("buttons => buttons.map(b => b.dataset.severity)")
    digit = {name: str(n + 1) for n, name in enumerate(keys)}
    letter = "m" if protocol == "mqm" else None
    errors = 0
    for index in range(document.segments.count()):
        if index:
            next_segment(page)
        expect(progress(page)).to_contain_text(f"Segment {index + 1} of 2")
        text = document.segments.get(index=index).text
        if document.system in MARKED:
            word, severity = MARKED[document.system]
            words = text.split()[index if word is None else word].strip(".")
            marks(page, index, words, digit[severity], category_key=letter)
            errors += 1
        phrase = injected(document, index) if is_check else None
        if phrase and careful:
            marks(page, index, phrase[0], digit["Major"], occurrence=phrase[1], category_key=letter)
            errors += 1
        wait_saved(page, errors)
        if protocol == "esa":
            score = ESA_SCORES[document.system][index]
            if is_check and careful:
                score = max(score - 40, 0)
            # The broken system by the slider, with the mouse: near the score, whatever it saves.
            saved = scores(page, score, by_slider=document.system == "broken")
            if not is_check:
                given.setdefault(document.system, []).append(saved)
    submit_by_keyboard(page)
    expect(page.locator("#completion-code")).to_be_visible()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    return assignment


def worker_runs(browser, join_link, *, protocol, careful, given, documents=5):
    """A worker in a browser of their own: joins, does the document, joins again, `documents` times."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    done = [
        does_a_document(page, joins(page, join_link), protocol=protocol, careful=careful, given=given)
        for _ in range(documents)
    ]
    context.close()
    kinds = [a.document.kind for a in done]
    assert kinds == ["main", "attention", "main", "attention", "main"]  # a check after each original
    return done


def run_campaign(browser, live_server, *, protocol, title, settings_step):
    page, study, join_link = researcher_launches(
        browser, live_server, title=title, protocol=protocol, settings_step=settings_step
    )
    made = quality_checks_make(study=study, share=1.0, seed=2, segments=2, every=1)
    assert len(made.created) == 6
    given = {}
    careful = worker_runs(browser, join_link, protocol=protocol, careful=True, given=given)
    careless = worker_runs(browser, join_link, protocol=protocol, careful=False, given=given)
    # Every translation done once, by one of them.
    assert sorted(a.document.external_id for a in careful + careless if a.document.kind == "main") == sorted(
        d.external_id for d in study.documents.filter(kind="main")
    )
    assert [a.flagged for a in careful] == [False] * 5
    assert [a.flagged for a in careless] == [False, True, False, True, False]
    pseudonym = pseudonyms_of(study.pk)
    names = {pseudonym(careful[0].worker_id): "careful", pseudonym(careless[0].worker_id): "careless"}
    ranked, systems, checks = researcher_reads_the_report(page, live_server, study)
    return page, study, ranked, systems, {names[name]: row for name, row in checks.items()}, given


def test_an_esa_campaign_from_the_csv_to_the_published_ranking(browser, live_server, settings, eager_celery):
    settings.SITE_URL = live_server.url

    def esa_settings(page):
        expect(page.locator("h2", has_text="Scores")).to_be_visible()

    page, study, ranked, systems, checks, given = run_campaign(
        browser, live_server, protocol="esa", title="Weather and market, ESA", settings_step=esa_settings
    )
    assert ranked == ["polished", "fair", "broken"]
    # The mean of each system's four scores (the checks count in none), to three places.
    assert systems == {system: round(sum(v) / len(v), 3) for system, v in given.items()}
    assert systems["polished"] == 90.0 and systems["fair"] == 61.0 and systems["broken"] < 25
    careful, careless = checks["careful"], checks["careless"]
    assert checked(careful) == ("2", "0", "4", "pass")
    assert careful["scored worse"] == "100 %" and careful["injected span marked"] == "100 %"
    assert checked(careless) == ("2", "2", "4", "fail")
    assert careless["scored worse"] == "0 %" and careless["injected span marked"] == "0 %"

    ranking = published_ranking(page, live_server, study)
    assert [row[2] for row in ranking[1:]] == ["polished", "fair", "broken"]


def test_an_mqm_campaign_from_the_csv_to_the_published_ranking(browser, live_server, settings, eager_celery):
    settings.SITE_URL = live_server.url

    def mqm_settings(page):
        expect(page.locator("input[name=source][value=mqm-core]")).to_be_checked()

    page, study, ranked, systems, checks, _ = run_campaign(
        browser, live_server, protocol="mqm", title="Weather and market, MQM", settings_step=mqm_settings
    )
    study.refresh_from_db()
    assert study.taxonomy.slug == "mqm-core"
    assert ranked == ["polished", "fair", "broken"]
    # Lower is better: no error, a Minor (1) and a Major (5) error in every segment.
    assert systems == {"polished": 0.0, "fair": 1.0, "broken": 5.0}
    careful, careless = checks["careful"], checks["careless"]
    assert checked(careful) == ("2", "0", "4", "pass")
    assert careful["injected span marked"] == "100 %"
    assert checked(careless) == ("2", "2", "4", "fail")
    assert careless["injected span marked"] == "0 %"

    ranking = published_ranking(page, live_server, study)
    assert ranking[0][3] == "MQM score" and [row[2] for row in ranking[1:]] == ["polished", "fair", "broken"]
