"""The span page's task API, under /api/task/<token>/ (annotations/urls.py includes it)."""

from django.urls import path

from . import views

urlpatterns = [
    path("annotations/", views.annotations, name="task-api-annotations"),
    path("annotations/<str:client_id>/", views.annotation, name="task-api-annotation"),
    path("move/", views.move, name="task-api-move"),
    path("suggestions/", views.suggestion, name="task-api-suggestions"),
    path("suggestions/<int:suggestion_id>/", views.suggestion, name="task-api-suggestion"),
    path("document-answers/", views.document_answers, name="task-api-document-answers"),
]
