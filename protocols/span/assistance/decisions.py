"""The suggestion arm's writes: decide on a suggestion, or take the decision back.

Taking a suggestion stores an ordinary error annotation (the same checks and
the same idempotent client id as the page's own adds) and the decision in one
transaction, with the assignment row locked. The action is read from what was
stored, not from the button pressed: the same span and category is "accept",
another category "change", other boundaries "adjust".
"""

from django.db import transaction

from annotations.services.task import TaskInputError, furthest_segment, locked_open, touch

from ..models import SuggestionDecision
from ..services import annotation_add
from .suggestions import suggestions_shown

MAX_DECIDE_SECONDS = 24 * 3600


class DecisionConflict(TaskInputError):
    """The suggestion is decided already, otherwise: take that decision back first."""


def _suggestion(assignment, suggestion_id):
    if isinstance(suggestion_id, bool) or not isinstance(suggestion_id, int):
        raise TaskInputError("no such suggestion on this page")
    found = (
        suggestions_shown(assignment)
        .filter(pk=suggestion_id)
        .select_related("category", "segment", "paired_segment")
        .first()
    )
    if found is None:
        raise TaskInputError("no such suggestion on this page")
    return found


def action_of(suggested, taken):
    """accept, change or adjust: what a taken span is, compared with its suggestion.

    Both are (category, segment, start, end, paired) with paired (segment, start,
    end) or None; shared by the task API and the bundle import."""
    category, *span, paired = suggested
    taken_category, *taken_span, taken_paired = taken
    if taken_span != span or (taken_paired is not None and taken_paired != paired):
        return SuggestionDecision.Action.ADJUST
    if taken_category != category:
        return SuggestionDecision.Action.CHANGE
    return SuggestionDecision.Action.ACCEPT


def _shape(row):
    paired = (
        None if row.paired_segment_id is None else (row.paired_segment_id, row.paired_start, row.paired_end)
    )
    return (row.category_id, row.segment_id, row.start, row.end, paired)


def _seconds(data):
    seconds = data.get("seconds")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds <= MAX_DECIDE_SECONDS
    ):
        raise TaskInputError(f"'seconds' must be a number from 0 to {MAX_DECIDE_SECONDS}")
    return float(seconds)


@transaction.atomic
def suggestion_decide(*, assignment, suggestion_id, data):
    """Store the worker's decision on a suggestion; returns (decision, created).

    `data` is {"annotation": an annotation as the page adds it, or null to
    reject; "seconds": time to decide}. Sending the same decision again (a
    retried save) returns the stored one; a different one is refused while the
    first stands (DecisionConflict).
    """
    if (
        not isinstance(data, dict)
        or not {"annotation", "seconds"} <= set(data)
        or set(data) - {"annotation", "seconds"}
    ):
        raise TaskInputError(
            'send {"annotation": the annotation taken, or null to reject, "seconds": time to decide}'
        )
    assignment = locked_open(assignment)
    suggestion = _suggestion(assignment, suggestion_id)
    if suggestion.segment.index > furthest_segment(assignment):
        raise TaskInputError(f"segment {suggestion.segment.index} has not been reached yet")
    seconds = _seconds(data)
    taken = data["annotation"]
    existing = (
        SuggestionDecision.objects.filter(assignment=assignment, suggestion=suggestion)
        .select_related("annotation")
        .first()
    )
    if existing is not None:
        same = (
            existing.annotation is None
            if taken is None
            else isinstance(taken, dict)
            and existing.annotation is not None
            and existing.annotation.client_id == taken.get("client_id")
        )
        if same:
            return existing, False
        raise DecisionConflict("this suggestion is decided already: take that decision back first")
    if taken is None:
        decision = SuggestionDecision.objects.create(
            assignment=assignment,
            suggestion=suggestion,
            action=SuggestionDecision.Action.REJECT,
            seconds=seconds,
        )
        touch(assignment)
        return decision, True
    annotation, created = annotation_add(token=assignment.token, data=taken)
    if not created:
        raise DecisionConflict(
            "that client_id names an annotation stored already: give the taken span a new one"
        )
    decision = SuggestionDecision.objects.create(
        assignment=assignment, suggestion=suggestion, action=action_of(_shape(suggestion), _shape(annotation)),
        annotation=annotation, seconds=seconds,
    )  # fmt: skip
    return decision, True


@transaction.atomic
def suggestion_undo(*, assignment, suggestion_id):
    """Take back the decision on a suggestion (and the annotation it stored); undoing none is fine."""
    assignment = locked_open(assignment)
    suggestion = _suggestion(assignment, suggestion_id)
    decision = SuggestionDecision.objects.filter(assignment=assignment, suggestion=suggestion).first()
    if decision is not None:
        if decision.annotation_id is not None:
            decision.annotation.delete()  # the decision goes with it (CASCADE)
        else:
            decision.delete()
    touch(assignment)
