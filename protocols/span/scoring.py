"""Score a worker's annotations against expert gold (METRICS.md, "Annotator vs reference").

Per category: precision, recall, F1 and overlap over (sentence, category)
units, summed over the documents scored. For a paired category the sentences
of the earlier span count too, so both spans are scored. Span level: matched,
missed, extra and confused spans; a paired span matches only when its earlier
span also overlaps the gold one's.
"""

from collections import defaultdict

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from reports.metrics.spans import Span, SpanDocument, span_matches
from reports.metrics.spans.layout import segment_sentences
from reports.metrics.spans.reference import ReferenceTally, sentence_marks, tally_marks


def spans_of(rows):
    return [
        Span(
            category=r.category.key,
            segment=r.segment.index,
            start=r.start,
            end=r.end,
            paired_segment=r.paired_segment.index if r.paired_segment_id else None,
            paired_start=r.paired_start,
            paired_end=r.paired_end,
        )  # fmt: skip
        for r in rows
    ]


def _with_earlier_spans(spans):
    """Primary spans plus each paired span's earlier span, under the same category."""
    earlier = [
        Span(category=s.category, segment=s.paired_segment, start=s.paired_start, end=s.paired_end)
        for s in spans
        if s.paired_segment is not None
    ]
    return [*spans, *earlier]


def annotation_rows(assignments):
    return ErrorAnnotation.objects.filter(assignment__in=assignments).select_related(
        "category", "segment", "paired_segment"
    )


def gold_spans(document):
    gold = Assignment.objects.filter(
        document=document, kind=Assignment.Kind.GOLD, status=Assignment.Status.SUBMITTED
    )
    return spans_of(annotation_rows(gold)), gold.exists()


def span_document(document):
    segments = list(document.segments.order_by("index").values_list("text", "sentences"))
    return SpanDocument(
        id=document.external_id, system=document.system,
        segments=[text for text, _ in segments], sentences=[[tuple(p) for p in s] for _, s in segments],
    )  # fmt: skip


def _both_spans_overlap(pair):
    worker, gold = pair.worker, pair.reference
    if worker.paired_segment is None or gold.paired_segment is None:
        return True
    return worker.paired_segment == gold.paired_segment and max(worker.paired_start, gold.paired_start) < min(
        worker.paired_end, gold.paired_end
    )


def document_comparison(worker_spans, reference_spans, paired_keys):
    """Span-level matches of one document, with the paired-span rule applied."""
    matches = span_matches(worker_spans, reference_spans)
    kept, wrong_earlier = [], []
    for pair in matches["matched"]:
        if pair.worker.category in paired_keys and not _both_spans_overlap(pair):
            wrong_earlier.append(pair)
        else:
            kept.append(pair)
    matched_gold = {id(pair.reference) for pair in kept}
    missed = [
        *matches["missed"],
        *(pair.reference for pair in wrong_earlier if id(pair.reference) not in matched_gold),
    ]
    return {"matched": kept, "missed": missed, "extra": matches["extra"],
            "confused": matches["confused"], "wrong_earlier": wrong_earlier}  # fmt: skip


def score_assignments(assignments, categories):
    """Scores of one worker over their submitted assignments whose documents have gold.

    `categories` is [(key, paired)]. Returns None when no document has gold.
    """
    paired_keys = {key for key, paired in categories if paired}
    tallies = defaultdict(ReferenceTally)
    counts = {"matched": 0, "missed": 0, "extra": 0, "confused": 0}
    scored = 0
    for assignment in assignments:
        gold, has_gold = gold_spans(assignment.document)
        if not has_gold:
            continue
        scored += 1
        mine = spans_of(annotation_rows([assignment]))
        document = span_document(assignment.document)
        sentences = [segment_sentences(document, i) for i in range(len(document.segments))]
        tally_marks(
            sentence_marks(_with_earlier_spans(mine), sentences),
            sentence_marks(_with_earlier_spans(gold), sentences),
            tallies,
        )
        comparison = document_comparison(mine, gold, paired_keys)
        for key in counts:
            counts[key] += len(comparison[key])
        counts["confused"] += len(comparison["wrong_earlier"])
    if not scored:
        return None
    by_category = {key: tallies[key].scores() for key, _ in categories}
    defined = [values["f1"] for values in by_category.values() if values.get("f1") is not None]
    return {
        "documents": scored,
        "categories": by_category,
        "spans": counts,
        "macro_f1": sum(defined) / len(defined) if defined else None,
    }
