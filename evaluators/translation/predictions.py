"""A translation judge's output made elsewhere, loaded as an imported evaluator's run.

The file has one line per document, segments counted from 0 as in bundles:
``{"document": ID, "segments": [{"segment": 0, "errors": [{"side", "start", "end",
"text", "category", "severity", "comment"}], "score": 72}]}``. An error is placed by
its offsets (code points of its side's text) when they hold its text, else found by
its text; `category` is the taxonomy's key or label (MQM). Everything about the
file's shape is checked first: a malformed file names file, line and problem and
loads nothing. What a person could not have marked (a span not in the text, an
unknown category or severity, a score off the scale) is kept in the run's result,
marked, as for an LLM's answer.
"""

from bundles.problems import Problems
from bundles.reading import read_jsonl
from studies.spans import is_whole_number

from .answers import Judgment, error_item

LINE_FIELDS = {"document", "segments", "annotator", "platform", "kind"}
SEGMENT_FIELDS = {"segment", "errors", "score"}
ERROR_FIELDS = {"side", "start", "end", "text", "category", "severity", "comment"}


def read_judgments(path, name, study):
    """{document: Judgment} of a predictions file, with every problem in `problems`."""
    problems = Problems()
    documents = {d.external_id: d for d in study.documents.all()}
    by_document, first_line = {}, {}
    for record in read_jsonl(path, name, problems):
        value, file, line = record.value, record.file, record.line
        if not isinstance(value, dict):
            problems.add(file, line, "each line must be an object {document, segments}")
            continue
        if unknown := sorted(set(value) - LINE_FIELDS):
            problems.add(file, line, f"unknown field(s) {', '.join(unknown)}")
            continue
        document = documents.get(str(value.get("document")))
        if document is None:
            problems.add(file, line, f"unknown document {value.get('document')!r} of study {study.slug}")
            continue
        if document.external_id in first_line:
            problems.add(file, line, f"document {document.external_id!r} is already on line "
                                     f"{first_line[document.external_id]}")  # fmt: skip
            continue
        first_line[document.external_id] = line
        judgment = _judgment(value.get("segments", []), file, line, problems)
        if judgment is not None:
            by_document[document] = judgment
    return by_document, problems


def _judgment(segments, file, line, problems):
    if not isinstance(segments, list):
        problems.add(file, line, "'segments' must be a list")
        return None
    judgment = Judgment()
    for number, entry in enumerate(segments, start=1):
        where = f"segments[{number}]"
        if not isinstance(entry, dict):
            problems.add(file, line, f"{where}: must be an object {{segment, errors, score}}")
            return None
        if unknown := sorted(set(entry) - SEGMENT_FIELDS):
            problems.add(file, line, f"{where}: unknown field(s) {', '.join(unknown)}")
            return None
        if not is_whole_number(entry.get("segment")):
            problems.add(file, line, f"{where}: 'segment' must be a whole number (from 0)")
            return None
        errors = entry.get("errors", [])
        if not isinstance(errors, list):
            problems.add(file, line, f"{where}: 'errors' must be a list")
            return None
        for count, error in enumerate(errors, start=1):
            if problem := _error_problem(error):
                problems.add(file, line, f"{where}.errors[{count}]: {problem}")
                return None
            judgment.errors.append(error_item(error, entry["segment"]))
        if "score" in entry:
            score = entry["score"]
            if isinstance(score, bool) or not isinstance(score, int | float):
                problems.add(file, line, f"{where}: 'score' must be a number")
                return None
            judgment.scores.append({"segment": entry["segment"], "score": score})
    return judgment


def _error_problem(error):
    if not isinstance(error, dict):
        return "must be an object {side, start, end, text, category, severity, comment}"
    if unknown := sorted(set(error) - ERROR_FIELDS):
        return f"unknown field(s) {', '.join(unknown)}"
    if not isinstance(error.get("severity"), str):
        return "'severity' must be text"
    for name in ("text", "category", "side", "comment"):
        if error.get(name) is not None and not isinstance(error[name], str):
            return f"'{name}' must be text"
    for name in ("start", "end"):
        if error.get(name) is not None and not is_whole_number(error[name]):
            return f"'{name}' must be a whole number"
    if error.get("side") != "missing" and error.get("start") is None and not error.get("text"):
        return "give offsets (start, end) or the span's text"
    return None
