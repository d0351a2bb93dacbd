"""The rating pages' own task API: save a Likert rating or a best-worst judgment."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .services import judgment_save, rating_save


@task_api("POST", opens_by_token=True)
def ratings(request, token, body):
    rating = rating_save(token=token, data=body)
    return JsonResponse({"document": rating.document.external_id, "score": rating.score})


@task_api("POST", opens_by_token=True)
def judgments(request, token, body):
    judgment = judgment_save(token=token, data=body)
    return JsonResponse({"position": judgment.position, "best": judgment.best.external_id,
                         "worst": judgment.worst.external_id, "value": judgment.value})  # fmt: skip
