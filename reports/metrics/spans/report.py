"""The span-study report: agreement, distribution of spans, annotators against a reference.

Computed in two steps: the sufficient statistics of a set of documents
(tallies.py), then the figures from them (here). One pass over a study and a
merge of parts computed on several workers give the same figures.

Key layout: DESIGN.md "Report JSON"; definitions and choices: METRICS.md and
docs/metrics.md.
"""

from reports.metrics.nullable import put_value
from reports.metrics.ranking import rank_systems
from reports.metrics.spans.agreement import kinds_alpha, token_figures
from reports.metrics.spans.tallies import DocumentErrors, merge_tallies, reference_tally, span_tallies

NO_MULTIPLY_ANNOTATED = "no document has two or more submitted main annotations"
NO_EXPERT_PAIR = "no document has two or more submitted gold annotations"


def span_report(study, progress=None, layout=None):
    """Every span-study metric of ``study`` (a :class:`SpanStudy`) as a JSON-ready dict.

    ``progress``, if given, is called with the fraction done a few times.
    ``layout``: the study's :class:`StudyLayout` when the caller has built it.
    """
    notify = progress or (lambda fraction: None)
    notify(0.0)
    tallies = merge_tallies([span_tallies(study, layout=layout, notify=notify)])
    report = span_figures(study.categories, tallies)
    notify(1.0)
    return report


def span_figures(categories, tallies):
    """The report's figures from the merged tallies of the study's documents (merge_tallies)."""
    keys = [category.key for category in categories]
    # The crowd's figures come from main annotations only; gold never mixes in.
    # The taxonomy's order, kept apart: a jsonb column (PostgreSQL) does not keep its keys' order.
    report = {"protocol": "span", "category_order": keys}
    report.update(_agreement(categories, tallies["main"], NO_MULTIPLY_ANNOTATED))
    report["distribution"] = _distribution(keys, tallies["distribution"], tallies["main"])
    report["experts"] = _agreement(categories, tallies["gold"], NO_EXPERT_PAIR)
    if not report["experts"]["units"]["documents"]:
        _explain_unpaired(report["experts"], NO_EXPERT_PAIR)
    report["reference_kind"] = tallies["reference_kind"]
    report["annotators"] = _annotators(keys, tallies["annotators"], tallies["reference"])
    report["ranking"] = rank_systems(
        tallies["distribution"]["documents"].error_rates(), higher_is_better=False
    )
    return report


def error_rates(documents):
    """``{system: {input: error spans per 100 tokens}}`` from the per-document tallies: the
    spans over all the main annotations of the system's documents of that input, per 100 of
    the tokens they read (a system with two documents for one input is pooled, not overwritten)."""
    errors = DocumentErrors()
    errors.add(documents)
    return errors.error_rates()


def _agreement(categories, tallies, unpaired_reason):
    """Annotators per document, units, token agreement per category and projections per group.

    From the tallies of one kind of annotation alone: the crowd's main
    annotations, or the experts' gold ones.
    """
    result = {}
    _annotators_per_document(result, tallies["coders"], unpaired_reason)
    result["units"] = {"documents": sum(tallies["coders"][2:]), **tallies["units"]}
    result["categories"] = {}
    for category in categories:
        entry = tallies["categories"][category.key]
        result["categories"][category.key] = {
            "spans": entry["spans"],
            **token_figures(entry["tokens"], entry["tokens_union"]),
        }
    result["groups"] = {}
    for group, entry in tallies["groups"].items():
        figures = {}
        alpha = kinds_alpha(entry["sentences"])
        put_value(figures, "sentence_alpha", alpha.alpha, alpha.reason)
        alpha = kinds_alpha(entry["segments"])
        put_value(figures, "segment_alpha", alpha.alpha, alpha.reason)
        result["groups"][group] = figures
    return result


def _explain_unpaired(figures, reason):
    """Every figure is undefined: say why in the study's terms rather than alpha's ("no pairable units")."""
    for entry in [*figures["categories"].values(), *figures["groups"].values()]:
        for name in [name for name in entry if name.endswith("_reason")]:
            entry[name] = reason


def _annotators_per_document(report, coders, unpaired_reason):
    """``coders[c]``: documents with c coders; the figures are over documents with two or more."""
    counted = {number: documents for number, documents in enumerate(coders) if number >= 2 and documents}
    if not counted:
        put_value(report, "annotators_per_document", None, unpaired_reason)
        put_value(report, "annotators_per_document_summary", None, unpaired_reason)
        return
    most = max(counted.values())
    documents = sum(counted.values())
    report["annotators_per_document"] = max(number for number, count in counted.items() if count == most)
    report["annotators_per_document_summary"] = {
        "min": min(counted),
        "max": max(counted),
        "mean": sum(number * count for number, count in counted.items()) / documents,
        "documents": documents,
    }


def _rates(counts, tokens, keys):
    result = {}
    for key, count in zip(keys, counts, strict=True):
        entry = {"count": int(count)}
        rate = 100.0 * float(count) / tokens if tokens else None
        result[key] = put_value(entry, "per_100_tokens", rate, "no token annotated")
    return result


def _token_rates(counts, tokens, keys):
    """Error tokens per category, with their rate per 100 tokens read and their share of all error tokens."""
    result = _rates(counts, tokens, keys)
    total = sum(counts)
    for key, count in zip(keys, counts, strict=True):
        share = 100.0 * float(count) / total if total else None
        put_value(result[key], "share_pct", share, "no error token")
    return result


def _distribution(keys, tallies, agreement):
    """Spans and error tokens per category and per system, spans per annotator.

    Two measures side by side: spans (how many errors were marked) and error
    tokens (how much text they cover, SNaC's Fig. 4, Goyal et al. 2022).
    per_100_tokens = 100 x count / tokens annotated, where a document's
    tokens count once per main annotation of it (tokens read). Error tokens
    count per annotation: a token that two annotators marked counts twice,
    as their two spans over it count twice.
    """
    systems = tallies["systems"]
    read = sum(entry["tokens_read"] for entry in systems.values())
    error_tokens = [
        sum(entry["error_tokens"][number] for entry in systems.values()) for number in range(len(keys))
    ]
    return {
        "by_category": _rates([agreement["categories"][key]["spans"] for key in keys], read, keys),
        "by_system": {
            system: _rates(entry["spans"], entry["tokens_read"], keys) for system, entry in systems.items()
        },
        "by_annotator": {
            name: dict(zip(keys, counts, strict=True)) for name, counts in tallies["annotators"].items()
        },
        "tokens_by_category": _token_rates(error_tokens, read, keys),
        "tokens_by_system": {
            system: _token_rates(entry["error_tokens"], entry["tokens_read"], keys)
            for system, entry in systems.items()
        },
    }


def _annotators(keys, totals, reference):
    result = {}
    for name in list(totals) + [name for name in reference if name not in totals]:
        total = totals.get(name) or {}
        documents, spans = total.get("documents", 0), total.get("spans", 0)
        seconds, segments = total.get("seconds", 0), total.get("segments", 0)
        entry = {"documents": documents, "spans": spans}
        put_value(entry, "spans_per_document", spans / documents if documents else None, "no main annotation")
        per_segment = seconds / segments if seconds and segments else None
        put_value(entry, "seconds_per_segment", per_segment, "no active time recorded")
        entry["segments_revisited"] = total.get("revisited", 0)
        tallies = reference.get(name, {})
        entry["reference"] = {key: reference_tally(tallies.get(key, [0, 0, 0, 0])).scores() for key in keys}
        result[name] = entry
    return result
