from django.urls import include, path

from annotations.views import api, join, pages
from studies import protocols

urlpatterns = [
    path("join/<str:join_key>/", join.join, name="join"),
    path("task/<str:token>/", pages.instructions, name="task-instructions"),
    path("task/<str:token>/annotate/", pages.annotate, name="task-annotate"),
    path("task/<str:token>/done/", pages.done, name="task-done"),
    path("api/task/<str:token>/", api.state, name="task-api-state"),
    path("api/task/<str:token>/activity/", api.activity, name="task-api-activity"),
    path("api/task/<str:token>/feedback/", api.feedback, name="task-api-feedback"),
    path("api/task/<str:token>/submit/", api.submit, name="task-api-submit"),
    # Each protocol's own task API (spans, ratings, answers, ...), by dotted path: no import here.
    *(path("api/task/<str:token>/", include(p.task_urls)) for p in protocols.registered() if p.task_urls),
]
