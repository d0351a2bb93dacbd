"""The rating pages' task API, under /api/task/<token>/ (annotations/urls.py includes it)."""

from django.urls import path

from . import views

urlpatterns = [
    path("ratings/", views.ratings, name="task-api-ratings"),
    path("judgments/", views.judgments, name="task-api-judgments"),
]
