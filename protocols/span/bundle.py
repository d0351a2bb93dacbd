"""The span protocol's part of a bundle: assignments.jsonl with error spans and answers about
the whole document, annotations.csv."""

import csv

from bundles.exporting import CSV_COLUMNS, assignment_record, json_line
from bundles.reading import read_jsonl
from exports.spreadsheet import spreadsheet_safe
from studies.protocols import BundleWork

from .assistance.bundle import (
    check_suggestions,
    decisions_by_assignment,
    export_suggestions,
    write_suggestions,
)
from .bundle_checks import check_assignments
from .bundle_writing import CheckedSpanAssignments, write_assignments
from .document_questions import (
    document_questions_problems,
    normalized_questions,
    ordered_answers,
    study_questions,
)
from .models import DocumentAnswer, ErrorAnnotation


def needs_texts(directory):
    """Spans and suggestions are checked against their segments' texts; documents alone keep none."""
    return directory is not None and any(
        (directory / name).is_file() for name in ("assignments.jsonl", "suggestions.jsonl")
    )


# Spans and suggestions look their segments up by document id: the import keeps the texts on disk
# (bundles/texts.py) and hands them to check_work as `texts`, so its memory does not grow with them.
TEXTS_BY_DOCUMENT = True


def check_work(directory, spec, documents, broken, locate, problems, texts=None):
    categories = (
        {c.key: c.kind for c in spec.taxonomy.categories} if spec is not None and spec.taxonomy else {}
    )
    segments_of = texts if texts is not None else {d.external_id: d.segments for d in documents}
    suggestions = check_suggestions(directory, segments_of, categories, problems)
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork(extra=suggestions)
    records = read_jsonl(path, "assignments.jsonl", problems)
    checked = CheckedSpanAssignments()
    _, located = check_assignments(
        records, problems, documents=segments_of, categories=categories, broken=broken, locate=locate,
        questions=_bundle_questions(spec), suggestions=suggestions, keep=checked.append,
    )  # fmt: skip
    return BundleWork(
        assignments=checked, located=located, annotations=checked.annotations, extra=suggestions
    )


def _bundle_questions(spec):
    """The study.yaml's document questions; None when they are broken (reported with study.yaml)."""
    raw = spec.config.get("document_questions", []) if spec is not None else None
    if raw is None or document_questions_problems(raw, ()):
        return None
    return normalized_questions(raw)


def write_work(study, work):
    if work.extra:
        write_suggestions(study, work.extra)
    if work.assignments:
        write_assignments(study, work.assignments)


def export_work(study, assignments, directory, who):
    """assignments.jsonl and annotations.csv a chunk of assignments at a time
    (bundles/exporting.in_line_order), each chunk reading its spans and answers in one query each."""
    export_suggestions(study, directory, json_line)
    questions = study_questions(study)
    with (
        open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle,
        open(directory / "annotations.csv", "w", encoding="utf-8", newline="") as table,
    ):
        writer = csv.writer(table)
        writer.writerow(CSV_COLUMNS)
        for batch in assignments:
            ids = [assignment.pk for assignment in batch]
            annotations = _annotations_by_assignment(ids)
            decisions, pointed = decisions_by_assignment(ids)
            answers = (
                dict(
                    DocumentAnswer.objects.filter(assignment_id__in=ids).values_list(
                        "assignment_id", "answers"
                    )
                )
                if questions
                else {}
            )
            for assignment in batch:
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
                    writer.writerow(
                        [spreadsheet_safe(value) for value in _csv_row(study, assignment, row, who)]
                    )


def _annotations_by_assignment(assignment_ids):
    grouped = {}
    rows = (
        ErrorAnnotation.objects.filter(assignment_id__in=assignment_ids)
        .select_related("category", "segment", "paired_segment")
        # The segments' indexes are written, not their texts: those would be read once per span.
        .defer("segment__text", "segment__sentences", "paired_segment__text", "paired_segment__sentences")
        .order_by("assignment_id", "segment__index", "start", "end", "category__key", "id")
    )
    for row in rows:
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
