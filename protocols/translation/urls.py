"""The translation page's task API, under /api/task/<token>/ (annotations/urls.py includes it)."""

from django.urls import path

from . import views

urlpatterns = [
    path("translation/errors/", views.errors, name="task-api-translation-errors"),
    path("translation/errors/<str:client_id>/", views.error, name="task-api-translation-error"),
    path("translation/scores/", views.scores, name="task-api-translation-scores"),
    path("translation/move/", views.move, name="task-api-translation-move"),
]
