"""Read a Likert or BWS study out of the database into the rating metrics' dataclasses."""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from protocols.rating.models import BestWorstJudgment, Rating
from reports.metrics.ratings.data import Item, Judgment, RatingStudy
from reports.metrics.ratings.data import Rating as RatingRow

CHUNK = 20_000


def rating_study_for(study):
    documents = study.documents.order_by("position", "id").values_list(
        "id", "external_id", "input_id", "system", "block"
    )
    # Reports name annotators by pseudonym only: analysts read them (accounts/policy.py).
    annotator_of = pseudonyms_of(study.pk)
    external = {}
    items = []
    for pk, external_id, input_id, system, block in documents:
        external[pk] = external_id
        items.append(Item(document=external_id, input_id=input_id or external_id, system=system, block=block))
    submitted = Assignment.objects.filter(
        study=study, status=Assignment.Status.SUBMITTED, document__isnull=True
    )
    ratings = [
        RatingRow(
            annotator=annotator_of(worker),
            document=external[document_id],
            score=score,
            block=block,
            kind=kind,
        )
        for worker, document_id, score, block, kind in Rating.objects.filter(assignment__in=submitted)
        .values_list("assignment__worker_id", "document_id", "score", "assignment__block", "assignment__kind")
        .iterator(chunk_size=CHUNK)
    ]
    judgments = [
        Judgment(
            annotator=annotator_of(worker),
            documents=tuple(external[d] for d in documents_),
            best=external[best],
            worst=external[worst],
            value=value,
            block=block,
            kind=kind,
        )  # fmt: skip
        for worker, documents_, best, worst, value, block, kind in BestWorstJudgment.objects.filter(
            assignment__in=submitted
        )
        .values_list(
            "assignment__worker_id",
            "documents",
            "best_id",
            "worst_id",
            "value",
            "assignment__block",
            "assignment__kind",
        )  # fmt: skip
        .iterator(chunk_size=CHUNK)
    ]
    scale = study.config.get("scale", {})
    return RatingStudy(
        protocol=study.protocol, items=items, ratings=ratings, judgments=judgments,
        scale_min=scale.get("min", 1), scale_max=scale.get("max", 5),
        value_max=study.config.get("bws", {}).get("value_scale"), seed=study.config.get("seed", 0),
    )  # fmt: skip
