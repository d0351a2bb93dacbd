"""Automatic evaluators against the people: hand-worked figures, a brute-force cross-check, edge cases.

The brute force below works on plain sets of (document, token) and
(document, sentence) per category, with its own tokenizer loop, and takes
alpha from the ``krippendorff`` package (a test-only dependency).
"""

import random
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from reports.metrics.spans import Annotation, Span, SpanCategory, SpanDocument, SpanStudy
from reports.metrics.spans.evaluators import evaluator_comparison, sweep
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.reference import ReferenceTally, sentence_marks, tally_marks

ROOT = Path(__file__).resolve().parents[2]
CATEGORIES = [SpanCategory("CharE", "coherence"), SpanCategory("GramE", "language")]

# Tokens: Anna(0,4) met(5,8) Ben(9,12) .(12,13) He(14,16) left(17,21) .(21,22); s0 (0,13), s1 (14,22).
FIRST = SpanDocument("d1", "sys", ["Anna met Ben. He left."], [[(0, 13), (14, 22)]])
# Tokens: Rain(0,4) fell(5,9) .(9,10) It(11,13) was(14,17) cold(18,22) .(22,23); s0 (0,10), s1 (11,23).
SECOND = SpanDocument("d2", "sys", ["Rain fell. It was cold."], [[(0, 10), (11, 23)]])

HAND = [
    Annotation("A", "d1", "main", [Span("CharE", 0, 9, 12)]),  # Ben: t2; s0
    Annotation("B", "d1", "main", [Span("CharE", 0, 5, 13), Span("GramE", 0, 17, 21)]),  # t1-t3; left: t5
    Annotation("expert", "d1", "gold", [Span("CharE", 0, 0, 4), Span("GramE", 0, 14, 16)]),  # Anna t0; He t4
    Annotation("llm", "d1", "model", [Span("CharE", 0, 0, 8), Span("GramE", 0, 17, 22)]),  # t0, t1; t5, t6
    Annotation("A", "d2", "main", [Span("GramE", 0, 5, 9), Span("CharE", 0, 11, 13)]),  # fell t1; It t3
    Annotation("B", "d2", "main", [Span("GramE", 0, 0, 9)]),  # Rain fell: t0, t1
    Annotation("llm", "d2", "model", [Span("GramE", 0, 5, 10), Span("CharE", 0, 18, 22)]),  # t1, t2; cold t5
]


def compare(documents, annotations, categories=CATEGORIES, **options):
    options.setdefault("resamples", 50)
    return evaluator_comparison(SpanStudy(documents, categories, annotations), **options)


def scores_of(figures):
    return (figures["predicted"], figures["reference"], figures["correct"]), tuple(
        figures[name] for name in ("precision", "recall", "f1")
    )


def test_token_scores_by_hand():
    # CharE predicted: d1 {t0, t1}, d2 {t5} = 3.
    #   union: d1 {t1, t2, t3}, d2 {t3} = 4; correct t1 = 1: P 1/3, R 1/4, F1 (1/6) / (7/12) = 2/7.
    #   two_agree (A and B): d1 {t2}; correct 0: P 0, R 0, F1 0.
    #   gold (d1 only): predicted 2, gold {t0}, correct 1: P 1/2, R 1, F1 2/3.
    # GramE predicted: d1 {t5, t6}, d2 {t1, t2} = 4.
    #   union: d1 {t5}, d2 {t0, t1} = 3; correct t5, t1 = 2: P 1/2, R 2/3, F1 4/7.
    #   two_agree: d2 {t1}; correct 1: P 1/4, R 1, F1 2/5.
    #   gold (d1): predicted 2, gold {t4}, correct 0: P 0, R 0, F1 0.
    # All: union 7/7/3 -> 3/7 each; two_agree 7/2/1 -> P 1/7, R 1/2, F1 2/9; gold 4/2/1 -> 1/4, 1/2, 1/3.
    llm = compare([FIRST, SECOND], HAND)["by_evaluator"]["llm"]
    expected = {
        "CharE": {"union": ((3, 4, 1), (1 / 3, 1 / 4, 2 / 7)), "two_agree": ((3, 1, 0), (0, 0, 0)),
                  "gold": ((2, 1, 1), (1 / 2, 1, 2 / 3))},
        "GramE": {"union": ((4, 3, 2), (1 / 2, 2 / 3, 4 / 7)), "two_agree": ((4, 1, 1), (1 / 4, 1, 2 / 5)),
                  "gold": ((2, 1, 0), (0, 0, 0))},
    }  # fmt: skip
    for key, references in expected.items():
        for reference, (counts, values) in references.items():
            found_counts, found_values = scores_of(llm["categories"][key]["token"][reference])
            assert found_counts == counts, (key, reference)
            assert found_values == pytest.approx(values), (key, reference)
    pooled = llm["all"]["token"]
    assert scores_of(pooled["union"]) == ((7, 7, 3), pytest.approx((3 / 7, 3 / 7, 3 / 7)))
    assert scores_of(pooled["two_agree"]) == ((7, 2, 1), pytest.approx((1 / 7, 1 / 2, 2 / 9)))
    assert scores_of(pooled["gold"]) == ((4, 2, 1), pytest.approx((1 / 4, 1 / 2, 1 / 3)))


def test_sentence_scores_and_overlap_by_hand():
    # CharE predicted: d1 s0, d2 s1.
    #   union: d1 s0 (A, B), d2 s1 (A): correct 2, P = R = 1; overlap: d1 s0 llm [0, 8) and B [5, 13)
    #   share "met", d2 s1 llm "cold" misses A's "It": 1/2.
    #   two_agree: d1 s0 only: P 1/2, R 1, F1 2/3, overlap 1.
    #   gold (d1): s0 against "Anna": P = R = 1, overlap 1.
    # GramE predicted: d1 s1, d2 s0.
    #   union: d1 s1 (B "left"), d2 s0 (A, B): correct 2, overlap 2/2 (llm "left." and "fell." overlap).
    #   two_agree: d2 s0: P 1/2, R 1, F1 2/3, overlap 1.
    #   gold (d1): s1 against "He": correct, but "left." shares no character with it: overlap 0.
    # All: union 4/4/4, overlap 3/4; two_agree 4/2/2, overlap 1; gold 2/2/2, overlap 1/2.
    llm = compare([FIRST, SECOND], HAND)["by_evaluator"]["llm"]
    expected = {
        "CharE": {"union": ((2, 2, 2), (1, 1, 1), 1 / 2), "two_agree": ((2, 1, 1), (1 / 2, 1, 2 / 3), 1),
                  "gold": ((1, 1, 1), (1, 1, 1), 1)},
        "GramE": {"union": ((2, 2, 2), (1, 1, 1), 1), "two_agree": ((2, 1, 1), (1 / 2, 1, 2 / 3), 1),
                  "gold": ((1, 1, 1), (1, 1, 1), 0)},
    }  # fmt: skip
    for key, references in expected.items():
        for reference, (counts, values, overlap) in references.items():
            figures = llm["categories"][key]["sentence"][reference]
            assert scores_of(figures) == (counts, pytest.approx(values)), (key, reference)
            assert figures["overlap"] == pytest.approx(overlap), (key, reference)
    pooled = llm["all"]["sentence"]
    assert (pooled["union"]["correct"], pooled["union"]["overlap"]) == (4, pytest.approx(3 / 4))
    assert (pooled["two_agree"]["reference"], pooled["two_agree"]["overlap"]) == (2, pytest.approx(1))
    assert (pooled["gold"]["predicted"], pooled["gold"]["overlap"]) == (2, pytest.approx(1 / 2))


def test_one_more_annotator_by_hand():
    # CharE, units t0..t6 of d1 and d2, two coders each. (A, B): d1 t1 (0,1), t2 (1,1), t3 (0,1);
    # d2 t3 (1,0); the other 10 units (0,0). o00 = 20, o01 = o10 = 3, o11 = 2; n0 = 23, n1 = 5, n = 28.
    # People: 1 - 27 * 6 / (2 * 23 * 5) = 34/115.
    # llm for A: (llm, B) d1 t0 (1,0), t1 (1,1), t2 (0,1), t3 (0,1); d2 t5 (1,0); 9 units (0,0):
    #   n0 = 22, n1 = 6, mismatches 4: 1 - 27 * 8 / (2 * 22 * 6) = 2/11.
    # llm for B: (A, llm) d1 t0 (0,1), t1 (0,1), t2 (1,0); d2 t3 (1,0), t5 (0,1); 9 units (0,0):
    #   n0 = 23, n1 = 5, mismatches 5: 1 - 27 * 10 / (2 * 23 * 5) = -4/23.
    # Mean (2/11 - 4/23) / 2 = 1/253.
    figures = compare([FIRST, SECOND], HAND)["by_evaluator"]["llm"]["one_more_annotator"]["CharE"]
    assert figures["people_alpha"] == pytest.approx(34 / 115)
    assert figures["replaced_mean"] == pytest.approx(1 / 253)
    assert figures["replaced_min"] == pytest.approx(-4 / 23)
    assert figures["replaced_max"] == pytest.approx(2 / 11)
    assert figures["replacements"] == 2


def test_report_shape_and_document_counts():
    report = compare([FIRST, SECOND], HAND, seed=3, resamples=20)
    assert report["evaluators"] == ["llm"]
    assert report["references"] == {
        "union": {"documents": 2},
        "two_agree": {"documents": 2},
        "gold": {"documents": 1},
    }
    assert (report["seed"], report["resamples"]) == (3, 20)
    llm = report["by_evaluator"]["llm"]
    assert (llm["documents"], llm["spans"]) == (2, 4)
    assert set(llm) == {"documents", "spans", "categories", "all", "one_more_annotator"}
    assert set(llm["categories"]) == set(llm["one_more_annotator"]) == {"CharE", "GramE"}
    # Gold covers one document: no interval.
    gold = llm["categories"]["CharE"]["token"]["gold"]
    assert gold["f1_interval"] is None
    assert gold["f1_interval_reason"] == "fewer than two compared documents"


# --- brute force -------------------------------------------------------------------------------

BRUTE_TOKEN = re.compile(r"\w+|[^\w\s]")


def brute_units(document):
    """Tokens and sentences of a document as (start, end) in its text joined by newlines."""
    text, bases, position = "\n".join(document.segments), [], 0
    for segment in document.segments:
        bases.append(position)
        position += len(segment) + 1
    tokens = [match.span() for match in BRUTE_TOKEN.finditer(text)]
    sentences = []
    for index, segment in enumerate(document.segments):
        given = document.sentences[index] if index < len(document.sentences) else []
        for start, end in given or ([(0, len(segment))] if segment else []):
            sentences.append((bases[index] + start, bases[index] + end))
    return bases, {"token": tokens, "sentence": sentences}


def brute_marks(spans, bases, units, key):
    """Indices of the units that share a character with a span of category ``key``."""
    marked = set()
    for span in spans:
        if span.category != key:
            continue
        start, end = bases[span.segment] + span.start, bases[span.segment] + span.end
        marked.update(number for number, (lo, hi) in enumerate(units) if max(lo, start) < min(hi, end))
    return marked


def brute_ratio(numerator, denominator):
    return numerator / denominator if denominator else None


def brute_force(study, evaluator):
    """Every count, score and overlap of one evaluator, from plain sets."""
    latest = {}
    for annotation in study.annotations:
        if annotation.submitted and annotation.kind in ("main", "gold", "model"):
            latest[(annotation.kind, annotation.annotator, annotation.document)] = annotation
    by_document = defaultdict(lambda: defaultdict(list))
    for (kind, _, document), annotation in latest.items():
        by_document[document][kind].append(annotation)
    keys = [category.key for category in study.categories]
    # (level, reference, key) -> [predicted, reference, correct, overlapping]
    tallies = defaultdict(lambda: [0, 0, 0, 0])
    for document in study.documents:
        kinds = by_document[document.id]
        model = [a for a in kinds["model"] if a.annotator == evaluator]
        if not model:
            continue
        bases, units = brute_units(document)
        people, gold = kinds["main"], kinds["gold"]
        wanted = {"union": len(people) >= 1, "two_agree": len(people) >= 2, "gold": len(gold) >= 1}
        for level, level_units in units.items():
            for key in keys:
                predicted = brute_marks(model[0].spans, bases, level_units, key)
                per_person = [brute_marks(a.spans, bases, level_units, key) for a in people]
                counted = defaultdict(int)
                for marks in per_person:
                    for unit in marks:
                        counted[unit] += 1
                references = {
                    "union": set(counted),
                    "two_agree": {unit for unit, count in counted.items() if count >= 2},
                    "gold": set().union(*(brute_marks(a.spans, bases, level_units, key) for a in gold)),
                }
                for reference, marked in references.items():
                    if not wanted[reference]:
                        continue
                    reference_spans = [s for a in (gold if reference == "gold" else people) for s in a.spans]
                    correct = predicted & marked
                    overlapping = 0
                    for unit in correct:
                        lo, hi = level_units[unit]
                        overlapping += any(
                            max(lo, bases[e.segment] + e.start, bases[r.segment] + r.start)
                            < min(hi, bases[e.segment] + e.end, bases[r.segment] + r.end)
                            for e in model[0].spans
                            if e.category == key
                            for r in reference_spans
                            if r.category == key
                        )
                    for tally_key in ((level, reference, key), (level, reference, "all")):
                        tally = tallies[tally_key]
                        tally[0] += len(predicted)
                        tally[1] += len(marked)
                        tally[2] += len(correct)
                        tally[3] += overlapping
    result = {}
    for (level, reference, key), (predicted, marked, correct, overlapping) in tallies.items():
        precision, recall = brute_ratio(correct, predicted), brute_ratio(correct, marked)
        f1 = None
        if precision is not None and recall is not None:
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        result[(level, reference, key)] = {
            "predicted": predicted, "reference": marked, "correct": correct, "precision": precision,
            "recall": recall, "f1": f1, "overlap": brute_ratio(overlapping, correct),
        }  # fmt: skip
    return result


def brute_one_more(study, evaluator, key):
    """People's alpha and every replaced alpha via the krippendorff package."""
    latest = {}
    for annotation in study.annotations:
        if annotation.submitted and annotation.kind in ("main", "model"):
            latest[(annotation.kind, annotation.annotator, annotation.document)] = annotation
    names = sorted({name for kind, name, _ in latest if kind == "main"})
    rows = {name: [] for name in names}
    machine = []
    documents_of = defaultdict(set)
    for document in study.documents:
        people = [
            latest[("main", name, document.id)] for name in names if ("main", name, document.id) in latest
        ]
        model = latest.get(("model", evaluator, document.id))
        if len(people) < 2 or model is None:
            continue
        bases, units = brute_units(document)
        tokens = units["token"]
        evaluator_marks = brute_marks(model.spans, bases, tokens, key)
        for name in names:
            annotation = latest.get(("main", name, document.id))
            if annotation is None:
                rows[name].extend([np.nan] * len(tokens))
                continue
            documents_of[name].add(document.id)
            marks = brute_marks(annotation.spans, bases, tokens, key)
            rows[name].extend(float(number in marks) for number in range(len(tokens)))
        machine.extend(float(number in evaluator_marks) for number in range(len(tokens)))

    def alpha(data):
        try:
            value = krippendorff.alpha(reliability_data=np.array(data), level_of_measurement="nominal")
        except ValueError:  # one value only
            return None
        return None if np.isnan(value) else value

    data = [rows[name] for name in names]
    replaced = []
    for number, name in enumerate(names):
        if not documents_of[name]:
            continue
        row = np.array(data[number])
        swapped = [list(r) for r in data]
        swapped[number] = list(np.where(np.isnan(row), np.nan, machine))
        value = alpha(swapped)
        if value is not None:
            replaced.append(value)
    return alpha(data) if data and data[0] else None, replaced


WORDS = ["Anna", "met", "Ben", "at", "the", "mill", "storm", "hills", "don't", "naïve", "über", "—", "42"]
RANDOM_CATEGORIES = [
    SpanCategory("CharE", "coherence"),
    SpanCategory("SceneE", "coherence"),
    SpanCategory("RepE", "language", paired=True),
    SpanCategory("GramE", "language"),
]


def random_spans(rng, document, count, keys):
    spans = []
    for _ in range(count):
        segment = rng.randrange(len(document.segments))
        text = document.segments[segment]
        start = rng.randrange(len(text) - 1)
        end = min(len(text), start + rng.randint(1, 25))
        key = rng.choice(keys)
        paired = (0, 0, 3) if key == "RepE" else (None, None, None)
        spans.append(Span(key, segment, start, end, *paired))
    return spans


def random_study(seed, documents=14):
    rng = random.Random(seed)
    keys = [category.key for category in RANDOM_CATEGORIES]
    docs, annotations = [], []
    people = ["ana", "ben", "cai", "dee", "eli"]
    for number in range(documents):
        segments, sentences = [], []
        for _ in range(rng.randint(1, 3)):
            parts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7))) + "." for _ in range(3)]
            text = " ".join(parts)
            segments.append(text)
            bounds, position = [], 0
            for part in parts:
                bounds.append((position, position + len(part)))
                position += len(part) + 1
            sentences.append(bounds if rng.random() < 0.8 else [])  # no sentences: the segment is one
        document = SpanDocument(f"doc{number}", "sys", segments, sentences)
        docs.append(document)
        coders = 1 if number == 0 else rng.randint(2, 4)
        for name in rng.sample(people, coders):
            annotations.append(
                Annotation(name, document.id, "main", random_spans(rng, document, rng.randint(0, 5), keys))
            )
        if number % 3 == 0:
            for name in ("expert", "second expert")[: rng.randint(1, 2)]:
                annotations.append(
                    Annotation(name, document.id, "gold", random_spans(rng, document, 3, keys))
                )
        # Everywhere, with an earlier unsubmitted and an earlier replaced annotation.
        annotations.append(
            Annotation("llm-a", document.id, "model", random_spans(rng, document, 9, keys), submitted=False)
        )
        annotations.append(Annotation("llm-a", document.id, "model", random_spans(rng, document, 2, keys)))
        annotations.append(
            Annotation("llm-a", document.id, "model", random_spans(rng, document, rng.randint(2, 8), keys))
        )
        if number % 4 != 1:  # not everywhere, and never GramE
            quiet = [key for key in keys if key != "GramE"]
            annotations.append(
                Annotation("quiet", document.id, "model", random_spans(rng, document, 3, quiet))
            )
    return SpanStudy(docs, RANDOM_CATEGORIES, annotations)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_count_and_score_matches_a_brute_force(seed):
    study = random_study(seed)
    report = evaluator_comparison(study, resamples=10)
    assert report["evaluators"] == ["llm-a", "quiet"]
    for evaluator in report["evaluators"]:
        expected = brute_force(study, evaluator)
        figures = report["by_evaluator"][evaluator]
        for (level, reference, key), values in expected.items():
            found = (figures["all"] if key == "all" else figures["categories"][key])[level][reference]
            for name in ("predicted", "reference", "correct"):
                assert found[name] == values[name], (evaluator, level, reference, key, name)
            names = ("precision", "recall", "f1") + (("overlap",) if level == "sentence" else ())
            for name in names:
                assert found[name] == pytest.approx(values[name]), (evaluator, level, reference, key, name)
                assert (f"{name}_reason" in found) == (values[name] is None)
    quiet = report["by_evaluator"]["quiet"]["categories"]["GramE"]["token"]["union"]
    assert quiet["predicted"] == 0
    assert quiet["precision"] is None


@pytest.mark.parametrize("seed", [1, 2])
def test_sentence_scores_are_those_of_the_annotators_report(seed):
    # The people's report scores a worker with sentence_marks / tally_marks; an evaluator against
    # the union of the people's (or the gold) spans of a document gets the same numbers.
    study = random_study(seed)
    report = evaluator_comparison(study, resamples=0)
    layout = StudyLayout(study.documents)
    for evaluator in report["evaluators"]:
        tallies = {"union": defaultdict(ReferenceTally), "gold": defaultdict(ReferenceTally)}
        for document in study.documents:
            mine = [a for a in study.annotations if a.submitted and a.document == document.id]
            model = [a for a in mine if a.kind == "model" and a.annotator == evaluator]
            if not model:
                continue
            sentences = layout.document_sentences[layout.document_index[document.id]]
            worker = sentence_marks(model[-1].spans, sentences)
            for reference, kind in (("union", "main"), ("gold", "gold")):
                spans = [span for a in mine if a.kind == kind for span in a.spans]
                if any(a.kind == kind for a in mine):
                    tally_marks(worker, sentence_marks(spans, sentences), tallies[reference])
        for reference, by_key in tallies.items():
            for key in report["by_evaluator"][evaluator]["categories"]:
                found = report["by_evaluator"][evaluator]["categories"][key]["sentence"][reference]
                expected = by_key[key].scores()
                for name in ("predicted", "reference", "correct", "precision", "recall", "f1", "overlap"):
                    assert found[name] == pytest.approx(expected[name]), (evaluator, reference, key, name)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_more_annotator_matches_krippendorff(seed):
    study = random_study(seed)
    report = evaluator_comparison(study, resamples=0)
    for evaluator in report["evaluators"]:
        for key, figures in report["by_evaluator"][evaluator]["one_more_annotator"].items():
            people_alpha, replaced = brute_one_more(study, evaluator, key)
            assert figures["people_alpha"] == pytest.approx(people_alpha), (evaluator, key)
            assert figures["replacements"] == len(replaced), (evaluator, key)
            if replaced:
                assert figures["replaced_mean"] == pytest.approx(np.mean(replaced)), (evaluator, key)
                assert figures["replaced_min"] == pytest.approx(min(replaced)), (evaluator, key)
                assert figures["replaced_max"] == pytest.approx(max(replaced)), (evaluator, key)
            else:
                assert figures["replaced_mean"] is None
                assert figures["replaced_mean_reason"]


@pytest.mark.parametrize("every_unit", [True, False])
def test_counting_every_unit_or_sweeping_gives_the_same_report(monkeypatch, every_unit):
    # Long lines of units are swept at the ends of the marks, short ones counted unit by unit.
    study = random_study(7)
    expected = evaluator_comparison(study, resamples=30)
    monkeypatch.setattr(sweep, "every_unit", lambda line, ends: every_unit)
    assert evaluator_comparison(study, resamples=30) == expected


# --- bootstrap ---------------------------------------------------------------------------------


def test_bootstrap_is_deterministic_for_a_seed():
    study = random_study(5, documents=20)
    first = evaluator_comparison(study, seed=7, resamples=200)
    assert evaluator_comparison(study, seed=7, resamples=200) == first
    other = evaluator_comparison(study, seed=8, resamples=200)
    pooled = "by_evaluator", "llm-a", "all", "token", "union"
    assert _at(other, pooled)["f1_interval"] != _at(first, pooled)["f1_interval"]


def _at(report, path):
    for key in path:
        report = report[key]
    return report


def test_intervals_contain_the_estimate_and_shrink_with_more_documents():
    widths = []
    for documents in (12, 192):
        report = evaluator_comparison(random_study(6, documents=documents), resamples=400)
        for level in ("token", "sentence"):
            for reference in ("union", "two_agree"):
                figures = report["by_evaluator"]["llm-a"]["all"][level][reference]
                for name in ("precision", "recall", "f1"):
                    low, high = figures[f"{name}_interval"]
                    assert low <= figures[name] <= high, (documents, level, reference, name)
        low, high = report["by_evaluator"]["llm-a"]["all"]["token"]["union"]["f1_interval"]
        widths.append(high - low)
    assert widths[1] < widths[0] / 2


def test_a_single_document_has_no_interval():
    report = compare([FIRST], HAND[:4])
    figures = report["by_evaluator"]["llm"]["all"]["token"]["union"]
    assert figures["precision"] == pytest.approx(2 / 4)  # d1: t1 and t5 of t0, t1, t5, t6
    for name in ("precision", "recall", "f1"):
        assert figures[f"{name}_interval"] is None
        assert figures[f"{name}_interval_reason"] == "fewer than two compared documents"


# --- inputs and edge cases ---------------------------------------------------------------------


def test_only_model_annotations_are_evaluator_input():
    # A person and an expert named like the evaluator stay people and experts.
    alike = [
        Annotation("llm", "d1", "main", [Span("CharE", 0, 14, 22)]),
        Annotation("llm", "d2", "gold", [Span("GramE", 0, 11, 23)]),
    ]
    report = compare([FIRST, SECOND], HAND + alike)
    assert report["evaluators"] == ["llm"]
    llm = report["by_evaluator"]["llm"]
    assert (llm["documents"], llm["spans"]) == (2, 4)
    plain = compare([FIRST, SECOND], HAND)["by_evaluator"]["llm"]
    for key in ("CharE", "GramE"):
        for level in ("token", "sentence"):
            assert (
                llm["categories"][key][level]["union"]["predicted"]
                == plain["categories"][key][level]["union"]["predicted"]
            )
    # The person "llm" adds "He left." (t4-t6) to CharE's union on d1; the expert makes d2 a gold document.
    assert llm["categories"]["CharE"]["token"]["union"]["reference"] == 7
    assert report["references"]["gold"] == {"documents": 2}


def test_evaluator_without_spans_has_no_precision_and_zero_recall():
    annotations = [a for a in HAND if a.kind != "model"] + [Annotation("silent", "d1", "model", [])]
    figures = compare([FIRST, SECOND], annotations)["by_evaluator"]["silent"]["categories"]["CharE"]["token"]
    assert figures["union"]["precision"] is None
    assert figures["union"]["precision_reason"] == "the evaluator marked no token"
    assert figures["union"]["recall"] == 0.0
    assert figures["union"]["reference"] == 3  # d1 only: the evaluator did not annotate d2
    assert figures["union"]["f1"] is None


def test_nobody_marking_anything_leaves_every_score_undefined():
    annotations = [Annotation(name, document, kind, []) for name, kind in (("A", "main"), ("B", "main"), ("llm", "model"))
                   for document in ("d1", "d2")]  # fmt: skip
    llm = compare([FIRST, SECOND], annotations)["by_evaluator"]["llm"]
    union = llm["all"]["sentence"]["union"]
    assert (union["predicted"], union["reference"], union["precision"], union["recall"]) == (0, 0, None, None)
    assert union["precision_interval_reason"] == "precision is undefined in every resample"
    figures = llm["one_more_annotator"]["CharE"]
    assert figures["people_alpha"] is None
    assert figures["people_alpha_reason"] == "only one value among pairable values"
    assert figures["replacements"] == 0


def test_without_gold_the_gold_reference_is_empty():
    report = compare([FIRST, SECOND], [a for a in HAND if a.kind != "gold"])
    assert report["references"]["gold"] == {"documents": 0}
    gold = report["by_evaluator"]["llm"]["all"]["sentence"]["gold"]
    assert (gold["predicted"], gold["reference"], gold["correct"]) == (0, 0, 0)
    for name in ("precision", "recall", "f1"):
        assert gold[name] is None
        assert "gold annotation" in gold[f"{name}_reason"]


def test_no_evaluator_gives_an_empty_comparison():
    report = compare([FIRST, SECOND], [a for a in HAND if a.kind != "model"])
    assert report["evaluators"] == []
    assert report["by_evaluator"] == {}


def test_one_more_annotator_needs_two_people_on_a_document():
    annotations = [a for a in HAND if a.annotator != "B"]
    figures = compare([FIRST, SECOND], annotations)["by_evaluator"]["llm"]["one_more_annotator"]["CharE"]
    assert figures["people_alpha"] is None
    assert "two or more people's annotations" in figures["people_alpha_reason"]
    assert figures["replacements"] == 0


def test_unknown_category_in_a_model_annotation_is_rejected():
    annotations = [*HAND, Annotation("llm-b", "d2", "model", [Span("Nonsense", 0, 0, 4)])]
    with pytest.raises(ValueError, match="d2: unknown category 'Nonsense'"):
        compare([FIRST, SECOND], annotations)


def test_span_outside_its_segment_is_rejected():
    annotations = [*HAND, Annotation("llm-b", "d2", "model", [Span("CharE", 0, 20, 40)])]
    with pytest.raises(ValueError, match=r"d2: span \[20, 40\) is empty or outside its segment"):
        compare([FIRST, SECOND], annotations)


def test_progress_is_reported_up_to_one():
    seen = []
    compare([FIRST, SECOND], HAND, progress=seen.append)
    assert seen[0] == 0.0
    assert seen[-1] == 1.0
    assert seen == sorted(seen)


def test_module_imports_without_django():
    check = (
        "import reports.metrics.spans.evaluators, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
