"""The REST API (docs/api.md). Resources are registered in api/routes.py."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from .routes import router

# The split view serves Swagger UI's start script from a URL (?script=), not
# inline, so the Content-Security-Policy needs no inline script.
swagger_ui = SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", swagger_ui, name="api-docs"),
    path("", include(router.urls)),
]
