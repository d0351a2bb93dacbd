"""The review page's task API, under /api/task/<token>/ (annotations/urls.py includes it)."""

from django.urls import path

from . import views

urlpatterns = [path("answers/", views.answers, name="task-api-answers")]
