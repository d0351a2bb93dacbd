"""The suggestion arm's assignment starts with its document's suggestions as its own errors.

Only a main assignment of the suggestion arm on a main document receives them: a
qualification, gold or attention-check document never does, and the control arm's
page and task API hold nothing of them. They are given once, when the page (or its
state) is first asked for while the assignment is open: each becomes a TranslationError
of the assignment, pointing at its suggestion, which the worker removes like any error
of their own. A SuggestionPrefill row records that it happened, so removing every one
does not bring them back.
"""

from django.db import transaction

from annotations.models import Assignment
from annotations.services.refusals import closed_reason
from studies.models import Document

from ..models import SuggestedError, SuggestionPrefill, TranslationError
from . import SUGGESTIONS


def shows_suggestions(assignment):
    return (
        assignment.arm == SUGGESTIONS
        and assignment.kind == Assignment.Kind.MAIN
        and assignment.document_id is not None
        and assignment.document.kind == Document.Kind.MAIN
    )


def suggestion_client_id(suggestion_id):
    return f"suggested-{suggestion_id}"


@transaction.atomic
def suggestions_prefill(*, assignment):
    """Give the assignment its document's suggestions, once; returns how many it received now."""
    if not shows_suggestions(assignment):
        return 0
    locked = Assignment.objects.select_for_update(of=("self",)).get(pk=assignment.pk)
    if closed_reason(locked) is not None or SuggestionPrefill.objects.filter(assignment=locked).exists():
        return 0
    suggestions = list(SuggestedError.objects.filter(document_id=locked.document_id).order_by("position"))
    # A client that saved errors before ever loading the page cannot have used these ids for
    # anything but these suggestions; skip any it did, rather than fail the page.
    taken = set(locked.translation_errors.values_list("client_id", flat=True))
    suggestions = [s for s in suggestions if suggestion_client_id(s.pk) not in taken]
    TranslationError.objects.bulk_create(
        [
            TranslationError(
                assignment=locked,
                segment_id=s.segment_id,
                side=s.side,
                start=s.start,
                end=s.end,
                text=s.text,
                category_id=s.category_id,
                severity=s.severity,
                client_id=suggestion_client_id(s.pk),
                suggestion=s,
            )  # fmt: skip
            for s in suggestions
        ]
    )
    SuggestionPrefill.objects.create(assignment=locked, suggestions=len(suggestions))
    return len(suggestions)
