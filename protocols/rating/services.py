"""What a worker does on a Likert or BWS page: rate, judge, and when the block is done."""

from django.db import transaction
from django.db.models import OuterRef

from annotations.services.opening import assignment_column, assignment_opened_or_refused, column, table
from annotations.services.row_statements import upsert
from annotations.services.task import TaskInputError, rows_at_least
from protocols.rating.models import BestWorstJudgment, Rating
from studies.models import Document
from studies.spans import is_whole_number

from .keys import BWS, LIKERT


def likert_scale(study):
    scale = study.config.get("scale", {})
    return scale.get("min", 1), scale.get("max", 5)


def _document_ids(assignment):
    if assignment.study.protocol == BWS:
        return {d for entry in assignment.items for d in entry["documents"]}
    return set(assignment.items)


def _block_document_read():
    """Read of the opening UPDATE: the document of the study's block with the external id given."""
    return (
        f"(SELECT d.{column(Document, 'id')} FROM {table(Document)} d"  # noqa: S608
        f" WHERE d.{column(Document, 'study')} = {assignment_column('study')}"
        f" AND d.{column(Document, 'block')} = {assignment_column('block')}"
        f" AND d.{column(Document, 'external_id')} = %s)"
    )


def _external_id(value):
    return value if isinstance(value, str) else None


def _document(assignment, external_id, document_id):
    """The document `external_id` of the block, as the opening UPDATE found it (`document_id`)."""
    if document_id is None or document_id not in _document_ids(assignment):
        raise TaskInputError(f"document {external_id!r} is not in this block")
    return Document(id=document_id, external_id=external_id)


@transaction.atomic
def rating_save(*, token, data):
    """Store (or change) the worker's Likert score of one output of their block.

    BEGIN, the opening UPDATE (annotations.services.opening, which also finds
    the document), one UPSERT, COMMIT: sending the same score again changes
    nothing, a new one replaces it."""
    external_id = data.get("document")
    opened = assignment_opened_or_refused(
        token=token, reads=[_block_document_read()], params=[_external_id(external_id)]
    )
    assignment = opened.assignment
    if assignment.study.protocol != LIKERT:
        raise TaskInputError("this is not a Likert study")
    document = _document(assignment, external_id, *opened.reads)
    low, high = likert_scale(assignment.study)
    score = data.get("score")
    if not is_whole_number(score) or not low <= score <= high:
        raise TaskInputError(f"'score' must be a whole number from {low} to {high}")
    rating = Rating(assignment=assignment, document=document, score=score)
    upsert(rating, unique=("assignment", "document"), update=("score", "updated_at"))
    return rating


@transaction.atomic
def judgment_save(*, token, data):
    """Store (or change) the best and worst of one tuple, and the gap value.

    When the study has a value scale (``config.bws.value_scale``) the value
    is required: a judgment without it would be missing from the value score.
    BEGIN, the opening UPDATE (which also finds both documents), one UPSERT, COMMIT.
    """
    best_id, worst_id = data.get("best"), data.get("worst")
    opened = assignment_opened_or_refused(
        token=token,
        reads=[_block_document_read()] * 2,
        params=[_external_id(best_id), _external_id(worst_id)],
    )
    assignment = opened.assignment
    if assignment.study.protocol != BWS:
        raise TaskInputError("this is not a Best-Worst Scaling study")
    position = data.get("position")
    entry = (
        next((e for e in assignment.items if e["position"] == position), None)
        if is_whole_number(position)
        else None
    )
    if entry is None:
        raise TaskInputError(f"tuple {position!r} is not in this block")
    best, worst = (
        _document(assignment, best_id, opened.reads[0]),
        _document(assignment, worst_id, opened.reads[1]),
    )
    if best.pk not in entry["documents"] or worst.pk not in entry["documents"]:
        raise TaskInputError("best and worst must be outputs of this tuple")
    if best.pk == worst.pk:
        raise TaskInputError("best and worst must be different outputs")
    value = data.get("value")
    value_max = assignment.study.config.get("bws", {}).get("value_scale")
    if value is None and value_max:
        raise TaskInputError(
            f"'value' is required: how large the difference is, a whole number from 1 to {value_max}"
        )
    if value is not None and (not value_max or not is_whole_number(value) or not 1 <= value <= value_max):
        raise TaskInputError(f"'value' must be a whole number from 1 to {value_max}" if value_max
                             else "this study asks for no value rating")  # fmt: skip
    judgment = BestWorstJudgment(
        assignment=assignment, position=position, documents=sorted(entry["documents"]), best=best, worst=worst,
        value=value,
    )  # fmt: skip
    upsert(
        judgment,
        unique=("assignment", "position"),
        update=("documents", "best", "worst", "value", "updated_at"),
    )
    return judgment


def block_complete(assignment):
    """The condition under which block_missing finds nothing left, for submit's UPDATE: a rating
    (a valued judgment, where the study asks a value) for every item of the block."""
    if assignment.study.protocol == BWS:
        work = BestWorstJudgment.objects.filter(assignment=OuterRef("pk"))
        if assignment.study.config.get("bws", {}).get("value_scale"):
            work = work.filter(value__isnull=False)
    else:
        work = Rating.objects.filter(assignment=OuterRef("pk"))
    return rows_at_least(work, len(assignment.items))


def block_missing(assignment):
    """What is still to do before submitting a block, or "" when it is complete."""
    if assignment.study.protocol == BWS:
        left = len(assignment.items) - assignment.judgments.count()
        if left:
            return f"judge every tuple before submitting ({left} left)"
        if assignment.study.config.get("bws", {}).get("value_scale"):
            # Judgments saved before the value was required may lack it.
            unvalued = assignment.judgments.filter(value__isnull=True).count()
            if unvalued:
                return f"rate how large the difference is in every tuple before submitting ({unvalued} left)"
        return ""
    left = len(assignment.items) - assignment.ratings.count()
    return f"rate every output before submitting ({left} left)" if left else ""
