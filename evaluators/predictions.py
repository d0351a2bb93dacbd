"""Predictions made elsewhere (e.g. trained detectors), loaded as an imported evaluator's run.

A span study's file has the span lines of a bundle's assignments.jsonl, one
per document: ``{"document": ID, "annotations": [{"segment", "category", "start",
"end", "text", "paired": {"segment", "start", "end", "text"}, "comment"}]}``
(annotator, platform and kind, if present, are ignored: the evaluator's key
is the annotator). Offsets are code points; a span given by text alone is
found by its text. Everything is checked first: a malformed file names file,
line and problem and writes nothing. Spans that are not in the text and
unknown categories are kept in the run's results, marked. A translation
study's file has its own shape (translation/predictions.py).
"""

from django.db import transaction
from django.utils import timezone

from bundles.problems import Problems
from bundles.reading import read_jsonl
from studies.spans import is_whole_number

from .models import EvaluatorResult, EvaluatorRun
from .modes import TRANSLATION, study_problem
from .services import RunRefused
from .translation.predictions import read_judgments
from .work import RunWork

LINE_FIELDS = {
    "document",
    "annotations",
    "annotator",
    "platform",
    "kind",
    "block",
    "active_seconds",
    "submitted_at",
}
SPAN_FIELDS = {"segment", "category", "start", "end", "text", "paired", "comment", "answers", "client_id"}


def _item(raw, where, file, line, problems):
    """One annotation as an answer item (0-based segment), or None after reporting its problem."""
    if not isinstance(raw, dict):
        problems.add(file, line, f"{where}: must be an object")
        return None
    unknown = sorted(set(raw) - SPAN_FIELDS)
    if unknown:
        problems.add(file, line, f"{where}: unknown field(s) {', '.join(unknown)}")
        return None
    if not isinstance(raw.get("category"), str):
        problems.add(file, line, f"{where}: 'category' must be text")
        return None
    if not is_whole_number(raw.get("segment")):
        problems.add(file, line, f"{where}: 'segment' must be a whole number (0-based)")
        return None
    for name in ("start", "end"):
        if raw.get(name) is not None and not is_whole_number(raw[name]):
            problems.add(file, line, f"{where}: '{name}' must be a whole number")
            return None
    if raw.get("text") is not None and not isinstance(raw["text"], str):
        problems.add(file, line, f"{where}: 'text' must be text")
        return None
    if raw.get("start") is None and not raw.get("text"):
        problems.add(file, line, f"{where}: give offsets (start, end) or the span's text")
        return None
    paired = raw.get("paired")
    if paired is not None and not isinstance(paired, dict):
        problems.add(file, line, f"{where}: 'paired' must be an object {{segment, start, end, text}}")
        return None
    item = {
        "category": raw["category"], "segment": raw["segment"], "start": raw.get("start"), "end": raw.get("end"),
        "span": raw.get("text"), "explanation": raw.get("comment") or "",
    }  # fmt: skip
    if paired:
        item["earlier_given"] = {key: paired.get(key) for key in ("segment", "start", "end", "text")}
        item["earlier_span"] = paired.get("text")
    return item


def read_predictions(path, name, study):
    """{document: [items]} of a predictions file, with every problem in `problems`."""
    problems = Problems()
    documents = {d.external_id: d for d in study.documents.all()}
    by_document = {}
    first_line = {}
    for record in read_jsonl(path, name, problems):
        value = record.value
        if not isinstance(value, dict):
            problems.add(record.file, record.line, "each line must be an object {document, annotations}")
            continue
        unknown = sorted(set(value) - LINE_FIELDS)
        if unknown:
            problems.add(record.file, record.line, f"unknown field(s) {', '.join(unknown)}")
            continue
        document = documents.get(str(value.get("document")))
        if document is None:
            problems.add(
                record.file, record.line, f"unknown document {value.get('document')!r} of study {study.slug}"
            )
            continue
        if document.external_id in first_line:
            problems.add(record.file, record.line,
                         f"document {document.external_id!r} is already on line {first_line[document.external_id]}")  # fmt: skip
            continue
        first_line[document.external_id] = record.line
        raw_items = value.get("annotations", [])
        if not isinstance(raw_items, list):
            problems.add(record.file, record.line, "'annotations' must be a list")
            continue
        items = [
            _item(raw, f"annotation {n + 1}", record.file, record.line, problems)
            for n, raw in enumerate(raw_items)
        ]
        by_document[document] = [item for item in items if item is not None]
    return by_document, problems


def evaluator_predictions_import(*, evaluator, path, name=None, user=None):
    """Load `path` as a finished run of the imported evaluator; BundleInvalid (nothing written) on problems."""
    if evaluator.kind != evaluator.Kind.IMPORT:
        raise RunRefused(f"evaluator {evaluator.key} is not an imported one (kind: {evaluator.kind})")
    study = evaluator.study
    if problem := study_problem(evaluator):
        raise RunRefused(problem)
    read = read_judgments if study.protocol in TRANSLATION else read_predictions
    by_document, problems = read(path, name or str(path), study)
    if not by_document and not problems:
        problems.add(name or str(path), 0, "the file holds no predictions")
    problems.raise_if_any()
    with transaction.atomic():
        now = timezone.now()
        run = EvaluatorRun.objects.create(
            evaluator=evaluator, status=EvaluatorRun.Status.RUNNING, documents=[d.external_id for d in by_document],
            total=len(by_document), started_at=now, heartbeat_at=now, attempts=1,
            requested_by=user if user is not None and user.is_authenticated else None,
        )  # fmt: skip
        work = RunWork(run)
        for document, items in by_document.items():
            work.store(document, EvaluatorResult.Status.OK, items=items)
        EvaluatorRun.objects.filter(pk=run.pk).update(
            status=EvaluatorRun.Status.DONE, finished_at=timezone.now()
        )
    run.refresh_from_db()
    return run
