"""Review studies: the evaluators' items (review_items.jsonl) and reviewers' answers."""

import string

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header
from bundles.specs import AssignmentSpec
from bundles.spool import CheckedAssignments
from protocols.review.questions import answer_error

ASSIGNMENT_BATCH = 500  # assignments per batch on disk, and per batch written

ITEM_FIELDS = {"document", "evaluator", "span", "explanation", "occurrence", "segment", "start", "end"}
REVIEW_ASSIGNMENT_FIELDS = HEADER_FIELDS | {"document", "answers"}


def locate_span(segments, text, occurrence=None):
    """Every occurrence of `text` as [segment, start, end], in reading order; only the
    `occurrence`-th (1-based) when given. Empty when not found."""
    found = []
    for index, segment in enumerate(segments):
        start = segment.find(text)
        while start >= 0:
            found.append([index, start, start + len(text)])
            start = segment.find(text, start + 1)
    if occurrence is not None:
        return found[occurrence - 1 : occurrence]
    return found


def evaluator_labels(names):
    """Evaluator A, B, ... in order of first appearance (AA, AB, ... after Z)."""
    letters = string.ascii_uppercase
    labels = {}
    for name in names:
        if name not in labels:
            n = len(labels)
            suffix = letters[n] if n < 26 else letters[n // 26 - 1] + letters[n % 26]
            labels[name] = f"Evaluator {suffix}"
    return labels


def check_review_items(records, problems, *, documents, keep=None):
    """`documents` maps external id -> segment texts. Returns item dicts with their
    location status, numbered per document; with `keep`, hands each to it instead (a spool on
    disk: a study's items are not held) and returns {document: its number of items}."""
    items, per_document = [], {}
    for record in records:
        value, file, line = record.value, record.file, record.line
        if not isinstance(value, dict):
            problems.add(
                file, line, 'an item must be an object: {"document", "evaluator", "span", "explanation"}'
            )
            continue
        unknown_fields(value, ITEM_FIELDS, file, problems, line)
        document, evaluator = str(value.get("document")), value.get("evaluator")
        if document not in documents:
            problems.add(file, line, f"item for unknown document {document!r}")
            continue
        if not isinstance(evaluator, str) or not evaluator.strip():
            problems.add(file, line, "'evaluator' is required")
            continue
        span, explanation = value.get("span") or "", value.get("explanation") or ""
        occurrence = value.get("occurrence")
        if not isinstance(span, str) or not isinstance(explanation, str):
            problems.add(file, line, "'span' and 'explanation' must be text")
            continue
        if occurrence is not None and (not is_int(occurrence) or occurrence < 1):
            problems.add(file, line, "'occurrence' must be a whole number from 1")
            continue
        segments = documents[document]
        if "start" in value or "end" in value:
            segment, start, end = value.get("segment", 0), value.get("start"), value.get("end")
            if not (is_int(segment) and is_int(start) and is_int(end) and 0 <= segment < len(segments)
                    and 0 <= start < end <= len(segments[segment]) and segments[segment][start:end] == span):  # fmt: skip
                problems.add(
                    file, line, f"offsets [{start}, {end}) of segment {segment} do not hold the span {span!r}"
                )
                continue
            locations = [[segment, start, end]]
        else:
            locations = locate_span(segments, span, occurrence) if span else []
        status = "no_span" if not span else ("found" if locations else "not_found")
        position = per_document.get(document, 0)
        per_document[document] = position + 1
        items.append({"document": document, "position": position, "evaluator": evaluator, "span_text": span,
                      "explanation": explanation, "occurrence": occurrence, "span_status": status,
                      "locations": locations})  # fmt: skip
        if keep is not None:
            keep(items.pop())
    return per_document if keep is not None else items


def check_review_assignments(records, problems, *, documents, item_counts, questions):
    """Reviewers' answers: {"document", "annotator", "answers": [{"item": n, "answers": {...}}]}, as
    AssignmentSpecs in a CheckedAssignments (bundles/spool.py: on disk until the write, a batch at a
    time)."""
    specs = CheckedAssignments(lambda spec: len(spec.annotations), batch=ASSIGNMENT_BATCH)
    first_line = {}
    for record in records:
        value, file, line = record.value, record.file, record.line
        if not isinstance(value, dict):
            problems.add(file, line, 'an assignment must be an object: {"document": ..., "annotator": ...}')
            continue
        unknown_fields(value, REVIEW_ASSIGNMENT_FIELDS, file, problems, line)
        header = check_header(value, file, line, problems)
        document = str(value.get("document"))
        if document not in documents:
            problems.add(file, line, f"assignment for unknown document {document!r}")
            continue
        answers = _check_answers(
            value.get("answers", []), item_counts.get(document, 0), questions, file, line, problems
        )
        if header is None or answers is None:
            continue
        identity = (document, header["platform"], header["annotator"], header["kind"])
        if identity in first_line:
            problems.add(
                file,
                line,
                f"annotator '{header['annotator']}' already reviewed '{document}' (line {first_line[identity]})",
            )
            continue
        first_line[identity] = line
        specs.append(AssignmentSpec(document=document, annotations=answers, **header))
    return specs


def _check_answers(raw, count, questions, file, line, problems):
    if not isinstance(raw, list):
        problems.add(file, line, "'answers' must be a list of {item, answers}")
        return None
    checked, seen = [], set()
    for number, entry in enumerate(raw, start=1):
        item = entry.get("item") if isinstance(entry, dict) else None
        if not is_int(item) or not 0 <= item < count or item in seen:
            problems.add(
                file, line, f"answer {number}: 'item' must be a new item number from 0 to {count - 1}"
            )
            return None
        # Options only, not the study's rules (they need the item's span status): a study answered
        # before its rules existed still re-imports (docs/review-studies.md, "Rules").
        error = answer_error(questions, entry.get("answers"))
        if error:
            problems.add(file, line, f"answer {number}: {error}")
            return None
        seen.add(item)
        checked.append({"item": item, "answers": entry["answers"]})
    return checked
