"""The API's serializers, one module per group of resources."""

from .fields import ErrorSerializer, StudyReferenceSerializer
from .reports import ReportRequestSerializer, ReportSerializer
from .studies import (
    DocumentSerializer,
    StudySerializer,
    TaxonomySerializer,
)
from .work import (
    AssignmentGenerateSerializer,
    AssignmentPlanSerializer,
    AssignmentSerializer,
)

__all__ = [
    "AssignmentGenerateSerializer",
    "AssignmentPlanSerializer",
    "AssignmentSerializer",
    "DocumentSerializer",
    "ErrorSerializer",
    "ReportRequestSerializer",
    "ReportSerializer",
    "StudyReferenceSerializer",
    "StudySerializer",
    "TaxonomySerializer",
]
