"""The worker's pages: instructions, the annotation page, completion."""

from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from annotations import selectors
from annotations.rating_selectors import rating_page_data
from annotations.review_selectors import review_page_data
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
            "urls": selectors.task_urls(token),
            "now": timezone.now(),
        },
    )


@require_GET
@ensure_csrf_cookie
def annotate(request, token):
    assignment = _assignment_or_404(token)
    if assignment.study.protocol == "review":
        return render(
            request,
            "annotations/task_review.html",
            {"assignment": assignment, "study": assignment.study, "task_data": review_page_data(assignment)},
        )
    if assignment.document_id is None:  # a block of a Likert or BWS study
        return render(
            request,
            "annotations/task_rate.html",
            {"assignment": assignment, "study": assignment.study, "task_data": rating_page_data(assignment)},
        )
    return render(
        request,
        "annotations/task_annotate.html",
        {
            "assignment": assignment,
            "study": assignment.study,
            "task_data": selectors.task_page_data(assignment),
        },
    )


@require_GET
def done(request, token):
    assignment = _assignment_or_404(token)
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
