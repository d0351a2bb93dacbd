"""The API's viewsets, registered in api/routes.py."""

from .credentials import StudyCredentialViewSet
from .reports import ReportViewSet
from .studies import DocumentViewSet, StudyViewSet, TaxonomyViewSet
from .work import AssignmentViewSet

__all__ = [
    "AssignmentViewSet",
    "DocumentViewSet",
    "ReportViewSet",
    "StudyCredentialViewSet",
    "StudyViewSet",
    "TaxonomyViewSet",
]
