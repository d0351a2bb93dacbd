"""The suggestion arm's page, driven with a real mouse and keyboard in headless Chromium:
accept, change category, adjust boundaries and reject a model's suggestions; moving on waits."""

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotations.models import Assignment
from protocols.span.assistance.sources import SuggestedSpan, suggestions_replace
from protocols.span.models import ErrorAnnotation, SuggestionDecision
from tests.browser.mouse import press_and_hold
from tests.browser.reloads import reload_when_sent, wait_until_sent
from tests.browser.task_page import make_task, open_task, select_words

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = ["Anna met Ben at the mill. They talked <b>late</b>.", "Then Carl left. Dora stayed."]
CATEGORIES = [
    {"key": "CharE", "label": "New character", "shortcut": "c", "color": "#ffd166"},
    {"key": "LangE", "label": "Language", "shortcut": "l", "color": "#9ad0f5"},
]
ASSISTED = {"assistance": {"share": 0.5, "seed": 1}}
HANG_SECONDS = 30  # how long a save may take before the test calls it lost: bounds a hang, not a speed


def assisted_task(arm="suggestions", **fields):
    assignment = make_task(TEXTS, categories=CATEGORIES, config=ASSISTED, arm=arm, **fields)
    document = assignment.document
    spans = [
        SuggestedSpan(document.pk, 0, *word(0, "Anna"), "CharE"),
        SuggestedSpan(document.pk, 0, *word(0, "Ben"), "CharE"),
        SuggestedSpan(document.pk, 0, *word(0, "mill"), "LangE"),
        SuggestedSpan(document.pk, 0, *word(0, "<b>late</b>"), "LangE"),
        SuggestedSpan(document.pk, 1, *word(1, "Carl"), "CharE"),
    ]
    suggestions_replace(study=assignment.study, spans=spans, source="test")
    return assignment


def word(segment, text):
    start = TEXTS[segment].index(text)
    return start, start + len(text)


def row(page, text):
    return page.locator(".suggestion-row", has_text=text)


def decisions(assignment):
    return {
        d.suggestion.text: (
            d.action,
            d.annotation and (d.annotation.category.key, d.annotation.text),
            d.seconds,
        )
        for d in SuggestionDecision.objects.filter(assignment=assignment).select_related(
            "suggestion", "annotation"
        )
    }


def eventually(page, condition):
    """Whether `condition()` comes true within HANG_SECONDS (a hang bound, not a speed), asked
    every tenth of a second while the page runs."""
    for _ in range(HANG_SECONDS * 10):
        if condition():
            return True
        page.wait_for_timeout(100)
    return condition()


def wait_saved(page, assignment, count):
    page.wait_for_function("() => !document.querySelector('.row-saving')")
    wait_until_sent(page)  # the page has its answers too
    saved = eventually(
        page, lambda: SuggestionDecision.objects.filter(assignment=assignment).count() == count
    )
    assert saved, f"expected {count} decisions, found {decisions(assignment)}"


def test_accept_change_adjust_reject_with_the_mouse(page, live_server):
    assignment = assisted_task()
    open_task(page, live_server, assignment)
    assert page.locator(".hl-suggested").count() == 4  # framed in the text, not filled like annotations
    assert page.locator(".piece.hl").count() == 0
    row(page, "Anna").get_by_role("button", name="Accept").click()
    row(page, "Ben").get_by_role("button", name="Change category").click()
    page.locator("button.category", has_text="Language").click()
    row(page, "mill").get_by_role("button", name="Adjust").click()
    select_words(page, 0, TEXTS[0], "the mill")
    row(page, "mill").get_by_role("button", name="Keep these boundaries").click()
    # "No more errors" waits for the last one.
    page.locator("#next").click()
    assert "Decide on every suggestion" in page.locator("#message").text_content()
    row(page, "late").get_by_role("button", name="Reject").click()
    wait_saved(page, assignment, 4)
    made = decisions(assignment)
    assert made["Anna"][:2] == ("accept", ("CharE", "Anna"))
    assert made["Ben"][:2] == ("change", ("LangE", "Ben"))
    assert made["mill"][:2] == ("adjust", ("LangE", "the mill"))
    assert made["<b>late</b>"][:2] == ("reject", None)
    assert all(seconds > 0 for _, _, seconds in made.values())
    assert page.locator(".hl-suggested").count() == 0
    assert page.locator("#annotation-list li").count() == 3
    assert page.dialogs == []  # the suggested markup stayed text
    # Undo: the annotation goes, the suggestion waits again; then decided otherwise.
    row(page, "Anna").get_by_role("button", name="Undo").click()
    row(page, "Anna").get_by_role("button", name="Reject").click()
    page.locator("#next").click()
    page.wait_for_function(
        "() => document.querySelector('#segment-counter').textContent.startsWith('Segment 2')"
    )
    wait_saved(page, assignment, 4)
    assert decisions(assignment)["Anna"][:2] == ("reject", None)
    assert not ErrorAnnotation.objects.filter(assignment=assignment, text="Anna").exists()
    assert eventually(page, lambda: Assignment.objects.get(pk=assignment.pk).current_segment == 1)


def test_every_decision_by_keyboard_alone(page, live_server):
    assignment = assisted_task()
    open_task(page, live_server, assignment)
    page.keyboard.press("n")  # blocked: the focus goes to the first suggestion to decide
    assert "Decide on every suggestion" in page.locator("#message").text_content()
    assert page.evaluate("document.activeElement.textContent").find("Anna") >= 0
    page.keyboard.press("a")  # accept; the focus moves on to "Ben"
    page.keyboard.press("g")  # change category ...
    page.keyboard.press("l")  # ... to Language
    page.keyboard.press("j")  # adjust "mill": the end one word on, the start one word back
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("Enter")
    page.keyboard.press("x")  # reject "<b>late</b>"
    wait_saved(page, assignment, 4)
    made = decisions(assignment)
    assert made["Anna"][:2] == ("accept", ("CharE", "Anna"))
    assert made["Ben"][:2] == ("change", ("LangE", "Ben"))
    assert made["mill"][:2] == ("adjust", ("LangE", "the mill. They"))
    assert made["<b>late</b>"][:2] == ("reject", None)
    page.keyboard.press("Enter")  # the focus is on "No more errors: next segment"
    page.wait_for_function(
        "() => document.querySelector('#segment-counter').textContent.startsWith('Segment 2')"
    )
    assert page.locator(".suggestion-row").count() == 1  # Carl, in segment 2
    # The move is stored before the test ends: a request still running on the live server when
    # the test's database is emptied can deadlock with it on PostgreSQL.
    page.wait_for_function("() => !Object.keys(localStorage).some((k) => k.startsWith('falte-task-queue:'))")
    assert eventually(page, lambda: type(assignment).objects.get(pk=assignment.pk).current_segment == 1)


def test_decisions_survive_a_reload_and_going_offline(page, live_server):
    assignment = assisted_task()
    open_task(page, live_server, assignment)
    row(page, "Anna").get_by_role("button", name="Accept").click()
    wait_saved(page, assignment, 1)
    page.context.set_offline(True)
    row(page, "Ben").get_by_role("button", name="Reject").click()
    page.wait_for_timeout(300)
    assert SuggestionDecision.objects.filter(assignment=assignment).count() == 1
    assert "Rejected" in row(page, "Ben").text_content()  # shown at once, sent when back online
    assert page.evaluate("Object.keys(localStorage).some((k) => localStorage[k].includes('decide'))")
    page.context.set_offline(False)
    wait_saved(page, assignment, 2)
    assert decisions(assignment)["Ben"][0] == "reject"
    reload_when_sent(page)  # the server's decisions come back with the page
    page.wait_for_selector(".suggestion-row")
    assert "Accepted" in row(page, "Anna").text_content()
    assert "Rejected" in row(page, "Ben").text_content()
    assert page.locator(".hl-suggested").count() == 2


@pytest.mark.parametrize("fields", [{"arm": "control"}, {"arm": "suggestions", "kind": "gold"},
                                    {"arm": "suggestions", "kind": "qualification"}])  # fmt: skip
def test_the_control_arm_and_gold_never_receive_suggestions(page, live_server, fields):
    assignment = assisted_task(**fields)
    open_task(page, live_server, assignment)
    data = json.loads(page.locator("#task-data").text_content())
    assert "suggestions" not in data
    state = page.request.get(live_server.url + reverse("task-api-state", args=[assignment.token])).json()
    assert "suggestions" not in state
    assert page.locator("#suggestions-panel").is_hidden()
    assert page.locator(".hl-suggested").count() == 0
    page.keyboard.press("n")  # the ordinary page: nothing waits
    page.wait_for_function(
        "() => document.querySelector('#segment-counter').textContent.startsWith('Segment 2')"
    )


def test_undo_right_after_a_reject_by_keyboard(page, live_server):
    """x rejects and u takes it back at once, wherever the focus went after the reject: to the next
    suggestion, or to "next segment" after the last one."""
    assignment = assisted_task()
    open_task(page, live_server, assignment)
    row(page, "Anna").focus()
    page.keyboard.press("x")  # reject "Anna"; the focus moves on to "Ben"
    expect(row(page, "Anna")).to_contain_text("Rejected")
    page.keyboard.press("u")
    expect(row(page, "Anna")).to_contain_text("to decide")
    expect(row(page, "Anna")).to_be_focused()
    for _ in range(4):
        page.keyboard.press("x")  # Anna, Ben, mill, late: the last sends the focus to "next segment"
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("u")  # takes back the last one, "late"
    expect(row(page, "late")).to_contain_text("to decide")
    expect(row(page, "late")).to_be_focused()
    page.keyboard.press("a")
    wait_saved(page, assignment, 4)
    made = decisions(assignment)
    assert {text: action for text, (action, _, _) in made.items()} == {
        "Anna": "reject", "Ben": "reject", "mill": "reject", "<b>late</b>": "accept"
    }  # fmt: skip


def test_the_control_arm_page_its_data_and_its_scripts_say_nothing_of_suggestions(page, live_server):
    """Arms stay blind: the control arm's page, its JSON (page data and every API answer it gets),
    its scripts and its style sheets hold no suggestion panel, address, module or word."""
    assignment = assisted_task(arm="control")
    loaded = []
    page.on("response", lambda response: loaded.append(response))
    open_task(page, live_server, assignment)
    select_words(page, 0, TEXTS[0], "Anna")
    page.keyboard.press("c")
    page.keyboard.press("Enter")
    expect(page.locator('#annotation-list > li[data-saved="true"]')).to_have_count(1)
    page.locator("#annotation-list button.remove").click()
    with page.expect_response("**/move/"):
        page.keyboard.press("n")
    fetched = ("document", "fetch", "script", "stylesheet")
    answers = [(r.url, r.text()) for r in loaded if r.request.resource_type in fetched]
    state = page.request.get(live_server.url + reverse("task-api-state", args=[assignment.token]))
    answers.append((state.url, state.text()))
    assert {r.request.resource_type for r in loaded} >= set(fetched)
    assert {r.request.method for r in loaded if r.request.resource_type == "fetch"} >= {"POST", "DELETE"}
    scripts = [url for url, _ in answers if url.endswith(".js")]
    assert any(url.endswith("/span/main.js") for url in scripts)
    for url, body in answers:
        assert "suggest" not in url.lower() and "suggest" not in body.lower(), f"{url} mentions suggestions"
    # The page data too, as the page holds it.
    assert "suggest" not in page.locator("#task-data").text_content().lower()
    # The control arm's worker still works as on any page.
    assert page.locator("#segment-counter").text_content() == "Segment 2 of 2"


def test_a_click_held_while_an_earlier_save_is_answered_still_counts(page, live_server):
    """The answer to an earlier save re-draws the panels; a button the worker is pressing at that
    moment must keep its node, or the release lands on a new one and the click is lost (the
    suggestion stays undecided and "next segment" refuses with no visible reason)."""
    assignment = assisted_task()
    open_task(page, live_server, assignment)
    held = []
    # The first decision's request waits until released below; later ones go at once.
    page.route("**/suggestions/**", lambda route: route.continue_() if held else held.append(route))
    row(page, "Anna").get_by_role("button", name="Accept").click()
    assert eventually(page, lambda: len(held) == 1)
    press_and_hold(page, row(page, "Ben").get_by_role("button", name="Reject"))
    held[0].continue_()
    # Answered: the annotation it added is marked saved, which re-draws both panels.
    page.wait_for_function("() => !document.querySelector('.row-saving')")
    page.mouse.up()
    expect(row(page, "Ben")).to_contain_text("Rejected")
    wait_saved(page, assignment, 2)
    assert decisions(assignment)["Ben"][:2] == ("reject", None)
