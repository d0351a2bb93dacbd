"""The span report's sufficient statistics: counts that add up over documents.

Every figure of the span report (reports/metrics/spans/report.py) is a
function of sums over documents: kinds tables of units (agreement.py),
span and error-token counts, sentence-level reference tallies and
per-annotator totals. :func:`span_tallies` computes them for any set of
documents, as plain JSON (lists, dicts, ints); :func:`merge_tallies` adds
the tallies of disjoint sets of documents. So a report computed in parts
(one per chunk of documents, on several Celery workers) and merged has the
same figures, to the last bit, as one pass over the whole study: the merge
adds integers, and the floats are computed once, from the merged counts.

Names keep their order of first appearance (documents in study order, then
annotations), so merged parts in document order list systems and
annotators as one pass does.
"""

from array import array
from collections import defaultdict

import numpy as np

from reports.metrics.spans.agreement import add_kinds, projection_kinds, token_kinds
from reports.metrics.spans.data import GOLD, MAIN, MODEL, QUALIFICATION
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.ranges import merge_ranges
from reports.metrics.spans.reference import ReferenceTally, sentence_marks, tally_marks

GOLD_REFERENCE, OTHERS_REFERENCE = "gold", "others"
# What merge_tallies reads of each part's tallies.
MERGED_KEYS = ("main", "gold", "distribution", "reference_kind", "reference", "annotators")
_TOTALS = ("documents", "spans", "seconds", "segments", "revisited")


def reference_kind_of(annotations):
    """ "gold" when any submitted gold annotation exists (annotators are scored against it), else "others"."""
    gold = any(annotation.kind == GOLD and annotation.submitted for annotation in annotations)
    return GOLD_REFERENCE if gold else OTHERS_REFERENCE


def span_tallies(study, *, layout=None, reference_kind=None, notify=None):
    """The sufficient statistics of the span report over the documents of ``study`` (a SpanStudy).

    ``reference_kind``: whether annotators are scored against gold or against
    the others; a part of a study passes the whole study's (reference_kind_of).
    """
    notify = notify or (lambda fraction: None)
    keys = [category.key for category in study.categories]
    layout = layout or StudyLayout(study.documents)
    annotations = submitted_annotations(study, layout)
    main = [annotation for annotation in annotations if annotation.kind == MAIN]
    category_numbers = {key: number for number, key in enumerate(keys)}
    gold = [annotation for annotation in annotations if annotation.kind == GOLD]
    table = SpanTable(main, layout, category_numbers)
    gold_table = SpanTable(gold, layout, category_numbers)
    # Qualification and retest work is checked here too; evaluators' work is the comparison's to check.
    others = [annotation for annotation in annotations if annotation.kind not in (MAIN, GOLD, MODEL)]
    SpanTable(others, layout, category_numbers)  # validates them
    notify(0.3)
    reference_kind = reference_kind or reference_kind_of(annotations)
    tallies = {
        "main": _agreement_tallies(study.categories, layout, table, notify),
        "gold": _agreement_tallies(study.categories, layout, gold_table),
        "distribution": _distribution_tallies(study.documents, keys, layout, table, main),
        "reference_kind": reference_kind,
    }
    notify(0.8)
    coders = np.bincount(table.documents, minlength=len(study.documents))
    reference = _reference_tallies(layout, annotations, main, coders, reference_kind)
    tallies["reference"] = {
        annotator: {key: _tally_list(tally) for key, tally in per_category.items()}
        for annotator, per_category in reference.items()
    }
    tallies["annotators"] = _annotator_totals(study.documents, main)
    return tallies


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


def submitted_annotations(study, layout):
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


def _agreement_tallies(categories, layout, table, notify=None):
    """Coders per document, units, and per category and group the kinds tables of their units."""
    notify = notify or (lambda fraction: None)
    keys = [category.key for category in categories]
    coders = np.bincount(table.documents, minlength=len(layout.document_index))
    paired = coders >= 2
    result = {
        "coders": np.bincount(coders, minlength=3).tolist(),  # documents by their number of coders
        "units": {
            "tokens": int(layout.tokens.per_document()[paired].sum()),
            "sentences": int(layout.sentences.per_document()[paired].sum()),
            "segments": int(layout.segments.per_document()[paired].sum()),
        },
    }
    coders_per_token = layout.tokens.per_unit(coders)
    spans = np.bincount(table.categories, minlength=len(keys))
    result["categories"] = {}
    for number, key in enumerate(keys):
        annotated, union = token_kinds(
            layout.tokens, *table.select(table.categories == number), coders_per_token
        )
        result["categories"][key] = {
            "spans": int(spans[number]),
            "tokens": annotated.tolist(),
            "tokens_union": union.tolist(),
        }
        notify(0.3 + 0.4 * (number + 1) / len(keys))
    members = defaultdict(list)
    for number, category in enumerate(categories):
        members[category.group].append(number)
    result["groups"] = {}
    for group, numbers in members.items():
        spans = table.select(np.isin(table.categories, numbers))
        result["groups"][group] = {
            "sentences": projection_kinds(
                layout.sentences, *spans, layout.sentences.per_unit(coders)
            ).tolist(),
            "segments": projection_kinds(layout.segments, *spans, layout.segments.per_unit(coders)).tolist(),
        }
    return result


def _distribution_tallies(documents, keys, layout, table, main):
    """Per system: tokens read, spans and error tokens per category; per annotator: spans per category."""
    size = len(keys)
    tokens_read = layout.tokens.per_document()[table.documents]
    systems = list(dict.fromkeys(document.system for document in documents))
    system_numbers = {system: number for number, system in enumerate(systems)}
    document_systems = np.array([system_numbers[d.system] for d in documents], dtype=np.int64)
    annotation_systems = document_systems[table.documents]
    read = np.bincount(annotation_systems, weights=tokens_read, minlength=len(systems)).astype(np.int64)

    def per_system(systems_of, categories, weights=None):
        counts = np.bincount(systems_of * size + categories, weights=weights, minlength=len(systems) * size)
        return counts.astype(np.int64).reshape(len(systems), size)

    spans = per_system(annotation_systems[table.owners], table.categories)
    owners, categories, marked = error_tokens(layout, table, size)
    marked_tokens = per_system(annotation_systems[owners], categories, marked)
    annotators = list(dict.fromkeys(annotation.annotator for annotation in main))
    annotator_numbers = {name: number for number, name in enumerate(annotators)}
    span_annotators = np.array([annotator_numbers[a.annotator] for a in main], dtype=np.int64)[table.owners]
    by_annotator = np.bincount(span_annotators * size + table.categories, minlength=len(annotators) * size)
    # Per annotated document, its spans and tokens read over its main annotations: the ranking's
    # items (reports/metrics/ranking.py). Parts hold disjoint documents, so merging is a union.
    document_spans = np.bincount(table.documents, weights=np.bincount(table.owners, minlength=len(main)),
                                 minlength=len(documents)).astype(np.int64)  # fmt: skip
    document_read = np.bincount(table.documents, weights=tokens_read, minlength=len(documents)).astype(
        np.int64
    )
    return {
        "documents": {
            document.id: [document.system, document.input_id or document.id, int(spans), int(read_tokens)]
            for document, spans, read_tokens in zip(documents, document_spans, document_read, strict=True)
            if read_tokens
        },
        "systems": {
            system: {
                "tokens_read": int(read[number]),
                "spans": spans[number].tolist(),
                "error_tokens": marked_tokens[number].tolist(),
            }
            for number, system in enumerate(systems)
        },
        "annotators": {
            name: by_annotator[number * size : (number + 1) * size].tolist()
            for number, name in enumerate(annotators)
        },
    }


def error_tokens(layout, table, size):
    """Per (annotation, category): how many distinct tokens that annotation's spans of the category touch.

    Returned as ``(owners, categories, counts)``: a token inside two
    overlapping spans of one annotation and category counts once.
    """
    lo, hi = layout.tokens.touched(table.starts, table.ends)
    # One "owner" per (annotation, category), so merging never joins categories.
    owners, lo, hi = merge_ranges(table.owners * size + table.categories, lo, hi)
    owners, categories = np.divmod(owners, size)
    return owners, categories, hi - lo


def _reference_tallies(layout, annotations, main, coders, reference_kind):
    """Per annotator and category, sentence-level tallies against the reference.

    Against gold: every main or qualification annotation of a document with
    gold, against the union of that document's gold annotations. Otherwise
    leave-one-out: every main annotation of a document with two or more,
    against the union of the other main annotations of the document.
    """
    tallies = defaultdict(lambda: defaultdict(ReferenceTally))

    def marks(annotation_spans, document_id):
        return sentence_marks(annotation_spans, layout.document_sentences[layout.document_index[document_id]])

    if reference_kind == GOLD_REFERENCE:
        gold = defaultdict(list)
        for annotation in annotations:
            if annotation.kind == GOLD:
                gold[annotation.document].extend(annotation.spans)
        gold_marks = {document: marks(spans, document) for document, spans in gold.items()}
        for annotation in annotations:
            if annotation.kind in (MAIN, QUALIFICATION) and annotation.document in gold:
                worker = marks(annotation.spans, annotation.document)
                tally_marks(worker, gold_marks[annotation.document], tallies[annotation.annotator])
        return tallies

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
    return tallies


def _tally_list(tally):
    return [tally.predicted, tally.reference, tally.correct, tally.overlapping]


def reference_tally(values):
    """A ReferenceTally from its list in the tallies."""
    return ReferenceTally(*values)


def _annotator_totals(documents, main):
    segment_counts = {document.id: len(document.segments) for document in documents}
    totals = {}
    for annotation in main:
        total = totals.setdefault(annotation.annotator, dict.fromkeys(_TOTALS, 0))
        total["documents"] += 1
        total["spans"] += len(annotation.spans)
        total["seconds"] += annotation.active_seconds
        total["segments"] += segment_counts[annotation.document]
        visits = list(annotation.segments_visited or ())
        total["revisited"] += len(visits) - len(set(visits))
    return totals


def merge_tallies(parts):
    """The tallies of the union of disjoint sets of documents, from each set's (in document order).

    `parts` is read once, a part at a time (a report's parts come from the database that way):
    what is kept across parts is sums, and the ranking's per-document counts pooled by system and
    input in packed arrays (DocumentErrors), so the merge's memory does not grow with the study.
    """
    merged = None
    for part in parts:
        documents = part["distribution"]["documents"]
        part = {**part, "distribution": {**part["distribution"], "documents": None}}
        if merged is None:
            merged, errors = part, DocumentErrors()
        else:
            if part["reference_kind"] != merged["reference_kind"]:
                raise ValueError("parts scored against different references")
            merged = {
                "main": _merge_agreement(merged["main"], part["main"]),
                "gold": _merge_agreement(merged["gold"], part["gold"]),
                "distribution": _merge_distribution(merged["distribution"], part["distribution"]),
                "reference_kind": merged["reference_kind"],
                "reference": _merge_reference(merged["reference"], part["reference"]),
                "annotators": _merge_totals(merged["annotators"], part["annotators"]),
            }
        errors.add(documents)
    if merged is None:
        raise ValueError("no tallies to merge")
    merged["distribution"]["documents"] = errors
    return merged


class DocumentErrors:
    """Main annotations' error spans and tokens read per (system, input), pooled over the documents
    added (the "documents" of span tallies): the ranking's items, as two packed arrays of counts.

    A system with two documents for one input is pooled, not overwritten; systems and inputs keep
    their order of first appearance.
    """

    def __init__(self):
        self.numbers = {}  # (system, input): its place in the arrays
        self.spans, self.read = array("q"), array("q")

    def add(self, documents):
        """Add {document: [system, input, spans, tokens read]}."""
        for system, input_id, spans, read in documents.values():
            number = self.numbers.setdefault((system, input_id), len(self.numbers))
            if number == len(self.spans):
                self.spans.append(0)
                self.read.append(0)
            self.spans[number] += spans
            self.read[number] += read

    def error_rates(self):
        """``{system: {input: error spans per 100 tokens read}}``, inputs with no token read left out."""
        rates = {}
        for (system, input_id), number in self.numbers.items():
            by_input = rates.setdefault(system, {})
            if self.read[number]:
                by_input[input_id] = 100.0 * self.spans[number] / self.read[number]
        return rates


def _add_lists(first, second):
    width = max(len(first), len(second))
    first, second = first + [0] * (width - len(first)), second + [0] * (width - len(second))
    return [a + b for a, b in zip(first, second, strict=True)]


def _add_counts(first, second):
    return {key: first.get(key, 0) + second.get(key, 0) for key in dict.fromkeys([*first, *second])}


def _add_kinds(first, second):
    return add_kinds(np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)).tolist()


def _merge_reference(first, second):
    """{annotator: {category: [predicted, reference, correct, overlapping]}} added up."""
    merged = {name: dict(per_category) for name, per_category in first.items()}
    for name, per_category in second.items():
        mine = merged.setdefault(name, {})
        for key, values in per_category.items():
            mine[key] = _add_lists(mine.get(key, []), values)
    return merged


def _merge_totals(first, second):
    merged = dict(first)
    for name, totals in second.items():
        merged[name] = _add_counts(merged.get(name, {}), totals)
    return merged


def _merge_agreement(first, second):
    return {
        "coders": _add_lists(first["coders"], second["coders"]),
        "units": _add_counts(first["units"], second["units"]),
        "categories": {
            key: {
                "spans": entry["spans"] + second["categories"][key]["spans"],
                "tokens": _add_kinds(entry["tokens"], second["categories"][key]["tokens"]),
                "tokens_union": _add_kinds(entry["tokens_union"], second["categories"][key]["tokens_union"]),
            }
            for key, entry in first["categories"].items()
        },
        "groups": {
            group: {unit: _add_kinds(kinds, second["groups"][group][unit]) for unit, kinds in entry.items()}
            for group, entry in first["groups"].items()
        },
    }


def _merge_distribution(first, second):
    systems = dict(first["systems"])
    for system, entry in second["systems"].items():
        if system in systems:
            mine = systems[system]
            entry = {
                "tokens_read": mine["tokens_read"] + entry["tokens_read"],
                "spans": _add_lists(mine["spans"], entry["spans"]),
                "error_tokens": _add_lists(mine["error_tokens"], entry["error_tokens"]),
            }
        systems[system] = entry
    annotators = dict(first["annotators"])
    for name, counts in second["annotators"].items():
        annotators[name] = _add_lists(annotators[name], counts) if name in annotators else counts
    return {
        "documents": None,  # pooled apart, in merge_tallies
        "systems": systems,
        "annotators": annotators,
    }
