"""A document as researchers check it: its segments, each sentence delimited.

Segment text is stored raw and may hold anything a generator wrote, markup
included; every piece goes through format_html, which escapes it.
"""

from django.utils.html import format_html, format_html_join


def sentence_pieces(text, sentences):
    """Split `text` into (kind, piece) by its [start, end) sentence offsets.

    kind is "sentence" or "gap" (text between sentences). Offsets that do not
    fit the text (overlapping, out of range) are skipped rather than trusted.
    """
    pieces, position = [], 0
    for pair in sentences or []:
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            continue
        start, end = pair
        if not (isinstance(start, int) and isinstance(end, int)) or not position <= start < end <= len(text):
            continue
        if start > position:
            pieces.append(("gap", text[position:start]))
        pieces.append(("sentence", text[start:end]))
        position = end
    if position < len(text):
        pieces.append(("gap", text[position:]))
    return pieces


def _segment_html(segment):
    pieces, number = [], 0
    for kind, piece in sentence_pieces(segment.text, segment.sentences):
        if kind == "sentence":
            pieces.append(
                format_html(
                    '<span class="sentence sentence-{}" title="sentence {}">{}</span>'
                    '<span class="sentence-boundary" aria-hidden="true">|</span>',
                    "odd" if number % 2 else "even",
                    number + 1,
                    piece,
                )
            )
            number += 1
        else:
            pieces.append(format_html("{}", piece))
    return format_html(
        '<div class="segment" id="segment-{}"><div class="segment-index">segment {} · {} sentence{}</div>'
        '<div class="segment-text">{}</div></div>',
        segment.index,
        segment.index,
        number,
        "" if number == 1 else "s",
        format_html_join("", "{}", ((piece,) for piece in pieces)),
    )


def document_preview_html(segments):
    """HTML of `segments` (in order) for the admin; safe to render as it is."""
    segments = list(segments)
    if not segments:
        return format_html('<p class="document-preview">{}</p>', "This document has no segments.")
    return format_html(
        '<div class="document-preview">{}</div>',
        format_html_join("", "{}", ((_segment_html(segment),) for segment in segments)),
    )
