"""Every page a worker can reach, on a phone (390 x 844) and on a desktop: nothing scrolls
sideways, and axe-core finds no serious or critical accessibility violation
(tests/browser/audit.py). Each page is audited in the states a worker sees: the span page in
mid-text with an annotation, on its last segment, with its submit dialog open, submitted."""

import pytest
from django.urls import reverse

from annotations.services.task import assignment_submit
from protocols.rating.models import Rating
from protocols.span.models import DocumentAnswer
from qualification.services import qualification_result_update
from studies.models import Study
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.rating_pages import ARTICLE, documents, open_rating_page, rating_assignment
from tests.browser.review_page import open_review_page, review_assignment
from tests.browser.task_page import make_task, open_task, select_words
from tests.browser.test_suggestions_page import assisted_task
from tests.factories import ErrorAnnotationFactory
from tests.pairwise.bundles import import_pairwise, pair_assignment, pairwise_documents
from tests.qualification.builders import annotate, make_round, span
from tests.span_questions.questions import questions

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A word longer than a phone's line: nothing may push the page sideways for it.
LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis-and-antidisestablishmentarianism"
LONG_COMMENT = "See https://example.org/a/very/long/address/that/a/worker/pasted/without/any/space/in/it"
LONG_TITLE = "Coherence of book summaries written by large language models, second round (pilot)"
LONG_TEXTS = [
    "Anna met Ben at the old mill by the river. They talked for hours about the harvest, the weather "
    "and the new schoolteacher, who had arrived from the city in the spring.",
    "Then they slept. Élodie woke before dawn and walked to the village, where the baker was already "
    "at work. Anna smiled when she saw her.",
    f"Anna met Ben at the mill. They talked for hours about {LONG_WORD}. Nobody remembered why.",
]


def with_long_title(assignment):
    """The header holds the study's title, the progress and links: a long title must wrap."""
    Study.objects.filter(pk=assignment.study_id).update(title=LONG_TITLE)
    return assignment


def span_mid_text(page, live_server, tmp_path):
    """Segment 3 of 3: text already read above it; in the list a span of a long word, with a
    comment of a long address."""
    assignment = with_long_title(make_task(LONG_TEXTS, current_segment=2, segments_visited=[0, 1, 2]))
    segment = assignment.document.segments.get(index=2)
    category = assignment.study.taxonomy.categories.get(key="CharE")
    start = LONG_TEXTS[2].index(LONG_WORD)
    ErrorAnnotationFactory(assignment=assignment, segment=segment, category=category, start=start,
                           end=start + len(LONG_WORD), text=LONG_WORD, comment=LONG_COMMENT)  # fmt: skip
    open_task(page, live_server, assignment)


def span_mid_annotation(page, live_server, tmp_path):
    """A paired category waiting for its earlier span: the pending span drawn, the prompt and
    message shown, the category pressed."""
    assignment = make_task(LONG_TEXTS, current_segment=1, segments_visited=[0, 1])
    open_task(page, live_server, assignment)
    select_words(page, 1, LONG_TEXTS[1], "Anna smiled")
    page.locator('button.category[data-key="RepE"]').click()
    page.get_by_text("Now select the earlier span").wait_for()


def span_last_segment(page, live_server, tmp_path):
    """The last segment: the questions about the whole text and the note to the researchers."""
    assignment = make_task(
        LONG_TEXTS, config={"document_questions": questions()}, current_segment=2, segments_visited=[0, 1, 2]
    )
    open_task(page, live_server, assignment)


def span_submit_dialog(page, live_server, tmp_path):
    assignment = make_task(LONG_TEXTS, current_segment=2, segments_visited=[0, 1, 2])
    open_task(page, live_server, assignment)
    page.locator("#submit").click()
    page.locator("#submit-dialog[open]").wait_for()


def span_submitted(page, live_server, tmp_path):
    """Read-only: the completion code, the list, the answers about the whole text greyed out."""
    assignment = make_task(
        LONG_TEXTS, config={"document_questions": questions()}, current_segment=2, segments_visited=[0, 1, 2]
    )
    DocumentAnswer.objects.create(assignment=assignment, answers={"coherence": 4, "better": "this one"})
    assignment_submit(token=assignment.token)
    open_task(page, live_server, assignment)
    page.locator("#completion:not([hidden])").wait_for()


def span_suggestions(page, live_server, tmp_path):
    """Two suggestions decided (an undo button, the decided rows), two still to decide."""
    open_task(page, live_server, assisted_task())
    for text, action in (("Anna", "Accept"), ("Ben", "Reject")):
        page.locator(".suggestion-row", has_text=text).get_by_role("button", name=action).click()
    page.locator('.suggestion-row[data-decided="true"]').nth(1).wait_for()


def likert(page, live_server, tmp_path):
    """A ten-point scale with labels at both ends, outputs with a long word."""
    config = {"scale": {"min": 1, "max": 10, "labels": {"1": "very poor indeed", "10": "excellent throughout"}},
              "question": "How consistent is the summary with the article?"}  # fmt: skip
    docs = documents(3, texts=[f"The council voted {LONG_WORD}.", "Second.", "Third."])
    open_rating_page(
        page, live_server, with_long_title(rating_assignment(tmp_path, config=config, docs=docs))
    )
    page.locator('.answer .scale-point:has(input[value="4"])').click()
    page.locator("#unit-status", has_text="Saved: 4").wait_for()


def bws(page, live_server, tmp_path):
    config = {"bws": {"tuple_size": 3, "value_scale": 3, "value_labels": {"1": "slightly", "3": "much"}}}
    docs = documents(4, sources=[ARTICLE] * 4, texts=[f"First {LONG_WORD}.", "Second.", "Third.", "Fourth."])
    open_rating_page(page, live_server, rating_assignment(tmp_path, protocol="bws", config=config, docs=docs))


def pairwise(page, live_server, tmp_path):
    config = {
        "question": "Which summary is better?",
        "strength": {"max": 2, "labels": {1: "slightly", 2: "clearly"}},
    }
    study = import_pairwise(tmp_path, config=config, documents=pairwise_documents(blocks=("b1",), inputs=1))
    assignment = with_long_title(pair_assignment(study))
    page.goto(live_server.url + reverse("task-annotate", args=[assignment.token]))
    page.wait_for_selector("#unit-heading:not(:empty)")


def review(page, live_server, tmp_path):
    """One item answered (its card marked), the others open."""
    open_review_page(page, live_server, with_long_title(review_assignment(tmp_path)))
    page.locator(".item-card").first.locator('fieldset[data-question="span"]').get_by_label(
        "Error", exact=True
    ).click()


def qualification_feedback(page, live_server, tmp_path):
    qualification, document = make_round()
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    mine = annotate(document, "cand", "qualification", [span(document, 0, "mill", "GramE")])
    result = qualification_result_update(qualification=qualification, worker=mine.worker)
    page.goto(live_server.url + reverse("qualification-feedback", args=[result.feedback_token]))
    page.locator("#scores").wait_for()


def join_preview(page, live_server, tmp_path):
    study = make_task(LONG_TEXTS).study
    url = reverse("join", args=[study.join_key]) + "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE"
    page.goto(live_server.url + url)
    page.get_by_text("This is a preview").wait_for()


def join_refused(page, live_server, tmp_path):
    study = make_task(LONG_TEXTS).study
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    page.goto(live_server.url + reverse("join", args=[study.join_key]))
    page.locator("#refused").wait_for()


def instructions(page, live_server, tmp_path):
    assignment = with_long_title(make_task(LONG_TEXTS))
    page.goto(live_server.url + reverse("task-instructions", args=[assignment.token]))
    page.locator("#start").wait_for()


def done(page, live_server, tmp_path):
    """A rating block's completion: the code and the announced second round's long link."""
    config = {"scale": {"min": 1, "max": 5}, "retest_after_days": 7, "announce_retest": True}
    assignment = rating_assignment(tmp_path, config=config)
    for document_id in assignment.items:
        Rating.objects.create(assignment=assignment, document_id=document_id, score=3)
    assignment_submit(token=assignment.token)
    page.goto(live_server.url + reverse("task-done", args=[assignment.token]))
    page.locator("#retest a").wait_for()


WORKER_PAGES = [
    span_mid_text, span_mid_annotation, span_last_segment, span_submit_dialog, span_submitted, span_suggestions,
    likert, bws, pairwise, review, qualification_feedback, join_preview, join_refused, instructions, done,
]  # fmt: skip


@pytest.mark.parametrize("open_page", WORKER_PAGES, ids=lambda f: f.__name__)
def test_on_a_phone_nothing_scrolls_sideways_and_axe_finds_nothing_serious(
    phone_page, live_server, tmp_path, open_page
):
    open_page(phone_page, live_server, tmp_path)
    assert_no_overflow(phone_page)
    assert_accessible(phone_page)


@pytest.mark.parametrize("open_page", WORKER_PAGES, ids=lambda f: f.__name__)
def test_on_a_desktop_axe_finds_nothing_serious(page, live_server, tmp_path, open_page):
    open_page(page, live_server, tmp_path)
    assert_accessible(page)
