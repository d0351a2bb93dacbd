"""Check assignment records (assignments.jsonl): their error annotations and their
answers about the whole document (`document_answers`)."""

from dataclasses import dataclass, field

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header
from bundles.specs import AnnotationSpec, AssignmentSpec, SpanSpec
from studies.spans import span_error

from .assistance.bundle import check_decisions
from .document_questions import AnswerError, checked_value, ordered_answers

ASSIGNMENT_FIELDS = HEADER_FIELDS | {"document", "annotations", "document_answers", "suggestion_decisions"}
ANNOTATION_FIELDS = {
    "segment", "category", "start", "end", "text", "comment", "paired", "answers", "client_id",
}  # fmt: skip
SPAN_FIELDS = {"segment", "start", "end", "text"}


@dataclass
class SpanAssignmentSpec(AssignmentSpec):
    """An assignment of a span study: its spans, and its answers about the whole document."""

    document_answers: dict = field(default_factory=dict)
    # [(suggestion position, action, seconds, client_id of the annotation or None)]
    suggestion_decisions: list = field(default_factory=list)


@dataclass
class LocateCount:
    """Spans given only as text, and how many of those were not found (--locate)."""

    asked: int = 0
    not_found: int = 0

    def summary(self):
        if not self.asked:
            return ""
        return f"--locate: {self.not_found} of {self.asked} spans given only as text were not found"


def check_assignments(
    records, problems, *, documents, categories, broken=(), locate=False, questions=(), suggestions=None,
    keep=None,
):  # fmt: skip
    """Check every assignment record against the bundle's documents, categories and questions.

    `documents` maps external id -> list of segment texts; `categories` maps
    key -> kind; `questions` are the study's document questions (normalised; None
    when config.document_questions is broken, which study.yaml's check reports);
    assignments for `broken` documents (already reported) are passed over.
    Returns (assignment specs, LocateCount); with `keep`, each accepted spec is handed to
    keep(spec) instead, and the specs returned are empty (an import spools them to disk).
    """
    count = LocateCount()
    specs, first_line = [], {}
    keep = keep or specs.append
    for record in records:
        if isinstance(record.value, dict) and str(record.value.get("document")) in broken:
            continue
        spec = _check_assignment(
            record, problems, documents, categories, locate, count, questions, suggestions or {}
        )
        if spec is None:
            continue
        identity = (spec.document, spec.platform, spec.annotator, spec.kind)
        # A worker's retests of one document may be several (repeated annotations of an imported file).
        if identity in first_line and spec.kind != "retest":
            problems.add(record.file, record.line,
                         f"annotator '{spec.annotator}' already has a {spec.kind} assignment for "
                         f"'{spec.document}' (line {first_line[identity]})")  # fmt: skip
            continue
        first_line[identity] = record.line
        keep(spec)
    return specs, count


def _check_assignment(record, problems, documents, categories, locate, count, questions, suggestions):
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(file, line, 'an assignment must be an object: {"document": ..., "annotator": ...}')
        return None
    unknown_fields(value, ASSIGNMENT_FIELDS, file, problems, line)
    ok = True
    document = value.get("document")
    if is_int(document):
        document = str(document)
    if not isinstance(document, str) or document not in documents:
        problems.add(file, line, f"assignment for unknown document {document!r}")
        return None
    header = check_header(value, file, line, problems)
    ok = header is not None
    raw_annotations = value.get("annotations", [])
    if not isinstance(raw_annotations, list):
        problems.add(file, line, "'annotations' must be a list (empty: found no error)")
        return None
    segments = documents[document]
    annotations = []
    # An automatic evaluator's span of a paired category may lack the earlier span it did not find
    # (in its model annotation, and in a repeated one, kept as its retest).
    unpaired_ok = value.get("kind") == "model" or value.get("platform") == "model"
    for position, raw in enumerate(raw_annotations):
        annotation = _check_annotation(raw, f"annotation {position + 1}", segments, categories, locate, count,
                                       file, line, problems, unpaired_ok=unpaired_ok)  # fmt: skip
        if annotation is None:
            ok = False
        else:
            annotation.client_id = annotation.client_id or f"import-{position + 1}"
            annotations.append(annotation)
    answers = _check_document_answers(value.get("document_answers"), questions, file, line, problems)
    decisions = check_decisions(
        value.get("suggestion_decisions"), document, annotations, suggestions, file, line, problems
    )
    if not ok or answers is None or decisions is None:
        return None
    return SpanAssignmentSpec(document=document, annotations=annotations, document_answers=answers,
                              suggestion_decisions=decisions, **header)  # fmt: skip


def _check_document_answers(raw, questions, file, line, problems):
    """The line's answers about the whole document, as stored; None when one is wrong.

    Values are checked as the task API checks them. Required questions may stay
    unanswered: imported work (e.g. FALTE's) may come from a study without them.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.add(file, line, "'document_answers' must be an object {question key: answer}")
        return None
    if questions is None:  # config.document_questions is broken: study.yaml's problems say how
        return {}
    by_key = {question["key"]: question for question in questions}
    answers, ok = {}, True
    for key, value in raw.items():
        if key not in by_key:
            asked = f"this study asks {', '.join(by_key)}" if by_key else "config.document_questions has none"
            problems.add(file, line, f"document_answers: unknown question {key!r} ({asked})")
            ok = False
            continue
        try:
            answers[key] = checked_value(by_key[key], value)
        except AnswerError as problem:
            problems.add(file, line, f"document_answers: {problem}")
            ok = False
    if not ok:
        return None
    return ordered_answers(questions, {key: value for key, value in answers.items() if value is not None})


def _check_annotation(
    raw, where, segments, categories, locate, count, file, line, problems, unpaired_ok=False
):
    if not isinstance(raw, dict):
        problems.add(file, line, f"{where}: must be an object")
        return None
    unknown_fields(raw, ANNOTATION_FIELDS, file, problems, line)
    category = raw.get("category")
    if category not in categories:
        problems.add(
            file,
            line,
            f"{where}: unknown category {category!r} (the taxonomy has {', '.join(sorted(categories))})",
        )
        return None
    span = _check_span(raw, f"{where} ({category})", segments, locate, count, file, line, problems)
    paired = None
    needs_pair = categories[category] == "paired" and not (unpaired_ok and raw.get("paired") is None)
    if needs_pair:
        if not isinstance(raw.get("paired"), dict):
            problems.add(file, line, f"{where}: paired category {category} needs its paired span ('paired')")
            return None
        paired = _check_span(raw["paired"], f"{where} ({category}) paired span", segments, locate, count,
                             file, line, problems, fields=SPAN_FIELDS)  # fmt: skip
        if span and paired and paired.segment > span.segment:
            problems.add(file, line, f"{where}: the paired span must be earlier (segment {paired.segment} "
                                     f"comes after segment {span.segment})")  # fmt: skip
            return None
    elif categories[category] != "paired" and raw.get("paired") is not None:
        problems.add(file, line, f"{where}: category {category} is singleton but has a paired span")
        return None
    comment = raw.get("comment") or ""
    answers = raw.get("answers") or {}
    client_id = raw.get("client_id") or ""
    if not isinstance(comment, str) or not isinstance(answers, dict) or not isinstance(client_id, str):
        problems.add(file, line, f"{where}: comment and client_id must be text, answers an object")
        return None
    if span is None or (needs_pair and paired is None):
        return None
    return AnnotationSpec(category=category, span=span, paired=paired, comment=comment,
                          answers=answers, client_id=client_id)  # fmt: skip


def _check_span(raw, where, segments, locate, count, file, line, problems, fields=None):
    if fields is not None:
        unknown_fields(raw, fields, file, problems, line)
    index = raw.get("segment")
    if not is_int(index) or not 0 <= index < len(segments):
        problems.add(
            file, line, f"{where}: segment {index!r} is not in the document (0 to {len(segments) - 1})"
        )
        return None
    segment = segments[index]
    start, end, text = raw.get("start"), raw.get("end"), raw.get("text")
    if text is not None and not isinstance(text, str):
        problems.add(file, line, f"{where}: 'text' must be text")
        return None
    if start is None and end is None and text:
        if not locate:
            problems.add(
                file,
                line,
                f"{where}: no start/end offsets; import with --locate (admin: 'Locate spans by text') to find {text!r} by its text",
            )
            return None
        count.asked += 1
        start = segment.find(text)
        if start < 0:
            count.not_found += 1
            problems.add(file, line, f"{where}: span text {text!r} not found in segment {index}")
            return None
        return SpanSpec(segment=index, start=start, end=start + len(text), text=text)
    error = span_error(segment, start, end, text)
    if error:
        problems.add(file, line, f"{where}: {error.replace('the segment', f'segment {index}')}")
        return None
    return SpanSpec(segment=index, start=start, end=end, text=segment[start:end])
