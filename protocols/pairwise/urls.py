"""The pairwise page's task API, under /api/task/<token>/ (annotations/urls.py includes it)."""

from django.urls import path

from . import views

urlpatterns = [
    path("choices/", views.choices, name="task-api-pairwise-choices"),
]
