from django.urls import path

from . import views

urlpatterns = [path("feedback/<str:token>/", views.feedback, name="qualification-feedback")]
