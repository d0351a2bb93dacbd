"""The site's Content-Security-Policy header, built once instead of for every answer.

django-csp's middleware builds the header's text from the settings on every response, once for
the policy and once for the report-only one (each a dataclass turned into a dict and a walk over
every directive): 17 % of a span save's application CPU in a profile (docs/benchmarks.md). This
site's policy is the same for every answer: no page asks for a nonce and no view changes the
policy. So the text is built once per value of the settings and set as is; an answer that does
ask for its own (a view decorated with django-csp's csp_update, csp_replace or csp_override, or a
page that used `request.csp_nonce`) goes the library's way, unchanged.
"""

from functools import cache

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# What django-csp's view decorators set on a response to change its policy.
_OWN_POLICY = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
_DEBUG_PAGES = (404, 500)  # Django's debug pages carry inline script: no header there under DEBUG


@cache
def _site_header(report_only):
    """(the header's text, the path prefixes it is left off) from the settings, "" for no policy."""
    policy = getattr(
        settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY" if report_only else "CONTENT_SECURITY_POLICY", None
    )
    excluded = tuple((policy or {}).get("EXCLUDE_URL_PREFIXES") or ())
    return build_policy(report_only=report_only), excluded


@receiver(setting_changed)
def _forget_the_header(setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _site_header.cache_clear()


class SitePolicyMiddleware(CSPMiddleware):
    """django-csp's CSPMiddleware with the site's header built once (the module's docstring)."""

    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            hasattr(response, name) for name in _OWN_POLICY
        ):
            return super().process_response(request, response)
        if settings.DEBUG and response.status_code in _DEBUG_PAGES:
            return response
        for header, report_only, exempt in (
            (HEADER, False, "_csp_exempt"),
            (HEADER_REPORT_ONLY, True, "_csp_exempt_ro"),
        ):
            text, excluded = _site_header(report_only)
            if (
                text
                and header not in response
                and not getattr(response, exempt, False)
                and not request.path_info.startswith(excluded)
            ):
                response[header] = text
        # As the library does: a nonce asked for after the header is written could not be in it.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
