"""The span table as CSV straight from PostgreSQL (COPY ... TO STDOUT), byte for byte what
exports.rows.csv_lines writes for the same study, at a fraction of the CPU time.

Every cell is computed in SQL the way span_rows and csv.writer compute it in Python:
empty text is NULL (PostgreSQL quotes an empty string, csv.writer does not), text goes
through the formula guard (exports.spreadsheet.sql_spreadsheet_safe), times are
isoformat()'s, and the annotator column comes from a worker -> pseudonym array computed
in Python by accounts.pseudonyms (the secret never reaches SQL). PostgreSQL ends a row
with "\\n" and csv.writer with "\\r\\n": the server sends one row per CopyData message,
so each row's last byte is replaced here.

The same statements, with raw cells (no formula guard, empty text as '', a missing number as
NULL), give the Parquet table: pyarrow's CSV reader turns COPY's output into Arrow columns
(exports/arrow.py), so no Python object is made per cell.

Assisted studies (rejected-suggestion rows) keep the Python writer: None.

The SQL is put together from model table names, fixed expressions and question keys
(checked at import: letters, digits, _ and -, and quoted here anyway); every value comes in
as a parameter, hence the S608 exemptions.
"""

from dataclasses import dataclass

from django.db import connection, transaction

from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from exports.arrow import copy_batches
from exports.spreadsheet import spreadsheet_safe, sql_spreadsheet_safe
from studies.models import Category, Document, Segment

from .document_questions import study_questions
from .exports import is_assisted
from .models import DocumentAnswer, ErrorAnnotation

ROWS_PER_CHUNK = 2000
SAFE = sql_spreadsheet_safe


def iso(expression):
    """datetime.isoformat() of a UTC timestamp: microseconds only when not zero (the pattern
    has no other '.', so the replace can only drop a zero fraction); NULL stays NULL."""
    moment = f"to_char(({expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
    return f"(replace({moment}, '.000000', '') || '+00:00')"


def _raw_text(expression):
    return f"COALESCE({expression}, '')"


@dataclass(frozen=True)
class Cells:
    """How the statements write a cell: as the CSV table does, or raw for Parquet."""

    text: object  # SQL of a text cell from a text expression
    label: object  # a text value passed in as a parameter (the slug, a pseudonym)
    no_text: str  # a found-nothing row's span text columns
    csv: bool


# The CSV: text formula-guarded and empty text as NULL (COPY quotes '', csv.writer does not).
CSV_CELLS = Cells(text=SAFE, label=lambda value: spreadsheet_safe(value) or None, no_text="NULL", csv=True)
# Parquet: text as stored and never NULL (the Python rows have "" there); NULL only for a
# missing number, so that pyarrow reads an unquoted empty field as null and "" as "".
RAW_CELLS = Cells(text=_raw_text, label=lambda value: value, no_text="''", csv=False)


def answer_cell(key, cells=CSV_CELLS, *, number=False):
    """document_questions.answer_cell in SQL: a list joined by "; ", none as empty, text as
    `cells` writes it; a `number` question's cell (likert) is NULL when unanswered."""
    value = f"answer.answers -> {key}"
    joined = (
        f"(SELECT string_agg(item, '; ' ORDER BY place) FROM jsonb_array_elements_text({value}) "  # noqa: S608
        "WITH ORDINALITY AS items(item, place))"
    )
    if cells.csv:
        joined, text = SAFE(joined), SAFE(f"answer.answers ->> {key}")
    else:
        text = f"answer.answers ->> {key}"
    cell = (
        f"(CASE jsonb_typeof({value}) WHEN 'array' THEN {joined} "
        f"WHEN 'string' THEN {text} "
        f"WHEN 'boolean' THEN CASE WHEN ({value})::boolean THEN 'True' ELSE 'False' END "
        f"WHEN 'number' THEN answer.answers ->> {key} END)"
    )
    return cell if cells.csv or number else _raw_text(cell)


def _literal(value):
    return "'" + value.replace("'", "''") + "'"


def _statements(study, with_platform_ids, cells=CSV_CELLS):
    """(annotation rows, found-nothing rows): two COPY statements and their parameters."""
    questions = study_questions(study)
    keys = [_literal(question["key"]) for question in questions]
    text, iso_text = cells.text, (iso if cells.csv else lambda expression: _raw_text(iso(expression)))
    workers = list(
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .order_by()
        .values_list("worker_id", flat=True)
        .distinct()
    )
    pseudonym = pseudonyms_of(study.pk)
    params = {
        "study": study.pk,
        "status": Assignment.Status.SUBMITTED,
        "slug": cells.label(study.slug),
        "workers": workers,
        # CSV: None for an empty id: COPY writes NULL as nothing, as csv.writer writes "".
        "pseudonyms": [cells.label(pseudonym(worker)) for worker in workers],
    }
    # The assignment's cells, computed once per assignment (not once per span), in
    # (document position, id) order; OFFSET 0 keeps the planner from merging the subqueries.
    tail = [f"{text('a.worker_feedback')} AS feedback"]
    if with_platform_ids:
        tail += [f"{text('w.platform')} AS platform", f"{text('w.external_id')} AS external_id"]
    answers = [
        f"{answer_cell(key, cells, number=question['kind'] == 'likert')} AS answer_{n}"
        for n, (key, question) in enumerate(zip(keys, questions, strict=True))
    ]
    assignments = (
        f"SELECT a.id, d.position, {text('d.external_id')} AS document, {text('d.system')} AS system, "  # noqa: S608
        f"p.pseudonym, {text('a.kind')} AS kind, {text('a.block')} AS block, "
        f"{iso_text('a.submitted_at')} AS submitted_at, a.active_seconds, {', '.join([*answers, *tail])} "
        f"FROM {Assignment._meta.db_table} a JOIN {Document._meta.db_table} d ON d.id = a.document_id "
        "JOIN unnest(%(workers)s::bigint[], %(pseudonyms)s::text[]) AS p(worker_id, pseudonym) "
        "ON p.worker_id = a.worker_id "
        + (f"JOIN {Worker._meta.db_table} w ON w.id = a.worker_id " if with_platform_ids else "")
        + (
            f"LEFT JOIN {DocumentAnswer._meta.db_table} answer ON answer.assignment_id = a.id "
            if keys
            else ""
        )
        + "WHERE a.study_id = %(study)s AND a.status = %(status)s ORDER BY d.position, a.id OFFSET 0"
    )
    # One assignment's spans at a time, sorted: a LATERAL subquery fenced by OFFSET can only be
    # the inner side of a nested loop, which keeps the outer (sorted) order, so rows leave after
    # one assignment's sort. An ORDER BY over the whole table would let the planner sort all of
    # it first (on disk, tens of seconds before the first row at 10M) whenever it expects few rows.
    spans = (
        'SELECT e.id, s.index AS segment, e.start, e."end", e.text, c.key AS category, '  # noqa: S608
        "ps.index AS paired_segment, e.paired_start, e.paired_end, e.paired_text, e.comment, e.created_at "
        f"FROM {ErrorAnnotation._meta.db_table} e JOIN {Segment._meta.db_table} s ON s.id = e.segment_id "
        f"JOIN {Category._meta.db_table} c ON c.id = e.category_id "
        f"LEFT JOIN {Segment._meta.db_table} ps ON ps.id = e.paired_segment_id "
        "WHERE e.assignment_id = a.id ORDER BY s.index, e.start, e.id OFFSET 0"
    )
    after = [f"a.answer_{n}" for n in range(len(keys))] + ["a.feedback"]
    after += ["a.platform", "a.external_id"] if with_platform_ids else []
    who = ["a.pseudonym", "a.id", "a.kind", "a.block"]
    annotated = (
        f'SELECT %(slug)s, a.document, a.system, e.segment, {text("e.text")}, e.start, e."end", '  # noqa: S608
        f"{text('e.category')}, e.paired_segment, e.paired_start, e.paired_end, {text('e.paired_text')}, "
        f"{text('e.comment')}, {', '.join(who)}, {iso_text('e.created_at')}, a.submitted_at, a.active_seconds, "
        f"'False', {', '.join(after)} FROM ({assignments}) a CROSS JOIN LATERAL ({spans}) e"
    )
    # segment, span_text, start, end, category, paired_segment/start/end, paired_text, comment
    nothing = ", ".join("NULL" if number else cells.no_text for number in [1, 0, 1, 1, 0, 1, 1, 1, 0, 0])
    found_nothing = (
        f"SELECT %(slug)s, a.document, a.system, {nothing}, {', '.join(who)}, {cells.no_text}, "  # noqa: S608
        f"a.submitted_at, a.active_seconds, 'True', {', '.join(after)} FROM ({assignments}) a "
        f"WHERE NOT EXISTS (SELECT 1 FROM {ErrorAnnotation._meta.db_table} e WHERE e.assignment_id = a.id) "
        "ORDER BY a.position, a.id"
    )
    return [(f"COPY ({query}) TO STDOUT (FORMAT csv)", params) for query in (annotated, found_nothing)]


def span_csv_copy(study, *, with_platform_ids=False):
    """The span table's CSV rows (no header) as bytes chunks, or None where COPY cannot match.

    The columns are exports.rows.columns(with_platform_ids, study): the span columns, the
    document questions, worker_feedback and, when asked, the platform ids.
    """
    if connection.vendor != "postgresql" or is_assisted(study):
        return None
    return _copy_chunks(_statements(study, with_platform_ids))


def span_arrow_batches(study, *, schema, with_platform_ids=False):
    """The span table as Arrow record batches of `schema` (exports.parquet.parquet_schema), or
    None where COPY cannot match the Python rows (as span_csv_copy)."""
    if connection.vendor != "postgresql" or is_assisted(study):
        return None
    return copy_batches(_statements(study, with_platform_ids, RAW_CELLS), schema)


def _copy_chunks(statements):
    # JIT would compile the expressions for about 0.4 s before the first row, more than it saves.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        for statement, params in statements:
            with cursor.cursor.copy(statement, params) as copy:
                rows = []
                for row in copy:
                    rows.append(row[:-1])
                    if len(rows) == ROWS_PER_CHUNK:
                        yield b"\r\n".join(rows) + b"\r\n"
                        rows = []
                if rows:
                    yield b"\r\n".join(rows) + b"\r\n"
