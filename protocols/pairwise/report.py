"""Read a pairwise study out of the database into the pairwise metrics' dataclasses."""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports.metrics.pairwise import Choice, Output, PairwiseStudy, pairwise_report

from . import config
from .keys import TIE
from .models import PairwiseChoice

CHUNK = 20_000
KINDS = (Assignment.Kind.MAIN, Assignment.Kind.RETEST)


def pairwise_study_for(study):
    """The study's outputs and the choices of its submitted main and retest blocks.

    Annotators are named by pseudonym only: analysts read reports
    (accounts/policy.py). Choices come by assignment and pair, so "the last
    choice of an annotator and pair" (the metrics' rule for a pair judged
    twice with one kind) is always the same one.
    """
    external, outputs = {}, []
    documents = study.documents.order_by("position", "id").values_list(
        "id", "external_id", "input_id", "system", "block"
    )
    for pk, external_id, input_id, system, block in documents:
        external[pk] = external_id
        outputs.append(
            Output(document=external_id, input_id=input_id or external_id, system=system, block=block)
        )
    annotator_of = pseudonyms_of(study.pk)
    submitted = Assignment.objects.filter(
        study=study, status=Assignment.Status.SUBMITTED, document__isnull=True, kind__in=KINDS
    )
    rows = (
        PairwiseChoice.objects.filter(assignment__in=submitted)
        .order_by("assignment_id", "position")
        .values_list(
            "assignment__worker_id",
            "left_id",
            "right_id",
            "choice",
            "strength",
            "assignment__block",
            "assignment__kind",
        )
    )
    choices = [
        Choice(
            annotator=annotator_of(worker),
            left=external[left],
            right=external[right],
            choice=choice,
            strength=strength,
            block=block,
            kind=kind,
        )
        for worker, left, right, choice, strength, block, kind in rows.iterator(chunk_size=CHUNK)
    ]
    # The report reads what was saved: options changed after work was saved widen, never refuse it.
    top = config.strength_max(study)
    given = [c.strength for c in choices if c.strength is not None]
    if given and (top is None or max(given) > top):
        top = max(given)
    return PairwiseStudy(
        outputs=outputs, choices=choices, seed=study.config.get("seed", 0), strength_max=top,
        allow_ties=config.allow_ties(study) or any(c.choice == TIE for c in choices),
    )  # fmt: skip


def study_report(study, progress):
    data = pairwise_study_for(study)
    progress(0.3)
    return pairwise_report(data)
