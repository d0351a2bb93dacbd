"""The review page's own task API: save a reviewer's answers to one item."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .services import review_answer_save


@task_api("POST")
def answers(request, assignment, body):
    answer = review_answer_save(assignment=assignment, data=body)
    return JsonResponse({"item": answer.item_id, "answers": answer.answers})
