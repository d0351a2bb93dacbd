"""The cache of the API's rate limits when it lives on the Celery broker's Redis."""

from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured


class BrokerRedisCache(RedisCache):
    """Django's Redis cache, on a Redis database that also holds the Celery broker's queues.

    Django's `clear()` empties the whole database (FLUSHDB), which would drop every
    queued job with the cache; this one deletes only the keys under its KEY_PREFIX."""

    def __init__(self, server, params):
        super().__init__(server, params)
        if not self.key_prefix:
            raise ImproperlyConfigured(
                "BrokerRedisCache needs a KEY_PREFIX to tell its keys from the broker's."
            )

    def clear(self):
        client = self._cache.get_client(None, write=True)
        pattern = "".join(f"\\{char}" if char in "*?[]\\" else char for char in self.key_prefix) + ":*"
        batch = []
        for key in client.scan_iter(match=pattern, count=1000):
            batch.append(key)
            if len(batch) == 1000:
                client.delete(*batch)
                batch.clear()
        if batch:
            client.delete(*batch)
        return True
