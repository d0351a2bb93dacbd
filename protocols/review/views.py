"""The review page's own task API: save a reviewer's answers to one item."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .services import review_answer_save


@task_api("POST", opens_by_token=True)
def answers(request, token, body):
    answer = review_answer_save(token=token, data=body)
    return JsonResponse({"item": answer.item_id, "answers": answer.answers})
