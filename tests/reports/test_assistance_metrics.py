"""The `assistance` figures against a hand-worked example and an independent brute-force count."""

import random
import re

import pytest

from reports.metrics.spans.assistance import Decision, SuggestedSpan, assistance_report
from reports.metrics.spans.data import Annotation, Span, SpanCategory, SpanDocument, SpanStudy


def study_of(documents, annotations, categories=("A", "B")):
    return SpanStudy(
        documents=[SpanDocument(id=d, system="s", segments=texts) for d, texts in documents.items()],
        categories=[SpanCategory(key=key, group=key) for key in categories],
        annotations=annotations,
    )


def person(name, document, arm, spans, seconds=0, kind="main"):
    return Annotation(annotator=name, document=document, kind=kind, arm=arm, active_seconds=seconds,
                      spans=[Span(category, segment, start, end) for category, segment, start, end in spans])  # fmt: skip


def row(result, arm, category):
    return next(r for r in result["scores"]["rows"] if r["arm"] == arm and r["category"] == category)


def test_a_hand_worked_example():
    # One document, one segment of five words: "w0 w1 w2 w3 w4" (tokens at 0, 3, 6, 9, 12).
    text = "w0 w1 w2 w3 w4"
    gold = person("g", "d", "", [("A", 0, 0, 2), ("A", 0, 3, 5)], kind="gold")  # gold: w0, w1
    s1 = person(
        "s1", "d", "suggestions", [("A", 0, 0, 2), ("A", 0, 6, 8)], seconds=10
    )  # w0 (right), w2 (wrong)
    s2 = person("s2", "d", "suggestions", [("A", 0, 0, 5)], seconds=20)  # w0, w1
    c1 = person("c1", "d", "control", [("A", 0, 3, 5)], seconds=40)  # w1
    suggestions = [SuggestedSpan("d", 1, "A", 0, 0, 2), SuggestedSpan("d", 2, "A", 0, 6, 8)]
    decisions = [
        Decision("d", "s1", 1, "accept", 2.0), Decision("d", "s1", 2, "accept", 4.0),
        Decision("d", "s2", 1, "adjust", 6.0), Decision("d", "s2", 2, "reject", 8.0),
    ]  # fmt: skip
    result = assistance_report(
        study_of({"d": [text]}, [gold, s1, s2, c1]), suggestions, decisions, resamples=0
    )
    # Suggestions arm against gold {w0, w1}: predicted 2 + 2, reference 2 + 2, correct 1 + 2.
    assert row(result, "suggestions", "A")["precision"]["value"] == pytest.approx(3 / 4)
    assert row(result, "suggestions", "A")["recall"]["value"] == pytest.approx(3 / 4)
    # Control: predicted 1, reference 2, correct 1: P 1, R 1/2, F1 2/3.
    control = row(result, "control", "A")
    assert (control["precision"]["value"], control["recall"]["value"]) == (1.0, 0.5)
    assert control["f1"]["value"] == pytest.approx(2 / 3)
    difference = next(d for d in result["scores"]["differences"] if d["category"] == "A")
    assert difference["recall"]["value"] == pytest.approx(3 / 4 - 1 / 2)
    # Suggestion 1 (w0) is correct, taken twice of 2; suggestion 2 (w2) is incorrect, taken once of 2.
    pooled = next(r for r in result["anchoring"] if r["category"] == "all")
    assert (pooled["correct"]["decided"], pooled["correct"]["taken"]) == (2, 2)
    assert (pooled["incorrect"]["decided"], pooled["incorrect"]["taken"]) == (2, 1)
    assert pooled["difference"]["value"] == pytest.approx(0.5)
    # Seconds per segment (one segment): suggestions (10 + 20) / 2, control 40.
    time = result["time"]["seconds_per_segment"]
    assert (time["suggestions"]["value"], time["control"]["value"], time["difference"]["value"]) == (
        15,
        40,
        -25,
    )
    assert result["decisions"] == {"accept": 2, "change": 0, "adjust": 1, "reject": 1, "unjudged": 0,
                                   "seconds_mean": 5.0, "seconds_median": 5.0}  # fmt: skip
    assert result["references"] == {"gold": 1, "other_arm_majority": 0}


def tokens_of(text):
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


def brute_force(documents, people, gold, suggestions, decisions):
    """Sets of (document, category, segment, token) and plain loops, written apart from the module."""

    def marked(annotation, category):
        found = set()
        for span in annotation.spans:
            if span.category != category:
                continue
            for number, (lo, hi) in enumerate(tokens_of(documents[annotation.document][span.segment])):
                if lo < span.end and hi > span.start:
                    found.add((span.segment, number))
        return found

    totals = {arm: [0, 0, 0] for arm in ("suggestions", "control")}
    reference_of = {}
    for document in documents:
        for category in ("A", "B"):
            arms = {arm: [marked(a, category) for a in people if a.document == document and a.arm == arm]
                    for arm in totals}  # fmt: skip
            golds = [marked(a, category) for a in gold if a.document == document]
            for arm, others in (("suggestions", arms["control"]), ("control", arms["suggestions"])):
                if golds:
                    reference = set().union(*golds)
                elif others:
                    reference = {
                        t for t in set().union(*others) if sum(t in o for o in others) > len(others) / 2
                    }
                else:
                    continue
                for mine in arms[arm]:
                    totals[arm][0] += len(mine)
                    totals[arm][1] += len(reference)
                    totals[arm][2] += len(mine & reference)
            control = arms["control"]
            reference_of[(document, category)] = set().union(*golds) if golds else (
                {t for t in set().union(*control) if sum(t in o for o in control) > len(control) / 2}
                if control else None
            )  # fmt: skip
    taken = {True: [0, 0], False: [0, 0]}
    for decision in decisions:
        suggestion = next(
            s for s in suggestions if s.key == decision.suggestion and s.document == decision.document
        )
        reference = reference_of[(suggestion.document, suggestion.category)]
        touched = {(suggestion.segment, n) for n, (lo, hi) in
                   enumerate(tokens_of(documents[suggestion.document][suggestion.segment]))
                   if lo < suggestion.end and hi > suggestion.start}  # fmt: skip
        if reference is None:
            continue
        correct = bool(touched) and 2 * len(touched & reference) >= len(touched)  # no token: not correct
        taken[correct][0] += 1
        taken[correct][1] += decision.action != "reject"
    return totals, taken


@pytest.mark.parametrize("seed", range(6))
def test_random_studies_agree_with_a_brute_force_count(seed):
    rng = random.Random(seed)
    words = ["Anna", "met", "Ben", ",", "the", "mill", "rain", "."]
    documents = {f"d{n}": [" ".join(rng.choice(words) for _ in range(8)) for _ in range(2)] for n in range(4)}

    def random_spans():
        spans = []
        for _ in range(rng.randint(0, 4)):
            segment = rng.randrange(2)
            text = documents[document][segment]
            start = rng.randrange(len(text) - 1)
            spans.append((rng.choice("AB"), segment, start, rng.randint(start + 1, len(text))))
        return spans

    people, gold, suggestions, decisions = [], [], [], []
    for document in documents:
        for number in range(rng.randint(1, 3)):
            people.append(person(f"s{number}", document, "suggestions", random_spans()))
        for number in range(rng.randint(1, 3)):
            people.append(person(f"c{number}", document, "control", random_spans()))
        if rng.random() < 0.5:
            gold.append(person("g", document, "", random_spans(), kind="gold"))
        for key, (category, segment, start, end) in enumerate(random_spans(), start=1):
            suggestions.append(SuggestedSpan(document, key, category, segment, start, end))
            for annotation in people:
                if annotation.document == document and annotation.arm == "suggestions":
                    decisions.append(
                        Decision(document, annotation.annotator, key, rng.choice(["accept", "reject"]), 1.0)
                    )
    result = assistance_report(study_of(documents, people + gold), suggestions, decisions, resamples=50)
    totals, taken = brute_force(documents, people, gold, suggestions, decisions)
    for arm, (predicted, reference, correct) in totals.items():
        figures = row(result, arm, "all")
        assert figures["precision"]["value"] == (pytest.approx(correct / predicted) if predicted else None)
        assert figures["recall"]["value"] == (pytest.approx(correct / reference) if reference else None)
    pooled = next(r for r in result["anchoring"] if r["category"] == "all")
    assert [pooled["correct"]["decided"], pooled["correct"]["taken"]] == taken[True]
    assert [pooled["incorrect"]["decided"], pooled["incorrect"]["taken"]] == taken[False]


@pytest.mark.parametrize("seed", range(5))
def test_alpha_within_an_arm_matches_krippendorff(seed):
    """The arm's token alpha, from additive sums, against the `krippendorff` package on the same marks."""
    import krippendorff
    import numpy as np

    from reports.metrics.spans.assistance import _alphas, _coincidence_sums

    rng = random.Random(seed)
    documents = [(rng.randint(5, 30), rng.randint(2, 4)) for _ in range(4)]  # (tokens, coders)
    sums, tables = np.zeros(3), []
    for units, coders in documents:
        marks = [{t for t in range(units) if rng.random() < 0.3} for _ in range(coders)]
        sums += _coincidence_sums(units, marks)
        # Four coder rows per document's tokens; a coder the document did not have is NaN.
        tables.append(
            [[float(t in marks[c]) if c < coders else np.nan for t in range(units)] for c in range(4)]
        )
    data = np.concatenate([np.array(table) for table in tables], axis=1)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert float(_alphas(sums)) == pytest.approx(expected, abs=1e-12)
