"""The API's reads: every queryset starts from the studies the user may see."""

import re

from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, Subquery, Value
from django.db.models.functions import Coalesce

from accounts.policy import in_readable_studies as in_visible_studies
from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from reports.models import Report
from studies.models import Category, Document, Segment, Study, Taxonomy

PSEUDONYM = re.compile(r"A[0-9a-f]{10}")  # accounts.pseudonyms.annotator_pseudonym's shape


def _count_per_study(queryset):
    """A subquery counting `queryset`'s rows of the outer study (0 when none)."""
    counted = (
        queryset.filter(study=OuterRef("pk")).order_by().values("study").annotate(n=Count("pk")).values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


# The rows below need only a study's id (for pseudonyms), not its long texts.
STUDY_TEXTS = ("instructions", "config")


def studies_for_api(user):
    """The user's studies with their document count and assignment counts by status."""
    counts = {"document_count": _count_per_study(Document.objects.all())}
    for status in Assignment.Status:
        counts[f"{status.value}_count"] = _count_per_study(Assignment.objects.filter(status=status))
    return Study.objects.for_user(user).annotate(**counts)


def taxonomies_for_api(user):
    return Taxonomy.objects.for_user(user).prefetch_related(
        Prefetch("categories", queryset=Category.objects.order_by("order", "key"))
    )


def documents_for_api(user, *, with_segments=False):
    documents = in_visible_studies(Document.objects.all(), user)
    if with_segments:
        documents = documents.prefetch_related(
            Prefetch(
                "segments", queryset=Segment.objects.order_by("document_id", "index")
            )  # the unique index's order
        )
    return documents


def assignments_for_api(user):
    return (
        in_visible_studies(Assignment.objects.all(), user)
        .select_related("study", "document", "worker")
        .defer(*(f"study__{name}" for name in STUDY_TEXTS), "document__source", "document__meta")
    )


def reports_for_api(user):
    return in_visible_studies(Report.objects.all(), user).select_related("requested_by")


def annotator_condition(user, pseudonym, *, study_id=None, assignment_path=""):
    """A Q() matching the assignments (at `assignment_path`) of the annotator with this pseudonym.

    Pseudonyms are hashes, so the database cannot compare them: the (study,
    worker) pairs of the user's studies (of `study_id` only, when given: much
    less to hash) are hashed here and the matches kept.
    """
    nothing = Q(pk__in=[])
    if not PSEUDONYM.fullmatch(pseudonym):
        return nothing
    pairs = in_visible_studies(Assignment.objects.all(), user)
    if study_id is not None:
        pairs = pairs.filter(study_id=study_id)
    pairs = pairs.order_by().values_list("study_id", "worker_id").distinct()
    condition = nothing
    for pair_study_id, worker_id in pairs:
        if annotator_pseudonym(pair_study_id, worker_id) == pseudonym:
            condition |= Q(
                **{f"{assignment_path}study_id": pair_study_id, f"{assignment_path}worker_id": worker_id}
            )
    return condition
