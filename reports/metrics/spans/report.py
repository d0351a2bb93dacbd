"""The span-study report: agreement, distribution of spans, annotators against a reference.

Key layout: DESIGN.md "Report JSON"; definitions and choices: METRICS.md and
docs/metrics.md.
"""

from collections import Counter, defaultdict

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.spans.agreement import projection_alpha, token_agreement
from reports.metrics.spans.data import GOLD, MAIN, MODEL, QUALIFICATION
from reports.metrics.spans.distribution import distribution
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.reference import ReferenceTally, sentence_marks, tally_marks

NO_MULTIPLY_ANNOTATED = "no document has two or more submitted main annotations"
NO_EXPERT_PAIR = "no document has two or more submitted gold annotations"


def span_report(study, progress=None, layout=None):
    """Every span-study metric of ``study`` (a :class:`SpanStudy`) as a JSON-ready dict.

    ``progress``, if given, is called with the fraction done a few times.
    ``layout``: the study's :class:`StudyLayout` when the caller has built it.
    """
    notify = progress or (lambda fraction: None)
    notify(0.0)
    keys = [category.key for category in study.categories]
    layout = layout or StudyLayout(study.documents)
    annotations = _submitted(study, layout)
    main = [annotation for annotation in annotations if annotation.kind == MAIN]
    category_numbers = {key: number for number, key in enumerate(keys)}
    gold = [annotation for annotation in annotations if annotation.kind == GOLD]
    table = SpanTable(main, layout, category_numbers)
    gold_table = SpanTable(gold, layout, category_numbers)
    # Qualification and retest work is checked here too; evaluators' work is the comparison's to check.
    others = [annotation for annotation in annotations if annotation.kind not in (MAIN, GOLD, MODEL)]
    SpanTable(others, layout, category_numbers)  # validates them
    coders = np.bincount(table.documents, minlength=len(study.documents))
    notify(0.3)

    # The crowd's figures come from main annotations only; gold never mixes in.
    report = {"protocol": "span"}
    report.update(_agreement(study.categories, layout, table, NO_MULTIPLY_ANNOTATED, notify))
    report["distribution"] = distribution(study.documents, keys, layout, table, main)
    report["experts"] = _agreement(study.categories, layout, gold_table, NO_EXPERT_PAIR)
    if not report["experts"]["units"]["documents"]:
        _explain_unpaired(report["experts"], NO_EXPERT_PAIR)
    notify(0.8)
    reference_kind, tallies = _reference_tallies(layout, annotations, main, coders)
    report["reference_kind"] = reference_kind
    report["annotators"] = _annotators(study.documents, keys, main, tallies)
    notify(1.0)
    return report


class SpanTable:
    """The primary spans of the main annotations as arrays.

    ``owners`` (annotation number), ``categories`` (category number),
    ``starts``/``ends`` (study coordinates); ``documents`` gives each
    annotation's document number.
    """

    def __init__(self, annotations, layout, category_numbers):
        self.documents = np.array([layout.document_index[a.document] for a in annotations], dtype=np.int64)
        owners, categories, segments, starts, ends = [], [], [], [], []
        offsets = layout.segments.document_offsets
        for number, annotation in enumerate(annotations):
            document = self.documents[number]
            first, count = offsets[document], offsets[document + 1] - offsets[document]
            for span in annotation.spans:
                if span.category not in category_numbers:
                    raise ValueError(f"{annotation.document}: unknown category {span.category!r}")
                if not 0 <= span.segment < count:
                    raise ValueError(f"{annotation.document}: no segment {span.segment}")
                owners.append(number)
                categories.append(category_numbers[span.category])
                segments.append(first + span.segment)
                starts.append(span.start)
                ends.append(span.end)
        self.owners = np.array(owners, dtype=np.int64)
        self.categories = np.array(categories, dtype=np.int64)
        segments = np.array(segments, dtype=np.int64)
        starts = np.array(starts, dtype=np.int64)
        ends = np.array(ends, dtype=np.int64)
        bad = (starts < 0) | (starts >= ends) | (ends > layout.segment_lengths[segments])
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            annotation = annotations[self.owners[at]]
            raise ValueError(
                f"{annotation.document}: span [{starts[at]}, {ends[at]}) is empty or outside its segment"
            )
        self.starts = starts + layout.segment_bases[segments]
        self.ends = ends + layout.segment_bases[segments]

    def select(self, mask):
        return self.owners[mask], self.starts[mask], self.ends[mask]


def _submitted(study, layout):
    """Submitted annotations of known documents; a repeated main or gold annotation keeps the last one."""
    latest = {}
    annotations = []
    for annotation in study.annotations:
        if not annotation.submitted:
            continue
        if annotation.document not in layout.document_index:
            raise ValueError(f"annotation of unknown document {annotation.document!r}")
        if annotation.kind in (MAIN, GOLD):
            latest[(annotation.kind, annotation.annotator, annotation.document)] = annotation
        else:
            annotations.append(annotation)
    return list(latest.values()) + annotations


def _agreement(categories, layout, table, unpaired_reason, notify=None):
    """Annotators per document, units, token agreement per category and projections per group.

    Computed over the annotations of ``table`` alone: the crowd's main
    annotations, or the experts' gold ones.
    """
    keys = [category.key for category in categories]
    coders = np.bincount(table.documents, minlength=len(layout.document_index))
    result = {}
    _annotators_per_document(result, coders, unpaired_reason)
    result["units"] = {
        "documents": int(np.count_nonzero(coders >= 2)),
        "tokens": int(layout.tokens.per_document()[coders >= 2].sum()),
        "sentences": int(layout.sentences.per_document()[coders >= 2].sum()),
        "segments": int(layout.segments.per_document()[coders >= 2].sum()),
    }
    result["categories"] = _categories(keys, layout, table, coders, notify or (lambda fraction: None))
    result["groups"] = _groups(categories, layout, table, coders)
    return result


def _explain_unpaired(figures, reason):
    """Every figure is undefined: say why in the study's terms rather than alpha's ("no pairable units")."""
    for entry in [*figures["categories"].values(), *figures["groups"].values()]:
        for name in [name for name in entry if name.endswith("_reason")]:
            entry[name] = reason


def _annotators_per_document(report, coders, unpaired_reason):
    counted = coders[coders >= 2]
    if not len(counted):
        put_value(report, "annotators_per_document", None, unpaired_reason)
        put_value(report, "annotators_per_document_summary", None, unpaired_reason)
        return
    frequency = np.bincount(counted)
    report["annotators_per_document"] = int(np.flatnonzero(frequency == frequency.max())[-1])
    report["annotators_per_document_summary"] = {
        "min": int(counted.min()),
        "max": int(counted.max()),
        "mean": float(counted.mean()),
        "documents": len(counted),
    }


def _categories(keys, layout, table, coders, notify):
    coders_per_token = layout.tokens.per_unit(coders)
    spans = np.bincount(table.categories, minlength=len(keys))
    result = {}
    for number, key in enumerate(keys):
        entry = {"spans": int(spans[number])}
        entry.update(
            token_agreement(layout.tokens, *table.select(table.categories == number), coders_per_token)
        )
        result[key] = entry
        notify(0.3 + 0.4 * (number + 1) / len(keys))
    return result


def _groups(categories, layout, table, coders):
    members = defaultdict(list)
    for number, category in enumerate(categories):
        members[category.group].append(number)
    result = {}
    for group, numbers in members.items():
        spans = table.select(np.isin(table.categories, numbers))
        entry = {}
        alpha = projection_alpha(layout.sentences, *spans, layout.sentences.per_unit(coders))
        put_value(entry, "sentence_alpha", alpha.alpha, alpha.reason)
        alpha = projection_alpha(layout.segments, *spans, layout.segments.per_unit(coders))
        put_value(entry, "segment_alpha", alpha.alpha, alpha.reason)
        result[group] = entry
    return result


def _reference_tallies(layout, annotations, main, coders):
    """Per annotator and category, sentence-level tallies against the reference.

    With gold annotations in the study: every main or qualification
    annotation of a document with gold, against the union of that
    document's gold annotations. Otherwise leave-one-out: every main
    annotation of a document with two or more, against the union of the
    other main annotations of the document.
    """
    tallies = defaultdict(lambda: defaultdict(ReferenceTally))

    def marks(annotation_spans, document_id):
        return sentence_marks(annotation_spans, layout.document_sentences[layout.document_index[document_id]])

    gold = defaultdict(list)
    for annotation in annotations:
        if annotation.kind == GOLD:
            gold[annotation.document].extend(annotation.spans)
    if gold:
        gold_marks = {document: marks(spans, document) for document, spans in gold.items()}
        for annotation in annotations:
            if annotation.kind in (MAIN, QUALIFICATION) and annotation.document in gold:
                worker = marks(annotation.spans, annotation.document)
                tally_marks(worker, gold_marks[annotation.document], tallies[annotation.annotator])
        return "gold", tallies

    by_document = defaultdict(list)
    for annotation in main:
        if coders[layout.document_index[annotation.document]] >= 2:
            by_document[annotation.document].append(annotation)
    for document, group in by_document.items():
        group_marks = [marks(annotation.spans, document) for annotation in group]
        for number, annotation in enumerate(group):
            others = defaultdict(list)
            for other, other_marks in enumerate(group_marks):
                if other != number:
                    for key, pieces in other_marks.items():
                        others[key].extend(pieces)
            tally_marks(group_marks[number], others, tallies[annotation.annotator])
    return "others", tallies


def _annotators(documents, keys, main, tallies):
    segment_counts = {document.id: len(document.segments) for document in documents}
    totals = defaultdict(Counter)
    for annotation in main:
        total = totals[annotation.annotator]
        total["documents"] += 1
        total["spans"] += len(annotation.spans)
        total["seconds"] += annotation.active_seconds
        total["segments"] += segment_counts[annotation.document]
        visits = list(annotation.segments_visited or ())
        total["revisited"] += len(visits) - len(set(visits))
    result = {}
    for name in list(totals) + [name for name in tallies if name not in totals]:
        total = totals[name]
        entry = {"documents": total["documents"], "spans": total["spans"]}
        per_document = total["spans"] / total["documents"] if total["documents"] else None
        put_value(entry, "spans_per_document", per_document, "no main annotation")
        per_segment = total["seconds"] / total["segments"] if total["seconds"] and total["segments"] else None
        put_value(entry, "seconds_per_segment", per_segment, "no active time recorded")
        entry["segments_revisited"] = total["revisited"]
        entry["reference"] = {key: tallies[name][key].scores() for key in keys}
        result[name] = entry
    return result
