"""The span table as CSV straight from PostgreSQL (COPY ... TO STDOUT), byte for byte what
exports.rows.csv_lines writes for the same study, at a fraction of the CPU time.

Every cell is computed in SQL the way span_rows and csv.writer compute it in Python:
empty text is NULL (PostgreSQL quotes an empty string, csv.writer does not), text goes
through the formula guard (exports.spreadsheet.sql_spreadsheet_safe), times are
isoformat()'s, and the annotator column comes from a worker -> pseudonym array computed
in Python by accounts.pseudonyms (the secret never reaches SQL). PostgreSQL ends a row
with "\\n" and csv.writer with "\\r\\n": the server sends one row per CopyData message,
so each row's last byte is replaced here.

Assisted studies (rejected-suggestion rows) keep the Python writer: None.

The SQL is put together from model table names, fixed expressions and question keys
(checked at import: letters, digits, _ and -, and quoted here anyway); every value comes in
as a parameter, hence the S608 exemptions.
"""

from django.db import connection

from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from exports.spreadsheet import spreadsheet_safe, sql_spreadsheet_safe
from studies.models import Category, Document, Segment

from .document_questions import study_questions
from .exports import is_assisted
from .models import DocumentAnswer, ErrorAnnotation

ROWS_PER_CHUNK = 2000
SAFE = sql_spreadsheet_safe


def iso(expression):
    """datetime.isoformat() of a UTC timestamp: microseconds only when not zero."""
    moment = f"to_char(({expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
    return (
        f"(CASE WHEN {expression} IS NULL THEN NULL WHEN right({moment}, 7) = '.000000' "
        f"THEN left({moment}, -7) || '+00:00' ELSE {moment} || '+00:00' END)"
    )


def answer_cell(key):
    """document_questions.answer_cell in SQL: a list joined by "; ", none as empty, text guarded."""
    value = f"answer.answers -> {key}"
    joined = (
        f"(SELECT string_agg(item, '; ' ORDER BY place) FROM jsonb_array_elements_text({value}) "  # noqa: S608
        "WITH ORDINALITY AS items(item, place))"
    )
    return (
        f"(CASE jsonb_typeof({value}) WHEN 'array' THEN {SAFE(joined)} "
        f"WHEN 'string' THEN {SAFE(f'answer.answers ->> {key}')} "
        f"WHEN 'boolean' THEN CASE WHEN ({value})::boolean THEN 'True' ELSE 'False' END "
        f"WHEN 'number' THEN answer.answers ->> {key} END)"
    )


def _literal(value):
    return "'" + value.replace("'", "''") + "'"


def _statements(study, with_platform_ids):
    """(annotation rows, found-nothing rows): two COPY statements and their parameters."""
    keys = [_literal(question["key"]) for question in study_questions(study)]
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
        "slug": spreadsheet_safe(study.slug),
        "workers": workers,
        "pseudonyms": [spreadsheet_safe(pseudonym(worker)) for worker in workers],
    }
    answers = [answer_cell(key) for key in keys]
    tail = [SAFE("a.worker_feedback")]
    if with_platform_ids:
        tail += [SAFE("w.platform"), SAFE("w.external_id")]
    # OFFSET 0 keeps the spans a subquery run per assignment (a nested loop over the sorted
    # assignments), so rows leave after one assignment's sort, not after sorting the table.
    spans = (
        'SELECT e.id, s.index AS segment, e.start, e."end", e.text, c.key AS category, '  # noqa: S608
        "ps.index AS paired_segment, e.paired_start, e.paired_end, e.paired_text, e.comment, e.created_at "
        f"FROM {ErrorAnnotation._meta.db_table} e JOIN {Segment._meta.db_table} s ON s.id = e.segment_id "
        f"JOIN {Category._meta.db_table} c ON c.id = e.category_id "
        f"LEFT JOIN {Segment._meta.db_table} ps ON ps.id = e.paired_segment_id "
        "WHERE e.assignment_id = a.id OFFSET 0"
    )

    def select(cells, lateral=""):
        return (
            f"SELECT {', '.join(cells)} FROM {Assignment._meta.db_table} a "  # noqa: S608
            f"JOIN {Document._meta.db_table} d ON d.id = a.document_id "
            "JOIN unnest(%(workers)s::bigint[], %(pseudonyms)s::text[]) AS p(worker_id, pseudonym) "
            "ON p.worker_id = a.worker_id "
            + (f"JOIN {Worker._meta.db_table} w ON w.id = a.worker_id " if with_platform_ids else "")
            + (
                f"LEFT JOIN {DocumentAnswer._meta.db_table} answer ON answer.assignment_id = a.id "
                if keys
                else ""
            )
            + lateral
            + "WHERE a.study_id = %(study)s AND a.status = %(status)s "
        )

    document = ["%(slug)s", SAFE("d.external_id"), SAFE("d.system")]
    who = ["p.pseudonym", "a.id", SAFE("a.kind"), SAFE("a.block")]
    annotated = select(
        [*document, "e.segment", SAFE("e.text"), "e.start", 'e."end"', SAFE("e.category"), "e.paired_segment",
         "e.paired_start", "e.paired_end", SAFE("e.paired_text"), SAFE("e.comment"), *who, iso("e.created_at"),
         iso("a.submitted_at"), "a.active_seconds", "'False'", *answers, *tail],
        lateral=f"CROSS JOIN LATERAL ({spans}) e ",
    ) + "ORDER BY d.position, a.id, e.segment, e.start, e.id"  # fmt: skip
    nothing = (
        f"AND NOT EXISTS (SELECT 1 FROM {ErrorAnnotation._meta.db_table} e WHERE e.assignment_id = a.id) "  # noqa: S608
    )
    found_nothing = select(
        [*document, *["NULL"] * 10, *who, "NULL", iso("a.submitted_at"), "a.active_seconds", "'True'", *answers,
         *tail],
    ) + nothing + "ORDER BY d.position, a.id"  # fmt: skip
    return [(f"COPY ({query}) TO STDOUT (FORMAT csv)", params) for query in (annotated, found_nothing)]


def span_csv_copy(study, *, with_platform_ids=False):
    """The span table's CSV rows (no header) as bytes chunks, or None where COPY cannot match.

    The columns are exports.rows.columns(with_platform_ids, study): the span columns, the
    document questions, worker_feedback and, when asked, the platform ids.
    """
    if connection.vendor != "postgresql" or is_assisted(study):
        return None
    return _copy_chunks(_statements(study, with_platform_ids))


def _copy_chunks(statements):
    with connection.cursor() as cursor:
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
