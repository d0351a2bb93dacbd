from django.urls import path

from annotations.views import api, join, pages

urlpatterns = [
    path("join/<str:join_key>/", join.join, name="join"),
    path("task/<str:token>/", pages.instructions, name="task-instructions"),
    path("task/<str:token>/annotate/", pages.annotate, name="task-annotate"),
    path("task/<str:token>/done/", pages.done, name="task-done"),
    path("api/task/<str:token>/", api.state, name="task-api-state"),
    path("api/task/<str:token>/annotations/", api.annotations, name="task-api-annotations"),
    path("api/task/<str:token>/annotations/<str:client_id>/", api.annotation, name="task-api-annotation"),
    path("api/task/<str:token>/move/", api.move, name="task-api-move"),
    path("api/task/<str:token>/ratings/", api.ratings, name="task-api-ratings"),
    path("api/task/<str:token>/answers/", api.answers, name="task-api-answers"),
    path("api/task/<str:token>/judgments/", api.judgments, name="task-api-judgments"),
    path("api/task/<str:token>/activity/", api.activity, name="task-api-activity"),
    path("api/task/<str:token>/submit/", api.submit, name="task-api-submit"),
]
