"""The worker's feedback page: /feedback/<token>/, the token only theirs."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from studies import protocols

from .selectors import feedback_assignments, feedback_result


@require_GET
def feedback(request, token):
    result = feedback_result(token)
    if result is None:
        raise Http404("There is no feedback with this link.")
    study = result.qualification.study
    categories = study.taxonomy.categories.order_by("order", "key") if study.taxonomy_id else []
    scores = result.scores.get("categories") or {}
    protocol = protocols.of(study)
    return render(
        request,
        "qualification/feedback.html",
        {
            "study": study,
            "result": result,
            "message": result.message or result.qualification.default_message,
            "documents": protocol.feedback_documents(feedback_assignments(result)),
            "documents_template": protocol.feedback_template,
            "scores": [(c, scores.get(c.key, {})) for c in categories],
        },
    )
