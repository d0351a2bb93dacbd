from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("annotations.urls")),
    path("", include("qualification.urls")),
    path("api/exports/", include("exports.urls")),
    path("api/", include("api.urls")),
]
