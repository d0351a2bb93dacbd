"""The page of a login refused by django-axes (AXES_LOCKOUT_CALLABLE)."""

from datetime import timedelta

from django.conf import settings
from django.shortcuts import render


def lockout_response(request, original_response, credentials):
    minutes = settings.AXES_COOLOFF_TIME // timedelta(minutes=1)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": minutes}
    return render(request, "admin/login_locked_out.html", context, status=429)
