"""Reads of the qualification workflow: report data and the worker's feedback page."""

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment

from .models import Qualification, QualificationResult
from .scoring import annotation_rows, document_comparison, gold_spans, spans_of


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


def feedback_documents(result):
    """Per submitted qualification document: its text with the worker's and the gold spans."""
    study = result.qualification.study
    paired_keys = set(study.taxonomy.categories.filter(kind="paired").values_list("key", flat=True))
    labels = dict(study.taxonomy.categories.values_list("key", "label"))
    colors = dict(study.taxonomy.categories.values_list("key", "color"))
    assignments = Assignment.objects.filter(
        study=study,
        worker=result.worker,
        kind=Assignment.Kind.QUALIFICATION,
        status=Assignment.Status.SUBMITTED,
    ).select_related("document")
    documents = []
    for assignment in assignments.order_by("document__position"):
        gold, has_gold = gold_spans(assignment.document)
        if not has_gold:
            continue
        mine = spans_of(annotation_rows([assignment]))
        comparison = document_comparison(mine, gold, paired_keys)
        segments = list(assignment.document.segments.order_by("index").values_list("index", "text"))
        documents.append(
            {
                "document": assignment.document,
                "segments": segments,
                "mine": mine,
                "gold": gold,
                "comparison": comparison,
                "labels": labels,
                "colors": colors,
            }  # fmt: skip
        )
    return documents
