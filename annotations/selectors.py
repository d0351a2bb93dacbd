"""Reads for the worker pages: what the task page and its JSON API show."""

from django.urls import reverse

from annotations.models import Assignment
from annotations.services.rounds import round_next, round_progress
from qualification.models import QualificationResult
from studies.config import safe_http_url

MTURK_SUBMIT_HOSTS = ("https://www.mturk.com", "https://workersandbox.mturk.com")


def _for_token(token):
    # No token holds NUL (a "%00" in a link), and PostgreSQL refuses to compare text with it.
    return Assignment.objects.none() if "\x00" in token else Assignment.objects.for_token(token)


def task_assignment_for_api(token):
    """The bare assignment of a task token (the API's services lock and load the rest)."""
    return _for_token(token).only("pk", "status", "available_from", "study_id", "document_id").first()


def task_assignment(token):
    """The assignment of a task token with what every task page needs, or None."""
    return _for_token(token).select_related("study", "study__taxonomy", "document", "worker").first()


def completion_data(assignment):
    """What the page needs after submit: the code, and where the platform wants the worker
    (or, within a qualification round, `next`: the candidate's next document)."""
    if assignment.status != Assignment.Status.SUBMITTED:
        return None
    data = {"code": assignment.completion_code, **dict.fromkeys(("next", "redirect_url", "mturk", "retest"))}
    if (next_url := next_document_url(assignment)) is not None:
        # A qualification round goes on: no code before its last document, and the page moves on.
        return {**data, "code": None, "next": next_url}
    ids = assignment.platform_ids or {}
    if assignment.worker.platform == "prolific":
        # Checked again here: a row stored before config was checked must not become a javascript: link.
        data["redirect_url"] = safe_http_url(assignment.study.config.get("prolific_completion_url"))
    submit_to = ids.get("turkSubmitTo", "")
    if assignment.worker.platform == "mturk" and submit_to.rstrip("/") in MTURK_SUBMIT_HOSTS:
        data["mturk"] = {
            "action": submit_to.rstrip("/") + "/mturk/externalSubmit",
            "assignmentId": ids.get("assignmentId", ""),
        }
    if (retest := retest_link(assignment)) is not None:
        data["retest"] = {
            "available_from": retest.available_from.isoformat() if retest.available_from else None,
            "url": reverse("task-instructions", args=[retest.token]),
        }
    return data


def next_document_url(assignment):
    """Where a candidate goes after submitting a document of a qualification round that goes on, or None."""
    following = round_next(assignment)
    return None if following is None else reverse("task-annotate", args=[following.token])


def task_progress(assignment):
    """'Text 1 of 2' of a qualification round taken as one task, else None."""
    progress = round_progress(assignment)
    return None if progress is None else {"position": progress[0], "total": progress[1]}


def task_urls(token):
    return {
        "state": reverse("task-api-state", args=[token]),
        "activity": reverse("task-api-activity", args=[token]),
        "submit": reverse("task-api-submit", args=[token]),
        "done": reverse("task-done", args=[token]),
    }


def feedback_url(assignment):
    """The candidate's feedback page, once a qualification assignment is submitted."""
    if assignment.kind != Assignment.Kind.QUALIFICATION or assignment.status != Assignment.Status.SUBMITTED:
        return None
    result = QualificationResult.objects.filter(
        qualification__study=assignment.study, worker=assignment.worker
    ).first()
    return reverse("qualification-feedback", args=[result.feedback_token]) if result else None


def retest_link(assignment):
    """The worker's second-round assignment of this block, if one is scheduled and the study announces it.

    Announcing it is a study option (`announce_retest`, off by default): Tang et al. told workers
    only after a week, so as not to bias the first round; the researcher then sends the link.
    """
    if assignment.document_id is not None or assignment.kind != Assignment.Kind.MAIN:
        return None
    if assignment.study.config.get("announce_retest") is not True:
        return None
    return Assignment.objects.filter(
        study_id=assignment.study_id, worker_id=assignment.worker_id, block=assignment.block,
        kind=Assignment.Kind.RETEST, document__isnull=True,
    ).first()  # fmt: skip
