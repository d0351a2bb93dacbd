"""A study's join link for crowd platforms: /join/<join key>/.

Prolific sends PROLIFIC_PID, STUDY_ID and SESSION_ID; Mechanical Turk sends
workerId, assignmentId, hitId and turkSubmitTo, and assignmentId
ASSIGNMENT_ID_NOT_AVAILABLE while the worker only previews the HIT.
"""

import secrets

from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from accounts.models import Worker
from annotations.selectors import MTURK_SUBMIT_HOSTS
from annotations.services import JoinRefused, assignment_join
from studies.instructions import instructions_html
from studies.models import Study

MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
# Task tokens this browser was given by join links: it may come back to them.
SESSION_TOKENS = "join-tokens"
TOKENS_KEPT = 50
MAX_ID_LENGTH = 200


def _param(request, name):
    return request.GET.get(name, "").strip()[:MAX_ID_LENGTH]


def _identity(request, study):
    """(platform, worker id, platform ids) from the query string, or from the session."""
    if _param(request, "PROLIFIC_PID"):
        ids = {key: _param(request, key) for key in ("STUDY_ID", "SESSION_ID") if _param(request, key)}
        return Worker.Platform.PROLIFIC, _param(request, "PROLIFIC_PID"), ids
    if _param(request, "workerId"):
        keys = ("assignmentId", "hitId")
        ids = {key: _param(request, key) for key in keys if _param(request, key)}
        # Where the done page posts the HIT: only Mechanical Turk's own hosts are kept.
        if _param(request, "turkSubmitTo").rstrip("/") in MTURK_SUBMIT_HOSTS:
            ids["turkSubmitTo"] = _param(request, "turkSubmitTo").rstrip("/")
        return Worker.Platform.MTURK, _param(request, "workerId"), ids
    # A plain link: remember an anonymous id in the session so a reload is the same worker.
    session_key = f"join-{study.pk}"
    worker_id = request.session.get(session_key) or f"link-{secrets.token_hex(8)}"
    request.session[session_key] = worker_id
    return Worker.Platform.LINK, worker_id, {}


@require_GET
def join(request, join_key):
    # "%00" in a link: no key or worker id holds NUL, and PostgreSQL can neither store nor compare it.
    if "\x00" in join_key:
        raise Http404("There is no study with this link.")
    if any("\x00" in value for _, values in request.GET.lists() for value in values):
        return HttpResponseBadRequest("This link is damaged: it contains a NUL character (%00).")
    study = get_object_or_404(Study, join_key=join_key)
    if request.GET.get("assignmentId") == MTURK_PREVIEW:
        categories = study.taxonomy.categories.order_by("order", "key") if study.taxonomy_id else []
        return render(
            request,
            "annotations/join_preview.html",
            {"study": study, "instructions": instructions_html(study.instructions), "categories": categories},
        )
    platform, worker_id, platform_ids = _identity(request, study)
    try:
        assignment = assignment_join(
            study=study, platform=platform, external_id=worker_id, platform_ids=platform_ids,
            resume_tokens=set(request.session.get(SESSION_TOKENS, [])),
        )  # fmt: skip
    except JoinRefused as refused:
        return render(
            request, "annotations/join_refused.html", {"study": study, "message": str(refused)}, status=200
        )
    tokens = [token for token in request.session.get(SESSION_TOKENS, []) if token != assignment.token]
    request.session[SESSION_TOKENS] = [*tokens, assignment.token][-TOKENS_KEPT:]
    return redirect("task-instructions", token=assignment.token)
