"""The span report's publishable figures: error tokens (SNaC Fig. 4) and expert agreement (SNaC Table 4).

Alpha by hand, as in test_span_metrics: with two coders a unit (0, 1) adds 1
to o01 and o10, a unit (0, 0) adds 2 to o00, a unit (1, 1) adds 2 to o11;
binary nominal alpha = 1 - (n - 1) * (o01 + o10) / (2 * n0 * n1).
"""

import copy
import random
import re
from types import SimpleNamespace

import krippendorff
import numpy as np
import pytest
from django.template.loader import render_to_string

from reports.metrics.spans import Annotation, Span, SpanCategory, SpanDocument, SpanStudy, span_report
from reports.page import report_page_context

CATEGORIES = [
    SpanCategory("CharE", "coherence"),
    SpanCategory("SceneE", "coherence"),
    SpanCategory("RepE", "language", paired=True),
    SpanCategory("GramE", "language"),
]
NO_EXPERT_PAIR = "no document has two or more submitted gold annotations"

# Tokens: Anna(0,4) met(5,8) Ben(9,12) .(12,13) He(14,16) left(17,21) .(21,22)
FIRST = "Anna met Ben. He left."
# Tokens: Rain(0,4) fell(5,9) .(9,10) It(11,13) was(14,17) cold(18,22) .(22,23)
SECOND = "Rain fell. It was cold."


def first(document_id="d1", system="sys-a"):
    return SpanDocument(document_id, system, [FIRST], [[(0, 13), (14, 22)]])


def second(document_id="d2", system="sys-b"):
    return SpanDocument(document_id, system, [SECOND], [[(0, 10), (11, 23)]])


def main(annotator, spans, document="d1"):
    return Annotation(annotator, document, "main", spans)


def gold(annotator, spans, document="d1"):
    return Annotation(annotator, document, "gold", spans)


def report_of(documents, annotations):
    return span_report(SpanStudy(documents, CATEGORIES, annotations))


def test_error_tokens_per_category_and_system_counted_by_hand():
    # d1 (sys-a, 7 tokens) read by A, B, C; d2 (sys-b, 7 tokens) read by A: 28 tokens read.
    # A on d1: CharE "Anna met" (Anna, met) and "et B" (met, Ben) -> 3 distinct tokens, not 4;
    #          GramE "He" -> 1.
    # B on d1: CharE "Ben." -> Ben, "." = 2 (Ben again: a second annotator's marking counts).
    # C on d1: RepE "left", paired with "Anna" -> 1 (the paired span is ignored).
    # A on d2: GramE "n f" -> Rain, fell = 2 (one shared character is enough).
    # The expert's gold span over all of d1 counts nowhere.
    # CharE 5, GramE 3, RepE 1, SceneE 0: 9 error tokens.
    repetition = Span("RepE", 0, 17, 21, paired_segment=0, paired_start=0, paired_end=4)
    report = report_of(
        [first(), second()],
        [
            main("A", [Span("CharE", 0, 0, 8), Span("CharE", 0, 6, 10), Span("GramE", 0, 14, 16)]),
            main("B", [Span("CharE", 0, 9, 13)]),
            main("C", [repetition]),
            main("A", [Span("GramE", 0, 3, 6)], document="d2"),
            gold("X", [Span("CharE", 0, 0, 22)]),
        ],
    )
    distribution = report["distribution"]
    tokens = distribution["tokens_by_category"]
    assert tokens["CharE"] == {
        "count": 5,
        "per_100_tokens": pytest.approx(500 / 28),
        "share_pct": pytest.approx(500 / 9),
    }
    assert tokens["GramE"] == {
        "count": 3,
        "per_100_tokens": pytest.approx(300 / 28),
        "share_pct": pytest.approx(300 / 9),
    }
    assert tokens["RepE"] == {
        "count": 1,
        "per_100_tokens": pytest.approx(100 / 28),
        "share_pct": pytest.approx(100 / 9),
    }
    assert tokens["SceneE"] == {"count": 0, "per_100_tokens": 0.0, "share_pct": 0.0}
    # sys-a: 21 tokens read, 7 error tokens (CharE 5, GramE 1, RepE 1); sys-b: 7 read, GramE 2.
    by_system = distribution["tokens_by_system"]
    assert by_system["sys-a"]["CharE"] == {
        "count": 5,
        "per_100_tokens": pytest.approx(500 / 21),
        "share_pct": pytest.approx(500 / 7),
    }
    assert by_system["sys-a"]["GramE"]["count"] == 1
    assert by_system["sys-a"]["RepE"]["count"] == 1
    assert by_system["sys-b"]["GramE"] == {
        "count": 2,
        "per_100_tokens": pytest.approx(200 / 7),
        "share_pct": 100.0,
    }
    assert by_system["sys-b"]["CharE"] == {"count": 0, "per_100_tokens": 0.0, "share_pct": 0.0}
    # The span counts beside them are unchanged: 3 CharE spans, 2 GramE, 1 RepE.
    assert distribution["by_category"]["CharE"] == {"count": 3, "per_100_tokens": pytest.approx(300 / 28)}
    assert distribution["by_category"]["RepE"]["count"] == 1
    assert set(distribution) == {
        "by_category",
        "by_system",
        "by_annotator",
        "tokens_by_category",
        "tokens_by_system",
    }


def test_a_system_without_error_tokens_has_no_share():
    report = report_of([first()], [main("A", [])])
    entry = report["distribution"]["tokens_by_system"]["sys-a"]["CharE"]
    assert (
        entry["count"] == 0 and entry["share_pct"] is None and entry["share_pct_reason"] == "no error token"
    )


def test_expert_token_sentence_and_segment_alpha_by_hand():
    # Experts on d1: X marks CharE "Anna met" (t0, t1), Y marks "Anna" (t0).
    # Units t0..t6: X 1100000, Y 1000000.
    # o11 = 2 (t0); o01 = o10 = 1 (t1); o00 = 2 * 5 = 10 (t2..t6).
    # n1 = 3, n0 = 11, n = 14: alpha = 1 - 13 * 2 / (2 * 11 * 3) = 1 - 26 / 66 = 20 / 33.
    # Two-agree: 1 (Anna) of 2 marked tokens = 50 %.
    # Sentences s0, s1: both experts mark s0 only: (1, 1), (0, 0) -> alpha 1.
    # The one segment: (1, 1) only -> undefined.
    # Z's gold on d2 is alone there: d2 adds no unit.
    # The crowd (A, B) disagree completely and leave the experts' figures alone.
    report = report_of(
        [first(), second()],
        [
            main("A", [Span("CharE", 0, 17, 21)]),
            main("B", [Span("GramE", 0, 0, 4)]),
            gold("X", [Span("CharE", 0, 0, 8)]),
            gold("Y", [Span("CharE", 0, 0, 4)]),
            gold("Z", [Span("CharE", 0, 0, 10)], document="d2"),
        ],
    )
    experts = report["experts"]
    assert experts["annotators_per_document"] == 2
    assert experts["units"] == {"documents": 1, "tokens": 7, "sentences": 2, "segments": 1}
    char = experts["categories"]["CharE"]
    assert char["token_alpha"] == pytest.approx(20 / 33, abs=1e-12)
    assert char["two_agree_pct"] == pytest.approx(50.0)
    assert char["spans"] == 3
    # Union: the two spans overlap, so both mark "Anna met": full agreement, alpha 1.
    assert char["token_alpha_union"] == pytest.approx(1.0)
    assert experts["groups"]["coherence"]["sentence_alpha"] == pytest.approx(1.0)
    assert experts["groups"]["coherence"]["segment_alpha"] is None
    assert experts["groups"]["coherence"]["segment_alpha_reason"] == "only one value among pairable values"
    assert experts["groups"]["language"]["sentence_alpha"] is None
    # The crowd's CharE: only A marked a token ("left"), so no token has two markings.
    assert report["categories"]["CharE"]["spans"] == 1
    assert report["categories"]["CharE"]["two_agree_pct"] == 0.0


def test_expert_figures_are_null_with_a_reason_below_two_experts_a_document():
    report = report_of(
        [first(), second()],
        [
            main("A", [Span("CharE", 0, 0, 4)]),
            main("B", [Span("CharE", 0, 0, 8)]),
            gold("X", [Span("CharE", 0, 0, 8)]),
            gold("Y", [Span("CharE", 0, 0, 4)], document="d2"),
            # X again on d1: the last submission counts, it is not a second expert.
            gold("X", [Span("CharE", 0, 0, 4)]),
        ],
    )
    experts = report["experts"]
    assert experts["annotators_per_document"] is None
    assert experts["annotators_per_document_reason"] == NO_EXPERT_PAIR
    assert experts["units"]["documents"] == 0
    for name in ("token_alpha", "token_alpha_union", "two_agree_pct", "two_agree_pct_union"):
        assert experts["categories"]["CharE"][name] is None
        assert experts["categories"]["CharE"][f"{name}_reason"] == NO_EXPERT_PAIR
    assert experts["groups"]["coherence"]["sentence_alpha_reason"] == NO_EXPERT_PAIR
    assert report["categories"]["CharE"]["token_alpha"] is not None


def random_study(rng, documents=12, crowd=3, experts=3):
    words = ["Anna", "met", "Ben", "at", "the", "mill", ",", "and", "they", "spoke", "of", "storms", "."]
    docs, annotations = [], []
    for number in range(documents):
        segments, sentences = [], []
        for _ in range(rng.randint(1, 3)):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16)))
            middle = text.find(" ", len(text) // 2)
            segments.append(text)
            sentences.append([(0, middle), (middle + 1, len(text))] if middle > 0 else [])
        docs.append(SpanDocument(f"d{number}", f"sys-{number % 3}", segments, sentences))

    def spans_for(document):
        spans = []
        for _ in range(rng.randint(0, 4)):
            segment = rng.randrange(len(document.segments))
            length = len(document.segments[segment])
            start = rng.randrange(length)
            spans.append(Span(rng.choice(CATEGORIES).key, segment, start, rng.randint(start + 1, length)))
        return spans

    for document in docs:
        for name in rng.sample([f"worker{n}" for n in range(crowd + 2)], rng.randint(1, crowd)):
            annotations.append(main(name, spans_for(document), document.id))
        for name in rng.sample([f"expert{n}" for n in range(experts)], rng.randint(1, experts)):
            annotations.append(gold(name, spans_for(document), document.id))
    return docs, annotations


def labels(documents, annotations, units_of, category_keys):
    """Reliability data (coders x units, nan where a coder did not annotate) built by brute force."""
    by_document = {}
    for annotation in annotations:
        by_document.setdefault(annotation.document, []).append(annotation)
    coders = sorted({annotation.annotator for annotation in annotations})
    columns = []
    for document in documents:
        group = by_document.get(document.id, [])
        if len(group) < 2:
            continue
        for segment, text in enumerate(document.segments):
            for start, end in units_of(document, segment, text):
                column = [np.nan] * len(coders)
                for annotation in group:
                    column[coders.index(annotation.annotator)] = float(
                        any(
                            span.category in category_keys
                            and span.segment == segment
                            and max(span.start, start) < min(span.end, end)
                            for span in annotation.spans
                        )
                    )
                columns.append(column)
    return np.array(columns, dtype=float).T


def tokens_of(document, segment, text):
    return [match.span() for match in re.finditer(r"\w+|[^\w\s]", text)]


def sentences_of(document, segment, text):
    return document.sentences[segment] or [(0, len(text))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_expert_alpha_matches_the_krippendorff_package(seed):
    documents, annotations = random_study(random.Random(seed))
    experts = report_of(documents, annotations)["experts"]
    gold_annotations = [a for a in annotations if a.kind == "gold"]
    for category in ("CharE", "GramE"):
        data = labels(documents, gold_annotations, tokens_of, {category})
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert experts["categories"][category]["token_alpha"] == pytest.approx(expected, abs=1e-9)
    for group, keys in (("coherence", {"CharE", "SceneE"}), ("language", {"RepE", "GramE"})):
        data = labels(documents, gold_annotations, sentences_of, keys)
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert experts["groups"][group]["sentence_alpha"] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_error_tokens_match_a_brute_force_count(seed):
    documents, annotations = random_study(random.Random(seed))
    report = report_of(documents, annotations)
    expected = dict.fromkeys((category.key for category in CATEGORIES), 0)
    texts = {document.id: document.segments for document in documents}
    for annotation in annotations:
        if annotation.kind != "main":
            continue
        for key in expected:
            for segment, text in enumerate(texts[annotation.document]):
                expected[key] += sum(
                    any(
                        span.category == key
                        and span.segment == segment
                        and max(span.start, start) < min(span.end, end)
                        for span in annotation.spans
                    )
                    for start, end in tokens_of(None, segment, text)
                )
    found = {key: entry["count"] for key, entry in report["distribution"]["tokens_by_category"].items()}
    assert found == expected


def crowd_figures(report):
    """Everything of the report that comes from the crowd (the reference scores are against gold by design)."""
    figures = {key: value for key, value in report.items() if key not in ("experts", "reference_kind")}
    figures["annotators"] = {
        name: {key: value for key, value in entry.items() if key != "reference"}
        for name, entry in report["annotators"].items()
    }
    return figures


@pytest.mark.parametrize("seed", [6, 7])
def test_gold_annotations_leave_every_crowd_figure_unchanged(seed):
    documents, annotations = random_study(random.Random(seed))
    crowd = [annotation for annotation in annotations if annotation.kind == "main"]
    without = report_of(documents, copy.deepcopy(crowd))
    with_gold = report_of(documents, annotations)
    assert with_gold["reference_kind"] == "gold" and without["reference_kind"] == "others"
    assert with_gold["experts"]["units"]["documents"] > 0
    assert crowd_figures(with_gold) == crowd_figures(without)


def test_report_page_shows_error_tokens_and_expert_agreement(rf):
    result = report_of(
        [first()],
        [
            main("A", [Span("CharE", 0, 0, 8)]),
            main("B", [Span("CharE", 0, 0, 4)]),
            gold("X", [Span("CharE", 0, 0, 8)]),
            gold("Y", [Span("CharE", 0, 0, 4)]),
        ],
    )
    report = SimpleNamespace(
        status="done", result=result, is_active=False, pk=1, created_at="today", requested_by=None
    )
    report.study = SimpleNamespace(pk=1, title="Study")
    context = report_page_context(report)
    assert context["distribution_rows"][0] == (
        "CharE",
        result["distribution"]["by_category"]["CharE"],
        result["distribution"]["tokens_by_category"]["CharE"],
    )
    request = rf.get("/")
    request.user = SimpleNamespace(
        is_active=True, is_staff=True, is_authenticated=True, get_username=lambda: "r"
    )
    page = render_to_string("admin/reports/report/page.html", {**context, "report": report}, request=request)
    assert 'id="experts-table"' in page and 'id="distribution-table"' in page
    # CharE: A marks 2 tokens and B 1, 3 error tokens of 14 read; the experts agree as in the hand case (20/33).
    assert "<td>CharE</td><td>2</td><td>14.29</td><td>3</td><td>21.43</td><td>100.0</td>" in page
    assert "<td>CharE</td><td>0.606</td><td>50.0</td>" in page
