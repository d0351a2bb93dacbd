"""The console asks the one access policy (accounts/policy.py) like every other surface: a study
the user does not read is a 404, a change to a study they only read is a 403."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.urls import reverse

from accounts import policy


def console_view(view):
    """Logged-in staff only (researchers, analysts, superusers); others are sent to the login page."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        user = request.user
        if not user.is_authenticated or not user.is_active or not user.is_staff:
            return redirect_to_login(request.get_full_path(), reverse("admin:login"))
        return view(request, *args, **kwargs)

    return wrapped


def readable_study(request, study_id):
    return get_object_or_404(policy.readable_studies(request.user), pk=study_id)


def managed_study(request, study_id):
    study = readable_study(request, study_id)
    if not policy.may_manage_study(request.user, study.pk):
        raise PermissionDenied("Only the study's researchers may change it.")
    return study
