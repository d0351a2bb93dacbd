"""The evaluator as an annotator: a Worker of platform "model" named by the evaluator's key, with
one submitted model assignment (Assignment.Kind.MODEL) per document it has judged. The people's
figures never count these assignments; the evaluator comparison reads them."""

from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment


def model_worker(evaluator):
    worker, _ = Worker.objects.get_or_create(platform=Worker.Platform.MODEL, external_id=evaluator.key)
    return worker


class ModelAssignments:
    """The evaluator's assignment of each document of a run, made on first use.

    A later run replaces what an earlier one stored: `fresh` hands back the document's
    assignment, submitted now, after `clear(assignment_id)` has removed its old rows.
    """

    def __init__(self, evaluator, document_ids):
        self.evaluator = evaluator
        self.worker = model_worker(evaluator)
        mine = Assignment.objects.filter(
            study_id=evaluator.study_id,
            worker=self.worker,
            kind=Assignment.Kind.MODEL,
            document_id__in=document_ids,
        )
        self.assignments = dict(mine.values_list("document_id", "id"))

    def fresh(self, document_id, *, clear):
        now = timezone.now()
        assignment_id = self.assignments.get(document_id)
        if assignment_id is None:
            assignment_id = Assignment.objects.create(
                study_id=self.evaluator.study_id, document_id=document_id, worker=self.worker,
                kind=Assignment.Kind.MODEL, status=Assignment.Status.SUBMITTED, submitted_at=now, started_at=now,
            ).pk  # fmt: skip
            self.assignments[document_id] = assignment_id
        else:
            Assignment.objects.filter(pk=assignment_id).update(
                status=Assignment.Status.SUBMITTED, submitted_at=now
            )
            clear(assignment_id)
        return assignment_id
