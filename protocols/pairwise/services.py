"""What a worker does on a pairwise page: choose in a pair, and when the block is done."""

from django.db import transaction
from django.db.models import OuterRef, Q

from annotations.services.opening import assignment_opened_or_refused
from annotations.services.row_statements import upsert
from annotations.services.task import TaskInputError, rows_at_least
from studies.spans import is_whole_number

from . import config
from .keys import PAIRWISE, TIE
from .models import PairwiseChoice

FIELDS = ("position", "choice", "strength")


@transaction.atomic
def choice_save(*, token, data):
    """Store (or change) the worker's choice in one pair of their block; sending it again changes nothing.

    `data` is {"position", "choice": "left"|"right"|"tie", "strength": n or null}: the
    sides as this worker was shown them. A tie needs a study that allows ties
    (config.allow_ties); with a strength scale (config.strength) a side's
    choice needs its strength, and a tie has none. BEGIN, the opening UPDATE
    (annotations.services.opening), one UPSERT, COMMIT.
    """
    assignment = assignment_opened_or_refused(token=token).assignment
    study = assignment.study
    if study.protocol != PAIRWISE:
        raise TaskInputError("this is not a pairwise comparison study")
    unknown = sorted(str(key) for key in data if key not in FIELDS)
    if unknown:
        raise TaskInputError(f"unknown field '{unknown[0]}' (send {', '.join(FIELDS)})")
    position = data.get("position")
    entry = (
        next((e for e in assignment.items if e["position"] == position), None)
        if is_whole_number(position)
        else None
    )
    if entry is None:
        raise TaskInputError(f"pair {position!r} is not in this block")
    choice, strength = data.get("choice"), data.get("strength")
    problem = config.choice_problem(study, choice) or config.strength_problem(study, choice, strength)
    if problem:
        raise TaskInputError(problem)
    saved = PairwiseChoice(
        assignment=assignment, position=position, left_id=entry["left"], right_id=entry["right"], choice=choice,
        strength=strength,
    )  # fmt: skip
    upsert(
        saved, unique=("assignment", "position"), update=("left", "right", "choice", "strength", "updated_at")
    )
    return saved


def block_complete(assignment):
    """The condition under which block_missing finds nothing left, for submit's UPDATE: a choice in
    every pair of the block, each one the study's options still allow."""
    if not assignment.items:
        return None  # block_missing says why
    choices = PairwiseChoice.objects.filter(assignment=OuterRef("pk"))
    if not config.allow_ties(assignment.study):
        choices = choices.exclude(choice=TIE)
    if config.strength_max(assignment.study) is not None:
        choices = choices.filter(Q(choice=TIE) | Q(strength__isnull=False))
    return rows_at_least(choices, len(assignment.items))


def block_missing(assignment):
    """What is still to do before submitting a block, or "" when it is complete."""
    if not assignment.items:
        return "this block has no pairs to compare"
    choices = assignment.pairwise_choices.all()
    left = len(assignment.items) - choices.count()
    if left:
        return f"choose in every pair before submitting ({left} left)"
    study = assignment.study
    # Choices saved before the study's options changed may break the new ones.
    if not config.allow_ties(study) and (ties := choices.filter(choice=TIE).count()):
        return (
            f"this study no longer allows ties: choose A or B in every pair before submitting ({ties} left)"
        )
    if config.strength_max(study) is not None:
        without = choices.exclude(choice=TIE).filter(strength__isnull=True).count()
        if without:
            return f"say how clearly the output is better in every pair before submitting ({without} left)"
    return ""
