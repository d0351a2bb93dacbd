"""ESA-AI on the translation page: the suggestion arm's page starts with a judge's errors, badged
"Suggested" in the text and in the list, removed with the ordinary Remove; the control arm's page,
its data, every answer it gets, its scripts and its style sheets hold no word of suggestions."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from protocols.translation.assistance.sources import Suggestion, suggested_errors_replace
from protocols.translation.models import TranslationError
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.reloads import reload_when_sent
from tests.browser.translation_page import error_rows, open_page, row, wait_saved
from tests.factories import AssignmentFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db(transaction=True)


def assisted(arm):
    """An assignment of sysA in an assisted ESA study whose suggestions are "barks" (Minor) in
    segment 1 and "raining" (Major) in segment 3."""
    study = make_translation_study("esa", taxonomy=None, config={"assistance": {"share": 0.5, "seed": 1}})
    document = study.documents.get(system="sysA")
    suggested_errors_replace(
        study=study,
        errors=[Suggestion(document.pk, 0, "target", 8, 13, None, "Minor"),
                Suggestion(document.pk, 2, "target", 6, 13, None, "Major")],
        source="evaluator gpt-judge, run 1",
    )  # fmt: skip
    return AssignmentFactory(study=study, document=document, arm=arm)


def test_the_suggestion_arms_page_starts_with_the_judges_errors_and_removes_them(page, live_server):
    assignment = assisted("suggestions")
    open_page(page, live_server, assignment)
    wait_saved(page, 1, segment=0)
    first = error_rows(page, 0).first
    expect(first.locator(".error-badge")).to_have_text("Suggested")
    expect(first).to_contain_text("barks")
    expect(row(page, 0).locator(".piece.hl.hl-badged.sev-minor")).to_have_text("barks")
    expect(row(page, 0).locator(".piece.hl-badged")).to_have_attribute("title", "Suggested: Minor")
    for size in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)

    with page.expect_response(lambda r: r.request.method == "DELETE"):
        first.locator("button.remove").click()
    expect(error_rows(page, 0)).to_have_count(0)
    assert list(TranslationError.objects.filter(assignment=assignment).values_list("text", flat=True)) == [
        "raining"
    ]
    reload_when_sent(page)
    page.wait_for_selector("#translation-layout:not(.awaiting-script)")
    expect(error_rows(page, 0)).to_have_count(0)  # given once: a removed suggestion stays removed


def test_the_control_arms_page_its_data_and_its_files_say_nothing_of_suggestions(page, live_server):
    assignment = assisted("control")
    loaded = []
    page.on("response", lambda response: loaded.append(response))
    open_page(page, live_server, assignment)
    expect(page.locator(".error-list > li")).to_have_count(0)
    page.locator("#score-number").fill("70")
    with page.expect_response("**/translation/scores/"):
        page.locator("#score-number").press("Enter")
    fetched = ("document", "fetch", "script", "stylesheet")
    answers = [(r.url, r.text()) for r in loaded if r.request.resource_type in fetched]
    state = page.request.get(live_server.url + reverse("task-api-state", args=[assignment.token]))
    answers.append((state.url, state.text()))
    assert {r.request.resource_type for r in loaded} >= set(fetched)
    assert any(url.endswith("/translation/render.js") for url, _ in answers)
    for url, body in answers:
        assert "suggest" not in url.lower() and "suggest" not in body.lower(), f"{url} mentions suggestions"
    assert "suggest" not in page.locator("#task-data").text_content().lower()
    assert json.loads(state.text())["errors"] == []
