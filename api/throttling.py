"""Who a client is for rate limits and lockouts, and the count of failed API tokens."""

from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


def client_address(request):
    """The client's IP address: REMOTE_ADDR, or X-Forwarded-For behind NUM_PROXIES proxies.

    The one definition for the API's rate limits (DRF reads the same setting)
    and for login lockouts (AXES_CLIENT_IP_CALLABLE)."""
    return BaseThrottle().get_ident(request)


class FailedTokenThrottle(SimpleRateThrottle):
    """Failed token authentications per client address, rate "failed_token".

    Unlike DRF's throttles it counts only failures (`record_failure`), and is
    asked before a token is looked up (`refuses`), because DRF authenticates
    before its throttles run: a bad token would otherwise be a 401 every time."""

    scope = "failed_token"

    def get_cache_key(self, request, view=None):
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}

    def refuses(self, request):
        """True when the address used up its failures within the window."""
        self.key = self.get_cache_key(request)
        self.now = self.timer()
        self.history = [
            moment for moment in self.cache.get(self.key, []) if moment > self.now - self.duration
        ]
        return len(self.history) >= self.num_requests

    def record_failure(self):
        """Count one failure of the address last asked about in `refuses`."""
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)
