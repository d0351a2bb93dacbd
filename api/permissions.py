"""Who may do what in the API: a user's role in each study, and permission classes.

Reads start from querysets scoped by `Study.objects.for_user`, so another
study's object is a 404 before any of these run. The classes below decide,
for an object of a study the user can see, whether the user may read it (any
member) or change it (the study's researchers and superusers). They compose
with DRF's operators (e.g. `IsAuthenticated & IsStudyResearcher`); the views
give reads `IsStudyMember` and writes `IsStudyResearcher` (per action, not
`IsStudyMember & (ReadOnly | IsStudyResearcher)`, so that a refused write
keeps its message).
"""

from rest_framework.permissions import BasePermission

from accounts import policy
from studies.models import Study


def study_role(request, study_id):
    """The user's role in the study: "superuser", their membership role, or None."""
    return policy.study_role(request.user, study_id)


def manages_study(request, study_id):
    return policy.may_manage_study(request.user, study_id)


def study_id_of(obj):
    """The study an API object belongs to (a study, or a row with a study or an assignment)."""
    if isinstance(obj, Study):
        return obj.pk
    if hasattr(obj, "study_id"):
        return obj.study_id
    return obj.assignment.study_id


class IsStudyMember(BasePermission):
    """The object belongs to a study the user is a member of, in any role, or to any study for a superuser."""

    def has_object_permission(self, request, view, obj):
        return study_role(request, study_id_of(obj)) is not None


class IsStudyResearcher(BasePermission):
    """The object belongs to a study the user runs: a researcher member, or a superuser.

    On a collection (no object yet) it lets the request through: the view
    names the study (from the URL or the body) and checks it as the object.
    """

    message = "Only the study's researchers may do this."

    def has_object_permission(self, request, view, obj):
        return manages_study(request, study_id_of(obj))
