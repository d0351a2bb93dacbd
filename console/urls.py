"""The researcher console (docs/console.md): /console/."""

from django.urls import path

from .views import setup, studies

app_name = "console"

urlpatterns = [
    path("", studies.home, name="home"),
    path("new/", setup.new_study, name="new"),
    path("studies/<int:study_id>/", studies.study, name="study"),
    path("studies/<int:study_id>/setup/documents/", setup.documents, name="documents"),
    path("studies/<int:study_id>/setup/categories/", setup.categories, name="categories"),
    path("studies/<int:study_id>/setup/annotators/", setup.annotators, name="annotators"),
    path("studies/<int:study_id>/setup/preview/", setup.preview, name="preview"),
    path("studies/<int:study_id>/setup/launch/", setup.launch, name="launch"),
    path("studies/<int:study_id>/stage/", studies.stage, name="stage"),
    path("studies/<int:study_id>/allocation/", studies.allocation, name="allocation"),
    path("studies/<int:study_id>/quality-checks/", studies.quality_checks, name="quality_checks"),
    path("studies/<int:study_id>/report/", studies.compute_report, name="report"),
    path("studies/<int:study_id>/publish/tables.tex", studies.publish_latex, name="publish_latex"),
    path("studies/<int:study_id>/publish/tables.zip", studies.publish_csv, name="publish_csv"),
]
