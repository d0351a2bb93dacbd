"""The pairwise page's own task API: save the worker's choice in one pair."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .services import choice_save


@task_api("POST", opens_by_token=True)
def choices(request, token, body):
    saved = choice_save(token=token, data=body)
    return JsonResponse({"position": saved.position, "choice": saved.choice, "strength": saved.strength})
