"""Registered API resources (docs/api.md)."""

from rest_framework.routers import DefaultRouter

from api.viewsets import (
    AssignmentViewSet,
    DocumentViewSet,
    ErrorAnnotationViewSet,
    ReportViewSet,
    StudyViewSet,
    TaxonomyViewSet,
)

router = DefaultRouter()
router.register("studies", StudyViewSet, basename="study")
router.register("taxonomies", TaxonomyViewSet, basename="taxonomy")
router.register("documents", DocumentViewSet, basename="document")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("annotations", ErrorAnnotationViewSet, basename="annotation")
router.register("reports", ReportViewSet, basename="report")
