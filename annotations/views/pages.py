"""The worker's pages: instructions, the annotation page, completion."""

from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from annotations import selectors
from studies import protocols
from studies.instructions import instructions_html


def _assignment_or_404(token):
    assignment = selectors.task_assignment(token)
    if assignment is None:
        raise Http404("There is no task with this link.")
    return assignment


@require_GET
def instructions(request, token):
    assignment = _assignment_or_404(token)
    study = assignment.study
    categories = study.taxonomy.categories.order_by("order", "key") if study.taxonomy_id else []
    return render(
        request,
        "annotations/task_instructions.html",
        {
            "assignment": assignment,
            "study": study,
            "instructions": instructions_html(study.instructions),
            "categories": categories,
            # The study tells its workers that some documents are checks (never which ones).
            "attention_announced": study.config.get("attention_announced") is True,
            "urls": selectors.task_urls(token),
            "now": timezone.now(),
        },
    )


@require_GET
@ensure_csrf_cookie
def annotate(request, token):
    assignment = _assignment_or_404(token)
    if (next_url := selectors.next_document_url(assignment)) is not None:
        return redirect(next_url)  # a reload resumes the round
    return protocols.of(assignment.study).page(request, assignment)


@require_GET
def done(request, token):
    assignment = _assignment_or_404(token)
    if (next_url := selectors.next_document_url(assignment)) is not None:
        return redirect(next_url)  # no code before the round's last document
    return render(
        request,
        "annotations/task_done.html",
        {
            "assignment": assignment,
            "study": assignment.study,
            "completion": selectors.completion_data(assignment),
            "urls": selectors.task_urls(token),
            "feedback_url": selectors.feedback_url(assignment),
            "retest": selectors.retest_link(assignment),
        },
    )
