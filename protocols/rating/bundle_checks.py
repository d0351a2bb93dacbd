"""Check the assignment lines of rating studies: a block's Likert ratings or BWS judgments."""

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header, unique_block_lines
from bundles.specs import AssignmentSpec
from bundles.spool import CheckedAssignments

BLOCK_FIELDS = HEADER_FIELDS | {"ratings", "judgments"}
ASSIGNMENT_BATCH = 500  # assignments per batch on disk, and per batch written


def check_block_assignments(records, problems, *, blocks, protocol, scale=(1, 5), value_scale=None):
    """The lines as specs in a CheckedAssignments (on disk until the write: a study's ratings may be
    millions);
    `blocks` maps a block label to the external ids of its documents."""
    return unique_block_lines(
        records,
        problems,
        lambda record: _check_block_assignment(record, problems, blocks, protocol, scale, value_scale),
        CheckedAssignments(lambda spec: len(spec.ratings) + len(spec.judgments), batch=ASSIGNMENT_BATCH),
    )


def _check_block_assignment(record, problems, blocks, protocol, scale, value_scale):
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(file, line, 'an assignment must be an object: {"block": ..., "annotator": ...}')
        return None
    unknown_fields(value, BLOCK_FIELDS, file, problems, line)
    header = check_header(value, file, line, problems)
    if header is None:
        return None
    members = blocks.get(header["block"])  # once a line: a block is read from disk on look-up
    if members is None:
        problems.add(file, line, f"assignment for unknown block {header['block']!r}")
        return None
    if protocol == "likert":
        ratings = _check_ratings(value.get("ratings", []), members, scale, file, line, problems)
        return None if ratings is None else AssignmentSpec(document=None, ratings=ratings, **header)
    judgments = _check_judgments(value.get("judgments", []), members, value_scale, file, line, problems)
    return None if judgments is None else AssignmentSpec(document=None, judgments=judgments, **header)


def _check_ratings(raw, members, scale, file, line, problems):
    if not isinstance(raw, list):
        problems.add(file, line, "'ratings' must be a list of {document, score}")
        return None
    ratings, seen = [], set()
    for number, item in enumerate(raw, start=1):
        where = f"rating {number}"
        if not isinstance(item, dict) or set(item) - {"document", "score"}:
            problems.add(file, line, f'{where}: give {{"document", "score"}}')
            return None
        document, score = str(item.get("document")), item.get("score")
        if document not in members:
            problems.add(file, line, f"{where}: document {document!r} is not in this block")
            return None
        if document in seen:
            problems.add(file, line, f"{where}: document {document!r} is rated twice")
            return None
        if not is_int(score) or not scale[0] <= score <= scale[1]:
            problems.add(
                file, line, f"{where}: score {score!r} is not a whole number from {scale[0]} to {scale[1]}"
            )
            return None
        seen.add(document)
        ratings.append((document, score))
    return ratings


def _check_judgments(raw, members, value_scale, file, line, problems):
    if not isinstance(raw, list):
        problems.add(file, line, "'judgments' must be a list of {documents, best, worst, value}")
        return None
    judgments = []
    for number, item in enumerate(raw, start=1):
        where = f"judgment {number}"
        if not isinstance(item, dict) or set(item) - {"documents", "best", "worst", "value"}:
            problems.add(file, line, f'{where}: give {{"documents", "best", "worst", "value"}}')
            return None
        documents = (
            [str(d) for d in item.get("documents") or []] if isinstance(item.get("documents"), list) else []
        )
        best, worst, gap = str(item.get("best")), str(item.get("worst")), item.get("value")
        if len(documents) < 2 or len(set(documents)) != len(documents):
            problems.add(file, line, f"{where}: 'documents' must list at least two different documents")
            return None
        outside = [d for d in documents if d not in members]
        if outside:
            problems.add(file, line, f"{where}: document {outside[0]!r} is not in this block")
            return None
        if best not in documents or worst not in documents:
            problems.add(file, line, f"{where}: best and worst must be among the tuple's documents")
            return None
        if best == worst:
            problems.add(file, line, f"{where}: best and worst must be different documents")
            return None
        if gap is not None and (not value_scale or not is_int(gap) or not 1 <= gap <= value_scale):
            problems.add(file, line, f"{where}: value {gap!r} is not a whole number from 1 to {value_scale}"
                         if value_scale else f"{where}: this study has no value scale (config bws.value_scale)")  # fmt: skip
            return None
        judgments.append({"documents": documents, "best": best, "worst": worst, "value": gap})
    return judgments
