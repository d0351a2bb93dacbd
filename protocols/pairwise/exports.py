"""The pairwise protocol's rows of the annotation table: a row per choice in a pair."""

from accounts.pseudonyms import pseudonyms_of
from exports.rows import CHUNK, iso, submitted_rows

from .keys import LEFT, TIE
from .models import PairwiseChoice

COLUMNS = [
    "study", "block", "input_id", "position", "left", "right", "left_system", "right_system", "choice",
    "winner", "strength", "annotator", "assignment", "kind", "submitted_at", "active_seconds",
]  # fmt: skip
_FIELDS = [
    "assignment__block", "left__input_id", "position", "left__external_id", "right__external_id",
    "left__system", "right__system", "choice", "strength", "assignment__worker_id", "assignment_id",
    "assignment__kind", "assignment__submitted_at", "assignment__active_seconds",
    "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip


def pairwise_rows(study):
    """One row per choice of a submitted assignment, by block, assignment and pair.

    `left` and `right` are the sides the worker saw (A and B); `winner` is the
    document that won, or "tie".
    """
    pseudonym = pseudonyms_of(study.pk)
    choices = (
        submitted_rows(PairwiseChoice, study)
        .order_by("assignment__block", "assignment_id", "position", "id")
        .values_list(*_FIELDS)
    )
    for (block, input_id, position, left, right, left_system, right_system, choice, strength, worker, assignment,
         kind, submitted_at, seconds, platform, external_id) in choices.iterator(chunk_size=CHUNK):  # fmt: skip
        winner = TIE if choice == TIE else left if choice == LEFT else right
        row = [study.slug, block, input_id, position, left, right, left_system, right_system, choice, winner,
               "" if strength is None else strength, pseudonym(worker), assignment, kind, iso(submitted_at),
               seconds]  # fmt: skip
        yield row, (platform, external_id)


def pairwise_row_count(study):
    return submitted_rows(PairwiseChoice, study).count()
