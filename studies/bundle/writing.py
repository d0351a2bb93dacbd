"""Write checked specs to the database. Called only when checking found nothing.

Rows go in with bulk_create in batches, which keeps a 300,000-segment import
to seconds and its memory to one batch of segments at a time.
"""

from datetime import UTC

from django.db import transaction
from django.db.models import Max
from django.utils.dateparse import parse_datetime

from accounts.models import StudyMembership, Worker
from annotations.models import (
    Assignment,
    BestWorstJudgment,
    ErrorAnnotation,
    Rating,
    ReviewAnswer,
    ReviewItem,
)
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets

DOCUMENT_BATCH = 500
ROW_BATCH = 5000


@transaction.atomic
def write_study(spec, documents, assignments, *, user=None, review_items=()):
    taxonomy = _taxonomy_for(spec.taxonomy, user) if spec.taxonomy else None
    study = Study.objects.create(
        slug=spec.slug,
        title=spec.title,
        protocol=spec.protocol,
        taxonomy=taxonomy,
        instructions=spec.instructions,
        status=spec.status,
        annotators_per_document=spec.annotators_per_document,
        max_documents_per_worker=spec.max_documents_per_worker,
        config=spec.config,
    )
    if user is not None and user.is_authenticated:
        StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    segment_ids = write_documents(study, documents, keep_segment_ids=bool(assignments))
    if study.protocol == "review":
        write_review(study, review_items, assignments)
        return study
    write_assignments(study, assignments, segment_ids)
    return study


def _submitted_assignments(study, assignments, workers, document_ids):
    """One submitted assignment per spec of a document study (span or review)."""
    return Assignment.objects.bulk_create(
        [
            Assignment(
                study=study,
                document_id=document_ids[spec.document],
                worker=workers[(spec.platform, spec.annotator)],
                kind=spec.kind,
                block=spec.block,
                status=Assignment.Status.SUBMITTED,
                active_seconds=spec.active_seconds,
                submitted_at=_aware(spec.submitted_at),
            )  # fmt: skip
            for spec in assignments
        ],
        batch_size=ROW_BATCH,
    )


def write_review(study, items, assignments):
    """Evaluator items (labelled Evaluator A, B, ... in order of appearance) and reviewers' answers."""
    from studies.bundle.review_checks import evaluator_labels

    document_ids = dict(study.documents.values_list("external_id", "id"))
    labels = evaluator_labels(item["evaluator"] for item in items)
    rows = ReviewItem.objects.bulk_create(
        [
            ReviewItem(
                document_id=document_ids[i["document"]],
                position=i["position"],
                evaluator=i["evaluator"],
                label=labels[i["evaluator"]],
                span_text=i["span_text"],
                explanation=i["explanation"],
                occurrence=i["occurrence"],
                span_status=i["span_status"],
                locations=i["locations"],
            )  # fmt: skip
            for i in items
        ],
        batch_size=ROW_BATCH,
    )
    item_ids = {(row.document_id, row.position): row.pk for row in rows}
    if not assignments:
        return
    workers = _workers_for({(spec.platform, spec.annotator) for spec in assignments})
    made = _submitted_assignments(study, assignments, workers, document_ids)
    ReviewAnswer.objects.bulk_create(
        [
            ReviewAnswer(
                assignment=row, item_id=item_ids[(row.document_id, entry["item"])], answers=entry["answers"]
            )
            for row, spec in zip(made, assignments, strict=True)
            for entry in spec.annotations
        ],
        batch_size=ROW_BATCH,
    )


def _taxonomy_for(spec, user):
    existing = Taxonomy.objects.filter(slug=spec.slug, version=spec.version).first()
    if existing is not None:  # checking made sure its categories are the same
        return existing
    taxonomy = Taxonomy.objects.create(
        slug=spec.slug, name=spec.name, version=spec.version, description=spec.description,
        created_by=user if user is not None and user.is_authenticated else None,
    )  # fmt: skip
    Category.objects.bulk_create(
        Category(taxonomy=taxonomy, **category.as_dict()) for category in spec.categories
    )
    return taxonomy


@transaction.atomic
def write_documents(study, documents, *, keep_segment_ids=False):
    """Store documents and their segments (sentences computed when not given).

    Returns {(external_id, index): segment id} when asked, for annotations.
    """
    position = (study.documents.aggregate(last=Max("position"))["last"] or 0) + 1
    segment_ids = {}
    for begin in range(0, len(documents), DOCUMENT_BATCH):
        batch = documents[begin : begin + DOCUMENT_BATCH]
        rows = Document.objects.bulk_create(
            Document(
                study=study,
                external_id=spec.external_id,
                input_id=spec.input_id,
                system=spec.system,
                source=spec.source,
                meta=spec.meta,
                kind=spec.kind,
                position=position + offset,
                block=spec.block,
            )  # fmt: skip
            for offset, spec in enumerate(batch, start=begin)
        )
        segments = [
            Segment(
                document=row,
                index=index,
                text=text,
                sentences=spec.sentences[index] if spec.sentences else sentence_offsets(text),
            )
            for row, spec in zip(rows, batch, strict=True)
            for index, text in enumerate(spec.segments)
        ]
        Segment.objects.bulk_create(segments, batch_size=ROW_BATCH)
        if keep_segment_ids:
            for segment in segments:
                segment_ids[(segment.document.external_id, segment.index)] = segment.pk
    return segment_ids


def write_assignments(study, assignments, segment_ids):
    if not assignments:
        return
    workers = _workers_for({(spec.platform, spec.annotator) for spec in assignments})
    document_ids = dict(study.documents.values_list("external_id", "id"))
    if study.protocol in ("likert", "bws"):
        write_block_assignments(study, assignments, workers, document_ids)
        return
    category_ids = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy else {}
    rows = _submitted_assignments(study, assignments, workers, document_ids)
    annotations = []
    for row, spec in zip(rows, assignments, strict=True):
        for annotation in spec.annotations:
            span, paired = annotation.span, annotation.paired
            annotations.append(
                ErrorAnnotation(
                    assignment=row,
                    category_id=category_ids[annotation.category],
                    segment_id=segment_ids[(spec.document, span.segment)],
                    start=span.start,
                    end=span.end,
                    text=span.text,
                    paired_segment_id=segment_ids[(spec.document, paired.segment)] if paired else None,
                    paired_start=paired.start if paired else None,
                    paired_end=paired.end if paired else None,
                    paired_text=paired.text if paired else "",
                    comment=annotation.comment,
                    answers=annotation.answers,
                    client_id=annotation.client_id,
                )  # fmt: skip
            )
    ErrorAnnotation.objects.bulk_create(annotations, batch_size=ROW_BATCH)


def write_block_assignments(study, assignments, workers, document_ids):
    """Rating studies: one assignment per worker and block, with its ratings or judgments."""
    rows = Assignment.objects.bulk_create(
        [
            Assignment(
                study=study,
                document=None,
                block=spec.block,
                worker=workers[(spec.platform, spec.annotator)],
                kind=spec.kind,
                status=Assignment.Status.SUBMITTED,
                active_seconds=spec.active_seconds,
                submitted_at=_aware(spec.submitted_at),
                items=[document_ids[d] for d, _ in spec.ratings]
                if spec.ratings
                else [
                    {"position": n, "documents": [document_ids[d] for d in j["documents"]]}
                    for n, j in enumerate(spec.judgments)
                ],
            )  # fmt: skip
            for spec in assignments
        ],
        batch_size=ROW_BATCH,
    )
    ratings, judgments = [], []
    for row, spec in zip(rows, assignments, strict=True):
        ratings += [Rating(assignment=row, document_id=document_ids[d], score=s) for d, s in spec.ratings]
        judgments += [
            BestWorstJudgment(
                assignment=row,
                position=n,
                documents=sorted(document_ids[d] for d in j["documents"]),
                best_id=document_ids[j["best"]],
                worst_id=document_ids[j["worst"]],
                value=j["value"],
            )  # fmt: skip
            for n, j in enumerate(spec.judgments)
        ]
    Rating.objects.bulk_create(ratings, batch_size=ROW_BATCH)
    BestWorstJudgment.objects.bulk_create(judgments, batch_size=ROW_BATCH)


def _workers_for(identities):
    """Find or create one Worker per (platform, external id)."""
    found = {}
    for platform in {platform for platform, _ in identities}:
        ids = sorted(external_id for p, external_id in identities if p == platform)
        for begin in range(0, len(ids), 900):  # SQLite caps the parameters of one query
            chunk = ids[begin : begin + 900]
            for worker in Worker.objects.filter(platform=platform, external_id__in=chunk):
                found[(worker.platform, worker.external_id)] = worker
    missing = [Worker(platform=p, external_id=e) for p, e in identities if (p, e) not in found]
    for worker in Worker.objects.bulk_create(missing, batch_size=ROW_BATCH):
        found[(worker.platform, worker.external_id)] = worker
    return found


def _aware(text):
    if not text:
        return None
    moment = parse_datetime(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
