"""Reads of the qualification workflow: report data and the worker's feedback page."""

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment

from .models import Qualification, QualificationResult


def qualification_report(study):
    """The report's `qualification` key: {annotator pseudonym: {"categories", "spans", "status"}}."""
    qualification = Qualification.objects.filter(study=study).first()
    if qualification is None:
        return None
    report = {}
    for result in qualification.results.order_by("pk"):
        categories = {
            key: {name: values.get(name) for name in ("precision", "recall", "f1", "overlap")}
            for key, values in (result.scores.get("categories") or {}).items()
        }
        spans = result.scores.get("spans") or {}
        report[annotator_pseudonym(qualification.study_id, result.worker_id)] = {
            "categories": categories,
            "spans": {name: spans.get(name, 0) for name in ("matched", "missed", "extra", "confused")},
            "status": result.status,
        }
    return dict(sorted(report.items()))


def feedback_result(token):
    return (
        QualificationResult.objects.filter(feedback_token=token)
        .select_related("qualification", "qualification__study", "worker")
        .first()
    )


def feedback_assignments(result):
    """The candidate's submitted qualification assignments, in the documents' order."""
    return (
        Assignment.objects.filter(
            study=result.qualification.study,
            worker=result.worker,
            kind=Assignment.Kind.QUALIFICATION,
            status=Assignment.Status.SUBMITTED,
        )
        .select_related("document")
        .order_by("document__position")
    )
