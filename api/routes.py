"""Registered API resources (docs/api.md)."""

from django.utils.module_loading import import_string
from rest_framework.routers import DefaultRouter

from api.viewsets import (
    AssignmentViewSet,
    DocumentViewSet,
    ReportViewSet,
    StudyViewSet,
    TaxonomyViewSet,
)
from studies import protocols

router = DefaultRouter()
router.register("studies", StudyViewSet, basename="study")
router.register("taxonomies", TaxonomyViewSet, basename="taxonomy")
router.register("documents", DocumentViewSet, basename="document")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("reports", ReportViewSet, basename="report")

# Each protocol's resources, by dotted path (Protocol.api_routes): no protocol import here.
for protocol in protocols.registered():
    for prefix, viewset, basename in protocol.api_routes:
        router.register(prefix, import_string(viewset), basename=basename)
