"""The REST API's JSON parser: DRF's, with the checks every JSON input gets (falte_site.json_input).

A body over DATA_UPLOAD_MAX_MEMORY_SIZE never gets here: DRF reads it through
Django's `request.body`, which refuses it (a 413 from falte_site.views).
"""

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from falte_site.json_input import JSONInputError, parse_json


class CheckedJSONParser(JSONParser):
    """Bodies nested too deeply, or with NUL, a lone surrogate or a number that is not
    finite, are a 400 that says where, instead of a RecursionError or a database error."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return parse_json(stream.read().decode(encoding))
        except UnicodeDecodeError as error:
            raise ParseError(f"JSON parse error - not {encoding} text ({error.reason})") from None
        except JSONInputError as error:
            raise ParseError(f"JSON parse error - {error}") from None
