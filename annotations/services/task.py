"""What every task page does with its assignment: lock it, record activity, submit.

A protocol's own writes (spans, ratings, answers, choices) are in its app and
open the assignment with the one UPDATE of opening.py (find, check, lock and
touch at once) and store their rows with row_statements.py, as the
suggestion arm's decisions do.

Every call locks the assignment row first, so a double click or two tabs
cannot interleave writes, and every call is idempotent where a retry may
repeat it (adds carry a client-made id).
"""

import secrets
from base64 import b32encode
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThanOrEqual
from django.utils import timezone

from annotations.models import Assignment
from annotations.signals import assignment_submitted
from studies import protocols
from studies.allocation import allocation_settings
from studies.models import Document, Segment, Study
from studies.spans import is_whole_number

from .blocks import retest_schedule
from .opening import assignment_opened_or_refused
from .refusals import TaskClosed, TaskNotFound, closed_reason
from .rounds import in_round, round_completion_code, round_continue
from .stopping import allocation_after_submit

MAX_ACTIVITY_STEP = 120  # seconds one activity report may add
ACTIVITY_SLACK_SECONDS = 5  # how early a report may arrive (network jitter, a late tick)


class TaskInputError(ValueError):
    """The request is malformed or does not fit the document (HTTP 400)."""


def furthest_segment(assignment):
    return max([assignment.current_segment, *assignment.segments_visited])


MAX_VISITS_KEPT = 5000  # segments a move records in `segments_visited`; after that moves go unrecorded


def move_stored(assignment, segment, gates):
    """Store a move of the opened `assignment` to `segment` in one UPDATE that holds only where every
    `gates` condition (Exists expressions the protocol checks after the lock) holds; the segment is
    added to those visited. Return whether it was stored."""
    visited = assignment.segments_visited or [assignment.current_segment]
    if len(visited) < MAX_VISITS_KEPT:
        visited = [*visited, segment]
    return bool(
        Assignment.objects.filter(*gates, pk=assignment.pk).update(
            current_segment=segment, segments_visited=visited
        )
    )


@transaction.atomic
def assignment_record_activity(*, token, seconds, now=None):
    """Add active time reported by the page, never more than the wall clock allows.

    A report adds at most MAX_ACTIVITY_STEP seconds, and at most the time since
    the moment activity was last credited up to (`activity_credited_to`), plus
    ACTIVITY_SLACK_SECONDS for a report that arrives early. The first report may
    cover the time since the assignment started, or one reporting interval. So
    a page that reports 15 s every 15 s is credited in full, and a client that
    fires reports in a loop gains a few seconds, not hours.

    BEGIN, the opening UPDATE (opening.py), which returns the row's time columns
    as they are once it holds the lock, one UPDATE of the two it changes, COMMIT.
    """
    if not is_whole_number(seconds) or seconds < 0:
        raise TaskInputError("'seconds' must be a whole number of at least 0")
    now = now or timezone.now()
    assignment = assignment_opened_or_refused(token=token, now=now).assignment
    credited_to = assignment.activity_credited_to
    if credited_to is None:
        interval = timedelta(seconds=settings.TASK_ACTIVITY_INTERVAL_SECONDS)
        credited_to = now - max(interval, now - (assignment.started_at or now))
    room = (now - credited_to).total_seconds() + ACTIVITY_SLACK_SECONDS
    credited = max(0, min(seconds, MAX_ACTIVITY_STEP, int(room)))
    # The sum is made in the UPDATE from the locked row's value, as the lock already ensures.
    assignment.active_seconds += credited
    # Time nobody reported (an idle or hidden tab) is not credited later; slack
    # used by an early report is paid back by the next one.
    assignment.activity_credited_to = max(now, credited_to + timedelta(seconds=credited))
    Assignment.objects.filter(pk=assignment.pk).update(
        active_seconds=assignment.active_seconds, activity_credited_to=assignment.activity_credited_to
    )
    return assignment


def new_completion_code():
    # 80 random bits in base 32: short enough to type, too many to guess.
    return b32encode(secrets.token_bytes(10)).decode()


class _StudyLockFirst(Exception):  # noqa: N818 (a signal between the two tries, never an error)
    """The assignment's study allocates adaptively or has stopping rules: lock the study first."""


def assignment_submit(*, token):
    """Submit the assignment of `token` once all segments are done; submitting again changes nothing.

    In a qualification round the candidate's next document is created here, and
    every document of the round gets the same completion code (services.rounds).

    BEGIN, one SELECT ... FOR UPDATE that finds the assignment by its token and
    locks it, with its study, document and worker (what the checks, the
    receivers and the completion data read, the study's allocation setting,
    and the count of its document's segments, which the span protocol's check
    of what is left reads), one UPDATE, COMMIT; scoring against gold, a retest, a round's
    next document and an adaptive study's allocation add what they write. A
    repeat sends BEGIN, the SELECT, COMMIT.

    A study that allocates adaptively or has stopping rules is locked before the
    assignment, as a join locks the study before the assignments it releases, so
    the two never wait on each other in opposite orders. Which study that is
    shows only once the assignment is read; so when the first try finds such a
    study it rolls back (releasing the assignment, having waited for nothing
    while holding it) and submits again, study first (`_stopping_study`).
    Every other submit is spared the read of the allocation setting.
    """
    if "\x00" in token:  # no token holds NUL, and PostgreSQL refuses to compare text with it
        raise TaskNotFound(token)
    try:
        with transaction.atomic():
            return _submitted(token, stopping=None, study_first=False)
    except _StudyLockFirst:
        pass
    with transaction.atomic():
        return _submitted(token, stopping=_stopping_study(token), study_first=True)


def _allocates(study):
    settings = allocation_settings(study)
    return settings.adaptive or settings.stops


def row_count(rows, by):
    """The number of `rows` (a queryset filtered on an OuterRef) as a subquery: rows grouped by
    their column `by`, so the database counts them inside the statement that uses it; 0 when
    there are none."""
    return Coalesce(Subquery(rows.order_by().values(by).annotate(count=Count("pk")).values("count")), 0)


# The span protocol's check of what is left compares the furthest segment with the document's
# segment count (protocols/span/protocol.py): read here, in the SELECT that locks the assignment, it
# is not a statement of its own. A block assignment has no document, and the count is then 0.
_SEGMENTS_OF_DOCUMENT = row_count(Segment.objects.filter(document_id=OuterRef("document_id")), "document_id")


# Whether the worker has submitted a quality check on a changed copy of this document
# (Document.COPY_OF): a protocol that scores such checks against their original (the translation
# protocols' after_submit) reads them only when there is one, so a submit without one sends no
# statement for them.
_COPIES_SUBMITTED = Exists(
    Document.objects.filter(
        study_id=OuterRef("study_id"), kind=Document.Kind.ATTENTION, assignments__worker_id=OuterRef("worker_id"),
        assignments__kind=Assignment.Kind.MAIN, assignments__status=Assignment.Status.SUBMITTED,
    )
    .annotate(original=KT(f"meta__{Document.COPY_OF}"))
    .filter(original=OuterRef("document__external_id"))
)  # fmt: skip


def rows_at_least(rows, needed):
    """A protocol's `submit_ready` condition: the work `rows` of an assignment (a queryset that
    names the assignment as OuterRef("pk")) number at least `needed`."""
    return GreaterThanOrEqual(row_count(rows, "assignment"), needed)


def _submitted(token, *, stopping, study_first):
    """The submit, in the caller's transaction; `stopping` is the locked study when `study_first`
    found it allocating, and without `study_first` such a study raises _StudyLockFirst."""
    locked = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("study", "document", "worker")
        .annotate(document_segments=_SEGMENTS_OF_DOCUMENT, copies_submitted=_COPIES_SUBMITTED)
        .filter(token=token)
        .order_by()  # one row at most: no ordering to join the study and the document's study for
        .first()
    )
    if locked is None:
        raise TaskNotFound(token)
    if locked.status == Assignment.Status.SUBMITTED:
        return locked
    if (reason := closed_reason(locked)) is not None:
        raise TaskClosed(reason)
    if not study_first and _allocates(locked.study):
        raise _StudyLockFirst
    protocol = protocols.of(locked.study)
    ready = protocol.submit_ready(locked)
    if ready is None and (missing := protocol.missing(locked)):
        raise TaskInputError(missing)
    locked.status = Assignment.Status.SUBMITTED
    locked.submitted_at = timezone.now()
    locked.completion_code = (in_round(locked) and round_completion_code(locked)) or new_completion_code()
    fields = ["status", "submitted_at", "completion_code"]
    if ready is None or not Assignment.objects.filter(ready, pk=locked.pk).update(
        **{name: getattr(locked, name) for name in fields}
    ):
        if ready is not None and (missing := protocol.missing(locked)):
            raise TaskInputError(missing)  # the transaction rolls back whatever the code's reading wrote
        locked.save(update_fields=fields)
    # Receivers (the qualification workflow scores work against gold) run in this transaction.
    assignment_submitted.send(sender=Assignment, assignment=locked)
    protocols.of(locked.study).after_submit(locked)
    retest_schedule(assignment=locked)
    round_continue(assignment=locked)
    # A main rating: of a document, or of a block (the rating studies' and pairwise studies' place).
    if stopping is not None and locked.kind == Assignment.Kind.MAIN and (locked.document_id or locked.block):
        allocation_after_submit(study=stopping)
    return locked


def _stopping_study(token):
    """The study, locked, when it allocates adaptively or has stopping rules; else None (its
    setting read again: it may have changed since the first try)."""
    found = Study.objects.filter(assignments__token=token).values_list("pk", "config__allocation").first()
    if found is None:
        return None
    study_id, allocation = found
    if not _allocates(Study(pk=study_id, config={"allocation": allocation})):
        return None
    return Study.objects.select_for_update().get(pk=study_id)
