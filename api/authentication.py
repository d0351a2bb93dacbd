"""API token authentication that stops a client address guessing tokens."""

from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled

from .throttling import FailedTokenThrottle


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF's TokenAuthentication; an address with too many failed tokens gets 429.

    Only requests that send a token are counted or refused: a browser session
    from the same address is not affected."""

    def authenticate(self, request):
        scheme = get_authorization_header(request).split()[:1]
        if [word.lower() for word in scheme] != [self.keyword.lower().encode()]:
            return None  # no token sent: another authentication's turn
        throttle = FailedTokenThrottle()
        if throttle.refuses(request):
            raise Throttled(wait=throttle.wait())
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            throttle.record_failure()
            raise
