"""The rating protocols' rows of the annotation table: a row per Likert rating or BWS judgment."""

from accounts.pseudonyms import pseudonyms_of
from exports.rows import CHUNK, iso, submitted_rows
from studies.models import Document

from .models import BestWorstJudgment, Rating

LIKERT_COLUMNS = [
    "study", "document", "system", "input_id", "block", "score", "annotator", "assignment", "kind",
    "submitted_at", "active_seconds",
]  # fmt: skip
BWS_COLUMNS = [
    "study", "block", "tuple", "documents", "best", "worst", "value", "best_system", "worst_system",
    "annotator", "assignment", "kind", "submitted_at", "active_seconds",
]  # fmt: skip
_ASSIGNMENT_FIELDS = [
    "assignment__worker_id", "assignment_id", "assignment__kind", "assignment__submitted_at",
    "assignment__active_seconds", "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip
_LIKERT_FIELDS = [
    "document__external_id", "document__system", "document__input_id", "assignment__block", "score",
    *_ASSIGNMENT_FIELDS,
]  # fmt: skip
_BWS_FIELDS = [
    "assignment__block", "position", "documents", "best__external_id", "worst__external_id", "value",
    "best__system", "worst__system", *_ASSIGNMENT_FIELDS,
]  # fmt: skip
# A tuple's documents in one cell (the same string in CSV and JSON Lines, so both keep one column set).
DOCUMENT_SEPARATOR = "; "


def likert_rows(study):
    """One row per rating of a submitted assignment, by block, assignment and document."""
    pseudonym = pseudonyms_of(study.pk)
    ratings = (
        submitted_rows(Rating, study)
        .order_by("assignment__block", "assignment_id", "document__position", "id")
        .values_list(*_LIKERT_FIELDS)
    )
    for (document, system, input_id, block, score, worker, assignment, kind, submitted_at, seconds, platform,
         external_id) in ratings.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, input_id, block, score, pseudonym(worker), assignment, kind,
               iso(submitted_at), seconds]  # fmt: skip
        yield row, (platform, external_id)


class _BlockDocuments:
    """External ids of document pks, one block's documents at a time (the rows come by block),
    so memory stays bounded by the largest block rather than the study."""

    def __init__(self, study):
        self.study, self.block, self.known = study, None, {}

    def external_ids(self, block, pks):
        if block != self.block:
            self.block = block
            self.known = dict(
                Document.objects.filter(study=self.study, block=block).values_list("id", "external_id")
            )
        missing = [pk for pk in pks if pk not in self.known]
        if missing:  # a tuple should hold only its block's documents; still, never drop one
            self.known.update(Document.objects.filter(pk__in=missing).values_list("id", "external_id"))
        return [self.known.get(pk, "") for pk in pks]


def bws_rows(study):
    """One row per best-worst judgment of a submitted assignment, by block, assignment and tuple."""
    pseudonym = pseudonyms_of(study.pk)
    documents = _BlockDocuments(study)
    judgments = (
        submitted_rows(BestWorstJudgment, study)
        .order_by("assignment__block", "assignment_id", "position", "id")
        .values_list(*_BWS_FIELDS)
    )
    for (block, position, tuple_pks, best, worst, value, best_system, worst_system, worker, assignment, kind,
         submitted_at, seconds, platform, external_id) in judgments.iterator(chunk_size=CHUNK):  # fmt: skip
        members = DOCUMENT_SEPARATOR.join(documents.external_ids(block, tuple_pks))
        row = [study.slug, block, position, members, best, worst, "" if value is None else value, best_system,
               worst_system, pseudonym(worker), assignment, kind, iso(submitted_at), seconds]  # fmt: skip
        yield row, (platform, external_id)


def likert_row_count(study):
    return submitted_rows(Rating, study).count()


def bws_row_count(study):
    return submitted_rows(BestWorstJudgment, study).count()
