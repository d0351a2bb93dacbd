"""`check --deploy`: the API's rate limits need a cache that every web process shares."""

from django.conf import settings
from django.core import checks

# Each process counts on its own (or, with the dummy cache, nothing is counted).
NOT_SHARED = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}


@checks.register(checks.Tags.caches, deploy=True)
def rate_limits_count_in_a_shared_cache(app_configs, **kwargs):
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if backend not in NOT_SHARED:
        return []
    return [
        checks.Warning(
            f"The default cache ({backend}) is not shared by the web processes: each gunicorn "
            "worker would count the API's rate limits on its own.",
            hint="Unset CACHE_URL (the broker's Redis or the database is then used), or point it "
            "at Redis (docs/deployment.md, 'The cache').",
            id="api.W001",
        )
    ]
