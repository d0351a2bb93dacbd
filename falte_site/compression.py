"""On-the-fly gzip for pages and JSON, except answers to a logged-in user (BREACH).

BREACH recovers a secret from the compressed size of pages that also reflect
attacker-chosen text, by making the victim's browser send many requests with its
cookies. Worker pages are reached by an unguessable token in the URL, not by a
cookie, so an attacker cannot request them; Django masks the CSRF token afresh
in every answer, and pads every gzip answer with up to 100 random bytes. Pages
of a logged-in researcher or analyst carry task links, join links and completion
codes beside reflected search terms, and their users are few and on good
connections: those are sent uncompressed. docs/decisions.md, "Compressed pages".
"""

from django.middleware.gzip import GZipMiddleware


class AnonymousGZipMiddleware(GZipMiddleware):
    def process_response(self, request, response):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return response
        return super().process_response(request, response)
