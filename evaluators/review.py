"""The review loop: evaluators' spans become a review study, and its verdicts come back into the comparison.

`review_study_create` copies the span study's documents into a new review
study (protocol `review`, the default questions) and makes one review item
per error each evaluator listed in its latest result of each document,
placed or not (a span not found is exactly what reviewers should see).
Reviewers see evaluators only as "Evaluator A, B, ..." in a seeded order, so
a letter does not give away the alphabet of the keys. The category an
evaluator gave opens the explanation ("RepE: ..."), as review items have no
category of their own.

`reviewed_precision` reads the submitted reviews back: per evaluator and
category, the share of reviewer answers to the first question that judge the
span a real error (precision as judged by reviewers).
"""

import random
from collections import defaultdict

from django.db import transaction
from django.db.models import Q

from accounts.models import StudyMembership
from annotations.models import Assignment
from protocols.review.bundle_checks import evaluator_labels
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import REAL_ERROR_OPTIONS, study_questions
from reports.metrics.nullable import put_value
from studies.models import Document, Segment, Study

from .answers import FOUND, NO_SPAN
from .models import EvaluatorResult, EvaluatorReview

SPAN_STATUS = {FOUND: ReviewItem.SpanStatus.FOUND, NO_SPAN: ReviewItem.SpanStatus.NO_SPAN}


class ReviewRefused(ValueError):
    """No review study can be made as asked; the message says why."""


def latest_items(evaluator):
    """{document id: items} of the evaluator's latest result per document (finished runs and running ones)."""
    latest = {}
    results = EvaluatorResult.objects.filter(run__evaluator=evaluator).order_by("created_at", "id")
    for document_id, items in results.values_list("document_id", "items"):
        latest[document_id] = items or []
    return latest


@transaction.atomic
def review_study_create(*, evaluators, slug, title="", user=None, annotators_per_document=3):
    """A review study of the evaluators' spans (all of one span study); returns it."""
    evaluators = list(evaluators)
    if not evaluators:
        raise ReviewRefused("choose at least one evaluator")
    source = evaluators[0].study
    if any(evaluator.study_id != source.pk for evaluator in evaluators):
        raise ReviewRefused("the evaluators must belong to one study")
    if source.protocol != "span":
        # A review item is a span of a document; a translation error lives on one of two sides.
        raise ReviewRefused("review studies are made of a span study's evaluators")
    if Study.objects.filter(slug=slug).exists():
        raise ReviewRefused(f"a study with slug '{slug}' already exists")
    items_of = {evaluator.key: latest_items(evaluator) for evaluator in evaluators}
    if not any(items for by_document in items_of.values() for items in by_document.values()):
        raise ReviewRefused("the evaluators have listed no error yet: run them first")
    order = sorted(items_of)
    random.Random(slug).shuffle(order)  # seeded: the same slug gives the same letters
    labels = evaluator_labels(order)

    study = Study.objects.create(
        slug=slug, title=title or f"Review of the evaluators of {source.title}", protocol="review",
        instructions=source.instructions, annotators_per_document=annotators_per_document,
    )  # fmt: skip
    if user is not None and user.is_authenticated:
        StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    wanted = sorted({document for by_document in items_of.values() for document in by_document})
    copies = _copy_documents(study, wanted)
    categories, rows = [], []
    for document_id in wanted:
        position = 0
        for key in order:
            for item in items_of[key].get(document_id, ()):
                rows.append(_review_item(copies[document_id], position, key, labels[key], item))
                categories.append([copies[document_id].external_id, position, key, item.get("category")])
                position += 1
    ReviewItem.objects.bulk_create(rows, batch_size=2000)
    EvaluatorReview.objects.create(source=source, review=study, evaluators=order, categories=categories)
    return study


def _copy_documents(study, document_ids):
    copies = {}
    originals = Document.objects.filter(pk__in=document_ids).order_by("position", "id")
    for position, original in enumerate(originals):
        copies[original.pk] = Document.objects.create(
            study=study, external_id=original.external_id, input_id=original.input_id, system=original.system,
            source=original.source, meta=original.meta, position=position,
        )  # fmt: skip
    Segment.objects.bulk_create(
        [
            Segment(document=copies[document_id], index=index, text=text, sentences=sentences)
            for document_id, index, text, sentences in Segment.objects.filter(document_id__in=document_ids)
            .order_by("document_id", "index")
            .values_list("document_id", "index", "text", "sentences")
        ],
        batch_size=2000,
    )
    return copies


def _review_item(document, position, key, label, item):
    explanation = item.get("explanation") or ""
    category = item.get("category")
    return ReviewItem(
        document=document, position=position, evaluator=key, label=label,
        span_text=item.get("span") or "", occurrence=item.get("occurrence"),
        explanation=f"{category}: {explanation}" if isinstance(category, str) and category else explanation,
        span_status=SPAN_STATUS.get(item.get("status"), ReviewItem.SpanStatus.NOT_FOUND),
        locations=item.get("locations") or [],
    )  # fmt: skip


def reviewed_precision(source):
    """{evaluator key: {"answers", "judged_errors", "precision", "categories": {...}}} over the
    submitted reviews of every review study made from `source`, or None when there is none."""
    reviews = list(EvaluatorReview.objects.filter(source=source).select_related("review"))
    if not reviews:
        return None
    tallies = defaultdict(lambda: defaultdict(lambda: [0, 0]))  # key -> category -> [errors, answers]
    for review in reviews:
        category_of = {
            (document, position): category for document, position, _, category in review.categories
        }
        first = study_questions(review.review)[0]["key"]
        answers = ReviewAnswer.objects.filter(
            Q(assignment__study=review.review, assignment__status=Assignment.Status.SUBMITTED),
            Q(assignment__kind=Assignment.Kind.MAIN),
        ).values_list("item__evaluator", "item__document__external_id", "item__position", "answers")
        for key, document, position, given in answers:
            verdict = (given or {}).get(first)
            if verdict is None:
                continue
            category = category_of.get((document, position)) or "?"
            for name in (category, "all"):
                tallies[key][name][1] += 1
                tallies[key][name][0] += verdict in REAL_ERROR_OPTIONS
    result = {}
    for key, by_category in tallies.items():
        entry = {"categories": {}}
        for name, (errors, answered) in by_category.items():
            figures = {"answers": answered, "judged_errors": errors}
            put_value(figures, "precision", errors / answered if answered else None, "no answer yet")
            if name == "all":
                entry.update(figures)
            else:
                entry["categories"][name] = figures
        result[key] = entry
    return result
