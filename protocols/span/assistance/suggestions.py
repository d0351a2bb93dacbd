"""Which suggestions an assignment shows, and how the page receives them.

Only a main assignment of the suggestion arm on a main document shows any:
qualification, gold and attention-check documents never do, and the control
arm's page data holds no suggestion at all (not even hidden).
"""

from annotations.models import Assignment
from studies.models import Document

from ..models import Suggestion, SuggestionDecision
from . import SUGGESTIONS


def shows_suggestions(assignment):
    return (
        assignment.arm == SUGGESTIONS
        and assignment.kind == Assignment.Kind.MAIN
        and assignment.document_id is not None
        and assignment.document.kind == Document.Kind.MAIN
    )


def may_show_suggestions(assignment):
    """`shows_suggestions` without the document's kind, which `awaiting_decision` checks in SQL
    (so a move reads no document)."""
    return (
        assignment.arm == SUGGESTIONS
        and assignment.kind == Assignment.Kind.MAIN
        and assignment.document_id is not None
    )


def awaiting_decision(assignment, segment_index):
    """The suggestions before segment `segment_index` that await the assignment's decision, as a
    queryset (a subquery of the move's UPDATE); call it when `may_show_suggestions`."""
    return Suggestion.objects.filter(
        document_id=assignment.document_id,
        document__kind=Document.Kind.MAIN,
        segment__index__lt=segment_index,
    ).exclude(decisions__assignment_id=assignment.pk)


def suggestions_shown(assignment):
    """The assignment's suggestions (a queryset; empty when it shows none)."""
    if not shows_suggestions(assignment):
        return Suggestion.objects.none()
    return Suggestion.objects.filter(document_id=assignment.document_id)


def suggestion_data(suggestion, decision=None):
    return {
        "id": suggestion.pk,
        "category": suggestion.category.key,
        "segment": suggestion.segment.index,
        "start": suggestion.start,
        "end": suggestion.end,
        "text": suggestion.text,
        "paired": None
        if suggestion.paired_segment_id is None
        else {
            "segment": suggestion.paired_segment.index,
            "start": suggestion.paired_start,
            "end": suggestion.paired_end,
            "text": suggestion.paired_text,
        },
        "decision": decision_data(decision) if decision is not None else None,
    }


def decision_data(decision):
    return {
        "action": decision.action,
        "annotation": decision.annotation.client_id if decision.annotation_id else None,
    }


def task_suggestions(assignment):
    """The page's suggestions in reading order, each with the worker's decision (or None)."""
    rows = suggestions_shown(assignment).select_related("category", "segment", "paired_segment")
    decisions = {
        d.suggestion_id: d
        for d in SuggestionDecision.objects.filter(assignment=assignment).select_related("annotation")
    }
    ordered = sorted(rows, key=lambda s: (s.segment.index, s.start, s.end, s.position))
    return [suggestion_data(row, decisions.get(row.pk)) for row in ordered]


def undecided_before(assignment, segment_index):
    """How many of the assignment's suggestions in segments before `segment_index` await a decision."""
    return (
        suggestions_shown(assignment)
        .filter(segment__index__lt=segment_index)
        .exclude(decisions__assignment=assignment)
        .count()
    )
