"""What a worker does on the task page: add and remove spans, move, submit.

Every call locks the assignment row first, so a double click or two tabs
cannot interleave writes, and every call is idempotent where a retry may
repeat it (adds carry a client-made id).
"""

import secrets
from base64 import b32encode
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotations.models import Assignment, ErrorAnnotation
from studies.models import Segment
from studies.spans import is_whole_number, span_error

MAX_COMMENT = 2000
MAX_ACTIVITY_STEP = 120  # seconds one activity report may add
ACTIVITY_SLACK_SECONDS = 5  # how early a report may arrive (network jitter, a late tick)
MAX_VISITS_KEPT = 5000


class TaskInputError(ValueError):
    """The request is malformed or does not fit the document (HTTP 400)."""


class TaskClosed(Exception):
    """The assignment no longer takes changes: submitted or released (HTTP 409)."""


def locked_open(assignment):
    locked = Assignment.objects.select_for_update(of=("self",)).select_related("study").get(pk=assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        raise TaskClosed("This assignment is already submitted; it can no longer change.")
    if locked.available_from is not None and locked.available_from > timezone.now():
        raise TaskClosed(f"This retest opens on {locked.available_from:%Y-%m-%d %H:%M} UTC.")
    if locked.status == Assignment.Status.RELEASED:
        raise TaskClosed(
            "This assignment was released after a long time without activity; "
            "what you saved is kept, but it can no longer change."
        )
    return locked


def touch(assignment, *fields):
    now = timezone.now()
    assignment.last_activity_at = now
    if assignment.started_at is None:
        assignment.started_at = now
    if assignment.status == Assignment.Status.ASSIGNED:
        assignment.status = Assignment.Status.IN_PROGRESS
    assignment.save(update_fields=["last_activity_at", "started_at", "status", *fields])


def furthest_segment(assignment):
    return max([assignment.current_segment, *assignment.segments_visited])


def _segments_by_index(assignment, data):
    """The segments a request names (not the whole document: saves stay cheap)."""
    wanted = [data.get("segment")]
    if isinstance(data.get("paired"), dict):
        wanted.append(data["paired"].get("segment"))
    wanted = [index for index in wanted if is_whole_number(index)]
    segments = Segment.objects.filter(document_id=assignment.document_id, index__in=wanted)
    return {segment.index: segment for segment in segments.only("id", "index", "text")}


def _span(raw, segments, reachable, label):
    if not isinstance(raw, dict):
        raise TaskInputError(f"{label}: give segment, start, end and text")
    index = raw.get("segment")
    if not is_whole_number(index) or index not in segments:
        raise TaskInputError(f"{label}: segment {index!r} is not in this document")
    if index > reachable:
        raise TaskInputError(f"{label}: segment {index} has not been reached yet")
    text = raw.get("text")
    if not isinstance(text, str):
        raise TaskInputError(f"{label}: 'text' must be the selected text")
    error = span_error(segments[index].text, raw.get("start"), raw.get("end"), text)
    if error:
        raise TaskInputError(f"{label}: {error}")
    return segments[index], raw["start"], raw["end"], text


@transaction.atomic
def annotation_add(*, assignment, data):
    """Store one error annotation from the worker page; returns (annotation, created).

    `data` is the decoded JSON body: client_id, category, segment, start, end,
    text, comment, and for a paired category `paired` {segment, start, end, text}.
    The same client_id again returns the stored annotation (a retried save).
    """
    if not isinstance(data, dict):
        raise TaskInputError("send a JSON object")
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
        raise TaskInputError("'client_id' must be text of 1 to 64 characters")
    assignment = locked_open(assignment)
    existing = assignment.annotations.filter(client_id=client_id).first()
    if existing is not None:
        return existing, False
    category = assignment.study.taxonomy.categories.filter(key=data.get("category")).first() if (
        assignment.study.taxonomy_id and isinstance(data.get("category"), str)
    ) else None  # fmt: skip
    if category is None:
        raise TaskInputError(f"category {data.get('category')!r} is not in this study's taxonomy")
    segments = _segments_by_index(assignment, data)
    reachable = furthest_segment(assignment)
    segment, start, end, text = _span(data, segments, reachable, "span")
    paired = data.get("paired")
    if category.is_paired:
        if paired is None:
            raise TaskInputError(f"{category.label} is a paired category: also select the earlier span")
        paired_segment, paired_start, paired_end, paired_text = _span(
            paired, segments, reachable, "paired span"
        )
        if paired_segment.index > segment.index:
            raise TaskInputError("paired span: it must be in the same or an earlier segment")
    elif paired is not None:
        raise TaskInputError(f"{category.label} takes one span only, not a paired span")
    else:
        paired_segment = paired_start = paired_end = None
        paired_text = ""
    comment = data.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise TaskInputError(f"'comment' must be text of at most {MAX_COMMENT} characters")
    # The assignment row lock serialises this worker's saves, so the client_id
    # check above cannot race with another insert of the same annotation.
    annotation = ErrorAnnotation.objects.create(
        assignment=assignment, segment=segment, category=category, start=start, end=end,
        text=text, paired_segment=paired_segment, paired_start=paired_start,
        paired_end=paired_end, paired_text=paired_text, comment=comment, client_id=client_id,
    )  # fmt: skip
    touch(assignment)
    return annotation, True


@transaction.atomic
def annotation_remove(*, assignment, client_id):
    """Remove an annotation by its client id; removing one already gone is fine."""
    assignment = locked_open(assignment)
    assignment.annotations.filter(client_id=client_id).delete()
    touch(assignment)


@transaction.atomic
def assignment_move(*, assignment, segment):
    """Go to segment `segment`: back to any seen one, or on to the next."""
    assignment = locked_open(assignment)
    count = Segment.objects.filter(document_id=assignment.document_id).count()
    if not is_whole_number(segment) or not 0 <= segment < count:
        raise TaskInputError(f"segment must be a whole number from 0 to {count - 1}")
    if segment > furthest_segment(assignment) + 1:
        raise TaskInputError("segments are done in order: finish the current one first")
    if not assignment.segments_visited:
        assignment.segments_visited = [assignment.current_segment]
    if len(assignment.segments_visited) < MAX_VISITS_KEPT:
        assignment.segments_visited.append(segment)
    assignment.current_segment = segment
    touch(assignment, "current_segment", "segments_visited")
    return assignment


@transaction.atomic
def assignment_record_activity(*, assignment, seconds, now=None):
    """Add active time reported by the page, never more than the wall clock allows.

    A report adds at most MAX_ACTIVITY_STEP seconds, and at most the time since
    the moment activity was last credited up to (`activity_credited_to`), plus
    ACTIVITY_SLACK_SECONDS for a report that arrives early. The first report may
    cover the time since the assignment started, or one reporting interval. So
    a page that reports 15 s every 15 s is credited in full, and a client that
    fires reports in a loop gains a few seconds, not hours.
    """
    if not is_whole_number(seconds) or seconds < 0:
        raise TaskInputError("'seconds' must be a whole number of at least 0")
    assignment = locked_open(assignment)
    now = now or timezone.now()
    credited_to = assignment.activity_credited_to
    if credited_to is None:
        interval = timedelta(seconds=settings.TASK_ACTIVITY_INTERVAL_SECONDS)
        credited_to = now - max(interval, now - (assignment.started_at or now))
    room = (now - credited_to).total_seconds() + ACTIVITY_SLACK_SECONDS
    credited = max(0, min(seconds, MAX_ACTIVITY_STEP, int(room)))
    assignment.active_seconds += credited
    # Time nobody reported (an idle or hidden tab) is not credited later; slack
    # used by an early report is paid back by the next one.
    assignment.activity_credited_to = max(now, credited_to + timedelta(seconds=credited))
    touch(assignment, "active_seconds", "activity_credited_to")
    return assignment


def new_completion_code():
    # 80 random bits in base 32: short enough to type, too many to guess.
    return b32encode(secrets.token_bytes(10)).decode()


@transaction.atomic
def assignment_submit(*, assignment):
    """Submit the assignment once all segments are done; submitting again changes nothing."""
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        return locked
    locked = locked_open(locked)
    if locked.document_id is None:  # a block of a rating study
        from .rating_task import block_missing

        missing = block_missing(locked)
        if missing:
            raise TaskInputError(missing)
    elif locked.study.protocol == "review":
        from .review_task import review_missing

        missing = review_missing(locked)
        if missing:
            raise TaskInputError(missing)
    elif furthest_segment(locked) < Segment.objects.filter(document_id=locked.document_id).count() - 1:
        raise TaskInputError("read every segment before submitting")
    locked.status = Assignment.Status.SUBMITTED
    locked.submitted_at = timezone.now()
    locked.completion_code = new_completion_code()
    locked.save(update_fields=["status", "submitted_at", "completion_code"])
    from qualification.services import assignment_scored  # scoring reads annotations; no import cycle

    assignment_scored(assignment=locked)
    from .blocks import retest_schedule

    retest_schedule(assignment=locked)
    return locked
