from django.urls import path, re_path

from . import views

urlpatterns = [
    re_path(
        r"^studies/(?P<study_id>\d+)/annotations\.(?P<file_format>csv|jsonl|parquet)$",
        views.AnnotationTable.as_view(),
        name="export-annotations",
    ),
    path("studies/<int:study_id>/bundle.zip", views.StudyBundle.as_view(), name="export-bundle"),
    path("jobs/<int:export_id>/", views.ExportJob.as_view(), name="export-job"),
    path("jobs/<int:export_id>/download", views.ExportDownload.as_view(), name="export-download"),
]
