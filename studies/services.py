"""Writes on a study's own objects that are more than admin's plain saves."""

import re

from django.db import transaction

from .models import Segment
from .sentences import sentence_offsets

BLANK_LINE = re.compile(r"\n\s*\n")


def text_segments(text):
    """The segments of a text typed in admin: its paragraphs, which blank lines separate, each
    without the white space around it; none when the text is only white space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [paragraph.strip() for paragraph in BLANK_LINE.split(text) if paragraph.strip()]


@transaction.atomic
def document_segments_replace(*, document, segments):
    """Make `segments` (texts, none of them blank) the document's segments, their sentences found
    as the bundle import finds them (studies.sentences)."""
    if not segments or any(not text.strip() for text in segments):
        raise ValueError("a document's segments are texts, and it has at least one")
    document.segments.all().delete()
    Segment.objects.bulk_create(
        Segment(document=document, index=index, text=text, sentences=sentence_offsets(text))
        for index, text in enumerate(segments)
    )
