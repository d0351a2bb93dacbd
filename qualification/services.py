"""Writes of the qualification workflow: scores, decisions, expert assignments."""

from django.db import transaction
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from studies import protocols
from studies.models import Document

from .models import Qualification, QualificationResult

DEFAULT_ATTENTION_MIN_F1 = 0.5


def suggested_decision(scores, thresholds):
    """'pass' when every category the gold or the worker used reaches its F1 threshold."""
    if not scores:
        return ""
    default = thresholds.get("f1", 0.5)
    per_category = thresholds.get("categories", {})
    for key, values in scores["categories"].items():
        if values.get("predicted", 0) == 0 and values.get("reference", 0) == 0:
            continue  # neither the experts nor the worker used it: nothing to judge
        if (values.get("f1") or 0.0) < per_category.get(key, default):
            return "fail"
    return "pass"


def score_assignments(study, assignments):
    """The study protocol's scores of one worker's assignments against gold (None: no gold)."""
    return protocols.of(study).score_against_gold(assignments)


def _submitted(queryset):
    return queryset.filter(status=Assignment.Status.SUBMITTED).select_related("document")


@transaction.atomic
def qualification_result_update(*, qualification, worker):
    """(Re)score a candidate over every qualification document they submitted."""
    assignments = list(
        _submitted(
            Assignment.objects.filter(
                study=qualification.study, worker=worker, kind=Assignment.Kind.QUALIFICATION
            )
        )
    )
    scores = score_assignments(qualification.study, assignments) or {}
    result, _ = QualificationResult.objects.get_or_create(qualification=qualification, worker=worker)
    result.scores = scores
    result.suggested = suggested_decision(scores, qualification.thresholds or {})
    result.documents = len(assignments)
    result.active_seconds = sum(a.active_seconds for a in assignments)
    result.save(update_fields=["scores", "suggested", "documents", "active_seconds", "updated_at"])
    return result


def assignment_scored(*, assignment):
    """After a submit: score qualification work and attention checks against gold."""
    study = assignment.study
    if assignment.document_id is None:
        return  # a block of a rating study: nothing to score against gold
    if assignment.kind == Assignment.Kind.QUALIFICATION:
        qualification = Qualification.objects.filter(study=study).first()
        if qualification is not None:
            qualification_result_update(qualification=qualification, worker=assignment.worker)
    elif assignment.document.kind == Document.Kind.ATTENTION and assignment.kind == Assignment.Kind.MAIN:
        score = score_assignments(study, [assignment])
        assignment.score = score
        if score and "passed" in score:
            # The protocol judged the check itself (translation quality checks): None is "cannot
            # tell yet", which flags nothing.
            assignment.flagged = score["passed"] is False
        else:
            threshold = study.config.get("attention_min_f1", DEFAULT_ATTENTION_MIN_F1)
            assignment.flagged = bool(score) and (score["macro_f1"] or 0.0) < threshold
        assignment.save(update_fields=["score", "flagged"])


@transaction.atomic
def qualification_score_study(*, study):
    """Score everything scorable in a study (after an import): candidates and attention checks."""
    submitted = _submitted(Assignment.objects.filter(study=study))
    if submitted.filter(kind=Assignment.Kind.QUALIFICATION).exists():
        qualification, _ = Qualification.objects.get_or_create(
            study=study, defaults={"slug": study.slug, "title": study.title}
        )
        for worker in Worker.objects.filter(
            assignments__in=submitted.filter(kind=Assignment.Kind.QUALIFICATION)
        ).distinct():
            qualification_result_update(qualification=qualification, worker=worker)
    for assignment in submitted.filter(kind=Assignment.Kind.MAIN, document__kind=Document.Kind.ATTENTION):
        assignment_scored(assignment=assignment)


@transaction.atomic
def qualification_decide(*, results, status, user, message=None):
    """Approve or reject candidates; an optional message replaces theirs."""
    fields = {"status": status, "decided_by": user, "decided_at": timezone.now()}
    if message is not None:
        fields["message"] = message
    return QualificationResult.objects.filter(pk__in=[r.pk for r in results]).update(**fields)


def worker_is_qualified(*, study, worker):
    """True when the worker is approved in every qualification the study requires."""
    required = list(study.required_qualifications.values_list("pk", flat=True))
    if not required:
        return True
    approved = QualificationResult.objects.filter(
        qualification__in=required, worker=worker, status=QualificationResult.Status.APPROVED
    ).count()
    return approved == len(required)


@transaction.atomic
def expert_assignments_generate(*, study):
    """Gold assignments for every expert member on the documents that need gold.

    Those are the qualification and attention documents, or every document of
    a study that has none of those. Returns the new assignments.
    """
    # Documents with text only: an expert is never handed an empty page (Document.objects.with_text).
    documents = study.documents.with_text().filter(
        kind__in=[Document.Kind.QUALIFICATION, Document.Kind.ATTENTION]
    )
    if not documents.exists():
        documents = study.documents.with_text()
    created = []
    experts = StudyMembership.objects.filter(study=study, role=StudyMembership.Role.EXPERT).select_related(
        "user"
    )
    for membership in experts:
        worker, _ = Worker.objects.get_or_create(
            platform=Worker.Platform.EXPERT, external_id=membership.user.get_username(),
            defaults={"user": membership.user},
        )  # fmt: skip
        for document in documents:
            assignment, made = Assignment.objects.get_or_create(
                study=study, document=document, worker=worker, kind=Assignment.Kind.GOLD
            )
            if made:
                created.append(assignment)
    return created
