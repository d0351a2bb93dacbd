"""The feedback page's text: segments cut into pieces at span boundaries, each piece
knowing which spans cover it, so a template can colour it. Text stays plain;
the template escapes it."""

from dataclasses import dataclass

from .scoring import annotation_rows, document_comparison, gold_spans, spans_of


@dataclass
class Piece:
    text: str
    classes: str = ""
    color: str = ""
    title: str = ""


def segment_pieces(text, spans, outcome_of, colors, labels):
    """Pieces of one segment's `text` for `spans` (all in this segment).

    `outcome_of(span)` names its outcome (matched, missed, extra, confused),
    which becomes a CSS class; the last span covering a piece gives its colour.
    """
    cuts = {0, len(text)}
    for span in spans:
        cuts.update((span.start, span.end))
    cuts = sorted(cut for cut in cuts if 0 <= cut <= len(text))
    pieces = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        covering = [span for span in spans if span.start < end and start < span.end]
        if not covering:
            pieces.append(Piece(text[start:end]))
            continue
        outcomes = sorted({outcome_of(span) for span in covering})
        top = covering[-1]
        pieces.append(
            Piece(
                text[start:end],
                classes="span " + " ".join(f"outcome-{outcome}" for outcome in outcomes),
                color=colors.get(top.category, "#ffe08a"),
                title=", ".join(f"{labels.get(s.category, s.category)} ({outcome_of(s)})" for s in covering),
            )
        )
    return pieces


def document_view(entry):
    """Both columns of one document: the worker's spans and the experts' spans."""
    comparison = entry["comparison"]
    worker_outcome, gold_outcome = {}, {}
    for pair in comparison["matched"]:
        worker_outcome[id(pair.worker)] = "matched"
        gold_outcome[id(pair.reference)] = "matched"
    for pair in [*comparison["confused"], *comparison["wrong_earlier"]]:
        worker_outcome[id(pair.worker)] = "confused"
    for span in comparison["extra"]:
        worker_outcome[id(span)] = "extra"
    for span in comparison["missed"]:
        gold_outcome.setdefault(id(span), "missed")
    colors, labels = entry["colors"], entry["labels"]
    segments = []
    for index, text in entry["segments"]:
        mine = [span for span in entry["mine"] if span.segment == index]
        gold = [span for span in entry["gold"] if span.segment == index]
        segments.append(
            {
                "index": index,
                "mine": segment_pieces(
                    text, mine, lambda s: worker_outcome.get(id(s), "extra"), colors, labels
                ),
                "gold": segment_pieces(
                    text, gold, lambda s: gold_outcome.get(id(s), "matched"), colors, labels
                ),
            }
        )
    texts = dict(entry["segments"])

    def quote(span):
        return texts[span.segment][span.start : span.end]

    def label(key):
        return labels.get(key, key)

    return {
        "document": entry["document"],
        "segments": segments,
        "matched": [
            (label(p.worker.category), quote(p.worker), quote(p.reference)) for p in comparison["matched"]
        ],
        "missed": [(label(s.category), quote(s)) for s in comparison["missed"]],
        "extra": [(label(s.category), quote(s)) for s in comparison["extra"]],
        "confused": [
            (label(p.worker.category), label(p.reference.category), quote(p.worker))
            for p in comparison["confused"]
        ],
        "wrong_earlier": [(label(p.worker.category), quote(p.worker)) for p in comparison["wrong_earlier"]],
    }


def feedback_documents(assignments):
    """Per qualification assignment with gold: its text with the worker's and the gold spans."""
    documents = []
    for assignment in assignments:
        study = assignment.study
        categories = list(study.taxonomy.categories.values_list("key", "label", "color", "kind"))
        paired_keys = {key for key, _, _, kind in categories if kind == "paired"}
        gold, has_gold = gold_spans(assignment.document)
        if not has_gold:
            continue
        mine = spans_of(annotation_rows([assignment]))
        entry = {
            "document": assignment.document,
            "segments": list(assignment.document.segments.order_by("index").values_list("index", "text")),
            "mine": mine,
            "gold": gold,
            "comparison": document_comparison(mine, gold, paired_keys),
            "labels": {key: label for key, label, _, _ in categories},
            "colors": {key: color for key, _, color, _ in categories},
        }  # fmt: skip
        documents.append(document_view(entry))
    return documents
