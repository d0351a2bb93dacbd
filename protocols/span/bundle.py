"""The span protocol's part of a bundle: assignments.jsonl with error spans and answers about
the whole document, annotations.csv."""

import csv

from bundles.exporting import CSV_COLUMNS, assignment_record, json_line
from bundles.reading import read_jsonl
from bundles.writing import ROW_BATCH, submitted_assignments, workers_for
from exports.spreadsheet import spreadsheet_safe
from studies.protocols import BundleWork

from .assistance.bundle import (
    check_suggestions,
    decisions_by_assignment,
    export_suggestions,
    write_decisions,
    write_suggestions,
)
from .bundle_checks import check_assignments
from .document_questions import (
    document_questions_problems,
    normalized_questions,
    ordered_answers,
    study_questions,
)
from .models import DocumentAnswer, ErrorAnnotation


def check_work(directory, spec, documents, broken, locate, problems):
    categories = (
        {c.key: c.kind for c in spec.taxonomy.categories} if spec is not None and spec.taxonomy else {}
    )
    segments_of = {d.external_id: d.segments for d in documents}
    suggestions = check_suggestions(directory, segments_of, categories, problems)
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork(extra=suggestions)
    records = read_jsonl(path, "assignments.jsonl", problems)
    assignments, located = check_assignments(
        records, problems, documents=segments_of, categories=categories, broken=broken, locate=locate,
        questions=_bundle_questions(spec), suggestions=suggestions,
    )  # fmt: skip
    return BundleWork(
        assignments=assignments, located=located, annotations=sum(len(a.annotations) for a in assignments),
        extra=suggestions,
    )  # fmt: skip


def _bundle_questions(spec):
    """The study.yaml's document questions; None when they are broken (reported with study.yaml)."""
    raw = spec.config.get("document_questions", []) if spec is not None else None
    if raw is None or document_questions_problems(raw, ()):
        return None
    return normalized_questions(raw)


def write_work(study, work, segment_ids):
    assignments = work.assignments
    suggestions = write_suggestions(study, work.extra, segment_ids) if work.extra else {}
    if not assignments:
        return
    workers = workers_for({(spec.platform, spec.annotator) for spec in assignments})
    document_ids = dict(study.documents.values_list("external_id", "id"))
    category_ids = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy else {}
    rows = submitted_assignments(study, assignments, workers, document_ids)
    annotations, taken = [], {}
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
            taken[(row.pk, annotation.client_id)] = annotations[-1]
    ErrorAnnotation.objects.bulk_create(annotations, batch_size=ROW_BATCH)
    write_decisions(
        [
            (row, suggestions[(spec.document, position)], action, seconds, taken.get((row.pk, client_id)))
            for row, spec in zip(rows, assignments, strict=True)
            for position, action, seconds, client_id in spec.suggestion_decisions
        ]
    )
    DocumentAnswer.objects.bulk_create(
        [
            DocumentAnswer(assignment=row, answers=spec.document_answers)
            for row, spec in zip(rows, assignments, strict=True)
            if getattr(spec, "document_answers", None)
        ],
        batch_size=ROW_BATCH,
    )


def export_work(study, assignments, directory, who):
    export_suggestions(study, directory, json_line)
    decisions, pointed = decisions_by_assignment(study)
    annotations = _annotations_by_assignment(study)
    questions = study_questions(study)
    answers = (
        dict(DocumentAnswer.objects.filter(assignment__study=study).values_list("assignment_id", "answers"))
        if questions
        else {}
    )
    with (
        open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle,
        open(directory / "annotations.csv", "w", encoding="utf-8", newline="") as table,
    ):
        writer = csv.writer(table)
        writer.writerow(CSV_COLUMNS)
        for assignment in assignments:
            rows = annotations.get(assignment.pk, [])
            record = {
                **assignment_record(assignment, who),
                "annotations": [_annotation_record(r, r.pk in pointed) for r in rows],
            }
            if assignment.pk in decisions:
                record["suggestion_decisions"] = decisions[assignment.pk]
            # In the questions' order: PostgreSQL's jsonb keeps no key order, and exports must not depend on it.
            given = ordered_answers(questions, answers.get(assignment.pk) or {})
            if given:
                record["document_answers"] = given
            handle.write(json_line(record))
            for row in rows:
                writer.writerow([spreadsheet_safe(value) for value in _csv_row(study, assignment, row, who)])


def _annotations_by_assignment(study):
    grouped = {}
    rows = (
        ErrorAnnotation.objects.filter(assignment__study=study)
        .select_related("category", "segment", "paired_segment")
        .order_by("assignment_id", "segment__index", "start", "end", "category__key", "id")
    )
    for row in rows.iterator(chunk_size=5000):
        grouped.setdefault(row.assignment_id, []).append(row)
    return grouped


def _annotation_record(row, with_client_id=False):
    record = {
        "segment": row.segment.index, "category": row.category.key,
        "start": row.start, "end": row.end, "text": row.text, "comment": row.comment,
    }  # fmt: skip
    if with_client_id:  # a suggestion's decision points at it
        record["client_id"] = row.client_id
    if row.paired_segment is not None:
        record["paired"] = {
            "segment": row.paired_segment.index, "start": row.paired_start,
            "end": row.paired_end, "text": row.paired_text,
        }  # fmt: skip
    if row.answers:
        record["answers"] = row.answers
    return record


def _csv_row(study, assignment, row, who):
    paired = row.paired_segment is not None
    return [
        study.slug, assignment.document.external_id, assignment.document.system, *who(assignment),
        assignment.kind,
        assignment.block, row.segment.index, row.start, row.end, row.text, row.category.key,
        row.paired_segment.index if paired else "", row.paired_start if paired else "",
        row.paired_end if paired else "", row.paired_text, row.comment,
    ]  # fmt: skip
