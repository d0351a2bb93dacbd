"""The flat annotation table, read in chunks so memory stays flat at any size.

What a row is belongs to the study's protocol (Protocol.export_columns and
export_rows: a span, a rating, a judgment, an answer); only submitted
assignments are exported. After the protocol's columns comes the assignment's
worker_feedback (the worker's note to the researchers, the same on each row of
the assignment; every protocol's rows carry an "assignment" column to find it
by). Worker identities are added at the end of a row for those who may see
them (with_platform_ids).
"""

import csv
import json

from django.db import connection

from annotations.models import Assignment
from studies import protocols

from .spreadsheet import spreadsheet_safe

CHUNK = 5000
PLATFORM_COLUMNS = ["worker_platform", "worker_external_id"]
FEEDBACK_COLUMN = "worker_feedback"


def columns(with_platform_ids, study):
    platform = PLATFORM_COLUMNS if with_platform_ids else []
    return [*protocols.of(study).export_columns(study), FEEDBACK_COLUMN, *platform]


def submitted_rows(model, study):
    """`model`'s rows (a protocol's judgments) of the study's submitted assignments."""
    return model.objects.filter(assignment__study=study, assignment__status=Assignment.Status.SUBMITTED)


def iso(moment):
    return moment.isoformat() if moment else ""


def annotation_rows(study, *, with_platform_ids=False):
    """Yield one list per row, in `columns(with_platform_ids, study)` order.

    A protocol yields (row, (platform, external id)); the identity is kept only when asked.
    """
    assignment_column = protocols.of(study).export_columns(study).index("assignment")
    # Only the texts that exist: most workers write none, and one dict lookup per row is cheap.
    feedback = dict(
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .exclude(worker_feedback="")
        .values_list("pk", "worker_feedback")
    )
    for row, identity in protocols.of(study).export_rows(study):
        row = [*row, feedback.get(row[assignment_column], "")]
        yield [*row, *identity] if with_platform_ids else row


class _Line:
    """A file-like object whose write returns the line, for csv.writer in a generator."""

    def write(self, text):
        return text


def csv_lines(study, *, with_platform_ids=False):
    """The table as CSV, text that a spreadsheet would run as a formula quoted (exports/spreadsheet.py)."""
    writer = csv.writer(_Line())
    yield writer.writerow(columns(with_platform_ids, study))
    batch = []
    for row in annotation_rows(study, with_platform_ids=with_platform_ids):
        batch.append(writer.writerow([spreadsheet_safe(value) for value in row]))
        if len(batch) == 1000:  # fewer, larger chunks for the response
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def csv_chunks(study, *, with_platform_ids=False):
    """The CSV table as bytes: the protocol's COPY fast path on PostgreSQL when it has one for
    this study (the same bytes, exports.md), csv_lines otherwise."""
    fast = None
    if connection.vendor == "postgresql":
        fast = protocols.of(study).export_csv_copy(study, with_platform_ids=with_platform_ids)
    if fast is None:
        for text in csv_lines(study, with_platform_ids=with_platform_ids):
            yield text.encode()
        return
    yield csv.writer(_Line()).writerow(columns(with_platform_ids, study)).encode()
    yield from fast


def jsonl_lines(study, *, with_platform_ids=False):
    names = columns(with_platform_ids, study)
    batch = []
    for row in annotation_rows(study, with_platform_ids=with_platform_ids):
        batch.append(json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n")
        if len(batch) == 1000:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def row_count(study):
    """How many rows `annotation_rows` yields (it decides streaming or a background job)."""
    return protocols.of(study).export_row_count(study)
