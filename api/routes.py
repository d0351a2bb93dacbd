"""Registered API resources (docs/api.md)."""

from django.utils.module_loading import import_string
from rest_framework.routers import DefaultRouter

from api.viewsets import (
    AssignmentViewSet,
    DocumentViewSet,
    ReportViewSet,
    StudyCredentialViewSet,
    StudyViewSet,
    TaxonomyViewSet,
)
from studies import extensions, protocols

router = DefaultRouter()
router.register("studies", StudyViewSet, basename="study")
router.register("taxonomies", TaxonomyViewSet, basename="taxonomy")
router.register("documents", DocumentViewSet, basename="document")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("reports", ReportViewSet, basename="report")
router.register("study-credentials", StudyCredentialViewSet, basename="studycredential")

# Each protocol's and extension's resources, by dotted path (api_routes): no import of theirs here.
for plugin in [*protocols.registered(), *extensions.registered()]:
    for prefix, viewset, basename in plugin.api_routes:
        router.register(prefix, import_string(viewset), basename=basename)
