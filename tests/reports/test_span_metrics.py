"""Span-study metrics on small studies computed by hand.

Alpha by hand: o[c][k] sums, over units, the ordered pairs of values from
different coders weighted by 1 / (m_u - 1); with two coders a unit (0, 1)
adds 1 to o01 and o10, a unit (0, 0) adds 2 to o00. Binary nominal alpha =
1 - (n - 1) * (o01 + o10) / (2 * n0 * n1).
"""

import pytest

from reports.metrics.spans import (
    Annotation,
    Span,
    SpanCategory,
    SpanDocument,
    SpanPair,
    SpanStudy,
    reference_scores,
    span_matches,
    span_report,
    tokenize,
)
from reports.metrics.spans.layout import StudyLayout

CATEGORIES = [
    SpanCategory("CharE", "coherence"),
    SpanCategory("SceneE", "coherence"),
    SpanCategory("RepE", "language", paired=True),
    SpanCategory("GramE", "language"),
]

# Tokens: Anna(0,4) met(5,8) Ben(9,12) .(12,13) He(14,16) left(17,21) .(21,22)
FIRST = "Anna met Ben. He left."
# Tokens: Rain(0,4) fell(5,9) .(9,10) It(11,13) was(14,17) cold(18,22) .(22,23)
SECOND = "Rain fell. It was cold."
FIRST_SENTENCES = [(0, 13), (14, 22)]
SECOND_SENTENCES = [(0, 10), (11, 23)]
# w0(0,2) w1(3,5) w2(6,8) w3(9,11) w4(12,14) w5(15,17)
WORDS = "w0 w1 w2 w3 w4 w5"


def one_segment(document_id="d1", text=FIRST, sentences=FIRST_SENTENCES, system="sys-a"):
    return SpanDocument(document_id, system, [text], [sentences])


def two_segments(document_id="d1", system="sys-a"):
    return SpanDocument(document_id, system, [FIRST, SECOND], [FIRST_SENTENCES, SECOND_SENTENCES])


def main(annotator, spans, document="d1", **fields):
    return Annotation(annotator, document, "main", spans, **fields)


def report_of(documents, annotations, categories=CATEGORIES):
    return span_report(SpanStudy(documents, categories, annotations))


def test_tokens_are_word_runs_and_single_other_characters():
    assert tokenize(FIRST) == [(0, 4), (5, 8), (9, 12), (12, 13), (14, 16), (17, 21), (21, 22)]
    assert tokenize("don't  stop—now") == [(0, 3), (3, 4), (4, 5), (7, 11), (11, 12), (12, 15)]


def test_report_tokens_are_the_regex_tokens_on_every_code_point():
    everything = "".join(chr(point) for point in range(0x110000) if not 0xD800 <= point < 0xE000)
    segments = [everything[:70000], "Anna met Ben.", "", everything[70000:]]
    layout = StudyLayout([SpanDocument("d1", "sys", segments)])
    expected = []
    for base, text in zip(layout.segment_bases.tolist(), segments, strict=True):
        expected.extend((base + start, base + end) for start, end in tokenize(text))
    found = list(zip(layout.tokens.starts.tolist(), layout.tokens.ends.tolist(), strict=True))
    assert found == expected


def test_overlapping_spans_of_two_annotators():
    # A marks "Ben" -> token 2; B marks "met Ben." -> tokens 1, 2, 3.
    # Units t0..t6: A 0010000, B 0111000.
    # o00 = 2 * 4 (t0, t4, t5, t6) = 8; o01 = o10 = 2 (t1, t3); o11 = 2 (t2).
    # n0 = 10, n1 = 4, n = 14: alpha = 1 - 13 * 4 / (2 * 10 * 4) = 1 - 52 / 80 = 0.35.
    # Two-agree: 1 token (Ben) of 3 marked tokens.
    # Union: the spans overlap, so both mark [5, 13): t1-t3 for both, no disagreement.
    report = report_of(
        [one_segment()],
        [main("A", [Span("CharE", 0, 9, 12)]), main("B", [Span("CharE", 0, 5, 13)])],
    )
    chare = report["categories"]["CharE"]
    assert chare["spans"] == 2
    assert chare["token_alpha"] == pytest.approx(0.35, abs=1e-12)
    assert chare["two_agree_pct"] == pytest.approx(100 / 3)
    assert chare["token_alpha_union"] == pytest.approx(1.0)
    assert chare["two_agree_pct_union"] == pytest.approx(100.0)
    assert report["annotators_per_document"] == 2
    assert report["units"] == {"documents": 1, "tokens": 7, "sentences": 2, "segments": 1}


def test_a_span_shares_a_token_with_one_character():
    # "a m" [3, 6) shares a character with Anna and with met; a span on a space touches nothing.
    report = report_of(
        [one_segment()],
        [main("A", [Span("CharE", 0, 3, 6)]), main("B", [Span("CharE", 0, 0, 8), Span("GramE", 0, 4, 5)])],
    )
    # Both mark t0, t1; nothing else: perfect agreement on CharE.
    assert report["categories"]["CharE"]["token_alpha"] == pytest.approx(1.0)
    assert report["categories"]["CharE"]["two_agree_pct"] == pytest.approx(100.0)
    assert report["categories"]["GramE"]["spans"] == 1
    assert report["categories"]["GramE"]["token_alpha"] is None


def test_annotator_who_marked_nothing_is_a_coder_with_zeros():
    # A: 0010000, B: 0000000. o00 = 2 * 6 = 12, o01 = o10 = 1; n0 = 13, n1 = 1, n = 14.
    # alpha = 1 - 13 * 2 / (2 * 13 * 1) = 0.
    report = report_of([one_segment()], [main("A", [Span("CharE", 0, 9, 12)]), main("B", [])])
    assert report["categories"]["CharE"]["token_alpha"] == pytest.approx(0.0, abs=1e-12)
    assert report["categories"]["CharE"]["two_agree_pct"] == pytest.approx(0.0)


def test_document_with_one_annotator_is_not_a_unit():
    # d2 only has A (who marks every token there): the figures stay those of d1 alone (0.35).
    report = report_of(
        [one_segment(), one_segment("d2", SECOND, SECOND_SENTENCES)],
        [
            main("A", [Span("CharE", 0, 9, 12)]),
            main("B", [Span("CharE", 0, 5, 13)]),
            main("A", [Span("CharE", 0, 0, 23)], document="d2"),
        ],
    )
    assert report["categories"]["CharE"]["token_alpha"] == pytest.approx(0.35, abs=1e-12)
    assert report["categories"]["CharE"]["two_agree_pct"] == pytest.approx(100 / 3)
    assert report["categories"]["CharE"]["spans"] == 3
    assert report["units"]["tokens"] == 7
    assert report["annotators_per_document_summary"] == {"min": 2, "max": 2, "mean": 2.0, "documents": 1}


def test_paired_category_counts_only_its_primary_span():
    # RepE primary spans: A "Ben" (t2), B "Ben" (t2); A's second span points at "Anna",
    # which B does not mark: ignored, so agreement is perfect.
    report = report_of(
        [one_segment()],
        [
            main("A", [Span("RepE", 0, 9, 12, paired_segment=0, paired_start=0, paired_end=4)]),
            main("B", [Span("RepE", 0, 9, 12, paired_segment=0, paired_start=14, paired_end=16)]),
        ],
    )
    assert report["categories"]["RepE"]["token_alpha"] == pytest.approx(1.0)
    assert report["categories"]["RepE"]["two_agree_pct"] == pytest.approx(100.0)


def test_union_merges_a_chain_of_overlapping_spans():
    # A [0,5) -> w0 w1; B [4,8) -> w1 w2; C [7,11) -> w2 w3. A and C do not overlap,
    # but both overlap B: one component [0, 11), i.e. w0-w3 for all three.
    # As annotated, 3 coders (weight 1/2): t0 (1,0,0) and t3 (0,0,1): o00 += 1, o01 = o10 += 1;
    # t1 (1,1,0) and t2 (0,1,1): o11 += 1, o01 = o10 += 1; t4, t5 (0,0,0): o00 += 3.
    # o00 = 8, o11 = 2, o01 = o10 = 4; n0 = 12, n1 = 6, n = 18:
    # alpha = 1 - 17 * 8 / (2 * 12 * 6) = 1 - 136 / 144 = 1 / 18.
    # Two-agree: t1, t2 of t0-t3 = 50 %; after the union 100 %.
    report = report_of(
        [one_segment(text=WORDS, sentences=[])],
        [
            main("A", [Span("CharE", 0, 0, 5)]),
            main("B", [Span("CharE", 0, 4, 8)]),
            main("C", [Span("CharE", 0, 7, 11)]),
        ],
    )
    chare = report["categories"]["CharE"]
    assert chare["token_alpha"] == pytest.approx(1 / 18, abs=1e-12)
    assert chare["two_agree_pct"] == pytest.approx(50.0)
    assert chare["token_alpha_union"] == pytest.approx(1.0)
    assert chare["two_agree_pct_union"] == pytest.approx(100.0)
    assert report["annotators_per_document"] == 3


def test_union_does_not_join_touching_spans_or_other_categories():
    # A [0,5) and B [5,8) touch but share no character: no merge. B's GramE over A's
    # span is another category. As annotated: A t0 t1, B t2 -> after union the same.
    report = report_of(
        [one_segment(text=WORDS, sentences=[])],
        [main("A", [Span("CharE", 0, 0, 5)]), main("B", [Span("CharE", 0, 5, 8), Span("GramE", 0, 0, 8)])],
    )
    chare = report["categories"]["CharE"]
    assert chare["token_alpha_union"] == pytest.approx(chare["token_alpha"])
    assert chare["two_agree_pct_union"] == pytest.approx(0.0)


def test_sentence_and_segment_alpha_per_group():
    # Sentences s0, s1 (segment 0) and s2, s3 (segment 1).
    # Coherence: A CharE "Anna" (s0); B CharE "met Ben. He" (s0 and s1).
    #   Sentences A 1000, B 1100: s0 (1,1) o11 += 2; s1 o01 = o10 += 1; s2, s3 o00 += 4.
    #   n0 = 5, n1 = 3, n = 8: alpha = 1 - 7 * 2 / (2 * 5 * 3) = 16 / 30.
    #   Segments: both 1, both 0 -> o11 = o00 = 2: alpha = 1.
    # Language: A GramE "It" (s3); B GramE "left" (s1) and "Rain" (s2).
    #   Sentences A 0001, B 0110: o00 = 2, o01 = o10 = 3; n0 = 5, n1 = 3:
    #   alpha = 1 - 7 * 6 / 30 = -0.4.
    #   Segments A 01, B 11: o01 = o10 = 1, o11 = 2; n0 = 1, n1 = 3, n = 4:
    #   alpha = 1 - 3 * 2 / (2 * 1 * 3) = 0.
    report = report_of(
        [two_segments()],
        [
            main("A", [Span("CharE", 0, 0, 4), Span("GramE", 1, 11, 13)]),
            main("B", [Span("CharE", 0, 5, 16), Span("GramE", 0, 17, 21), Span("GramE", 1, 0, 4)]),
        ],
    )
    assert report["groups"]["coherence"]["sentence_alpha"] == pytest.approx(16 / 30, abs=1e-12)
    assert report["groups"]["coherence"]["segment_alpha"] == pytest.approx(1.0)
    assert report["groups"]["language"]["sentence_alpha"] == pytest.approx(-0.4, abs=1e-12)
    assert report["groups"]["language"]["segment_alpha"] == pytest.approx(0.0, abs=1e-12)


def test_category_nobody_used_is_undefined_with_a_reason():
    report = report_of([one_segment()], [main("A", [Span("CharE", 0, 9, 12)]), main("B", [])])
    scene = report["categories"]["SceneE"]
    assert scene["spans"] == 0
    assert scene["token_alpha"] is None
    assert scene["token_alpha_reason"] == "only one value among pairable values"
    assert scene["token_alpha_union"] is None and scene["token_alpha_union_reason"]
    assert scene["two_agree_pct"] is None and scene["two_agree_pct_reason"]
    assert scene["two_agree_pct_union"] is None and scene["two_agree_pct_union_reason"]


def test_no_document_with_two_annotators_leaves_agreement_undefined():
    report = report_of([one_segment()], [main("A", [Span("CharE", 0, 9, 12)])])
    assert report["annotators_per_document"] is None
    assert report["annotators_per_document_reason"]
    assert report["categories"]["CharE"]["token_alpha"] is None
    assert report["categories"]["CharE"]["token_alpha_reason"] == "no pairable units"
    assert report["groups"]["coherence"]["sentence_alpha_reason"] == "no pairable units"


def test_only_submitted_main_annotations_are_coders():
    # Gold, qualification and unsubmitted annotations do not change agreement (0.35, as above).
    report = report_of(
        [one_segment()],
        [
            main("A", [Span("CharE", 0, 9, 12)]),
            main("B", [Span("CharE", 0, 5, 13)]),
            main("C", [Span("CharE", 0, 0, 22)], submitted=False),
            Annotation("expert", "d1", "gold", [Span("CharE", 0, 0, 22)]),
            Annotation("D", "d1", "qualification", [Span("CharE", 0, 0, 22)]),
        ],
    )
    assert report["categories"]["CharE"]["token_alpha"] == pytest.approx(0.35, abs=1e-12)
    assert report["categories"]["CharE"]["spans"] == 2


GOLD = [Span("CharE", 0, 0, 4), Span("CharE", 0, 14, 16), Span("GramE", 1, 11, 13)]
WORKER = [Span("CharE", 0, 1, 3), Span("CharE", 1, 0, 4), Span("CharE", 0, 17, 21)]


def test_precision_recall_f1_and_overlap_against_gold():
    # Gold: CharE in s0 ("Anna") and s1 ("He"), GramE in s3 ("It").
    # Worker: CharE "nn" (s0, overlaps gold "Anna"), "Rain" (s2, wrong), "left" (s1, right
    # sentence, no shared character with "He").
    # CharE: predicted 3, reference 2, correct 2: P = 2/3, R = 1, F1 = 0.8, overlap = 1/2.
    # GramE: nothing predicted: P undefined, R = 0, F1 undefined.
    report = report_of(
        [two_segments()],
        [main("W", WORKER), Annotation("expert", "d1", "gold", GOLD)],
    )
    assert report["reference_kind"] == "gold"
    chare = report["annotators"]["W"]["reference"]["CharE"]
    assert (chare["predicted"], chare["reference"], chare["correct"]) == (3, 2, 2)
    assert chare["precision"] == pytest.approx(2 / 3)
    assert chare["recall"] == pytest.approx(1.0)
    assert chare["f1"] == pytest.approx(0.8)
    assert chare["overlap"] == pytest.approx(0.5)
    grame = report["annotators"]["W"]["reference"]["GramE"]
    assert grame["precision"] is None and grame["precision_reason"]
    assert grame["recall"] == 0.0
    assert grame["f1"] is None and grame["f1_reason"]
    assert grame["overlap"] is None and grame["overlap_reason"]
    assert "expert" not in report["annotators"]

    assert reference_scores(WORKER, GOLD, two_segments(), ["CharE", "GramE"]) == {
        "CharE": chare,
        "GramE": grame,
    }


def test_qualification_annotations_are_scored_against_gold():
    report = report_of(
        [two_segments()],
        [Annotation("Q", "d1", "qualification", WORKER), Annotation("expert", "d1", "gold", GOLD)],
    )
    assert report["annotators"]["Q"]["documents"] == 0
    assert report["annotators"]["Q"]["reference"]["CharE"]["f1"] == pytest.approx(0.8)


def test_leave_one_out_reference_without_gold():
    # CharE sentences: A {s0}; B {s0, s1}; C {s2}.
    # A vs B|C = {s0, s1, s2}: P = 1, R = 1/3, F1 = 2 * 1/3 / (4/3) = 0.5; "Anna" overlaps
    #   B's [2, 16) inside s0: overlap 1.
    # B vs A|C = {s0, s2}: P = 1/2, R = 1/2, F1 = 0.5, overlap 1.
    # C vs A|B = {s0, s1}: P = 0, R = 0, F1 = 0 (both defined), overlap undefined.
    report = report_of(
        [two_segments()],
        [
            main("A", [Span("CharE", 0, 0, 4)]),
            main("B", [Span("CharE", 0, 2, 16)]),
            main("C", [Span("CharE", 1, 0, 4)]),
        ],
    )
    assert report["reference_kind"] == "others"
    scores = {name: report["annotators"][name]["reference"]["CharE"] for name in "ABC"}
    assert (scores["A"]["precision"], scores["A"]["recall"]) == (pytest.approx(1.0), pytest.approx(1 / 3))
    assert scores["A"]["f1"] == pytest.approx(0.5)
    assert scores["A"]["overlap"] == pytest.approx(1.0)
    assert (scores["B"]["precision"], scores["B"]["recall"], scores["B"]["f1"]) == (0.5, 0.5, 0.5)
    assert scores["B"]["overlap"] == pytest.approx(1.0)
    assert (scores["C"]["precision"], scores["C"]["recall"], scores["C"]["f1"]) == (0.0, 0.0, 0.0)
    assert scores["C"]["overlap"] is None


def test_span_matches_exact_partial_confused_missed_and_extra():
    exact = Span("CharE", 0, 0, 4)
    partial = Span("CharE", 1, 2, 6)
    wrong_category = Span("CharE", 0, 9, 15)
    other_segment = Span("GramE", 0, 11, 13)
    reference = [
        Span("CharE", 0, 0, 4),
        Span("GramE", 0, 14, 16),
        Span("CharE", 1, 0, 4),
        Span("GramE", 1, 11, 13),
    ]
    result = span_matches([exact, partial, wrong_category, other_segment], reference)
    assert result["matched"] == [SpanPair(exact, reference[0]), SpanPair(partial, reference[2])]
    assert result["confused"] == [SpanPair(wrong_category, reference[1])]
    assert result["extra"] == [other_segment]
    assert result["missed"] == [reference[1], reference[3]]


def test_span_matches_pairs_a_span_with_the_reference_it_overlaps_most():
    worker = Span("CharE", 0, 0, 10)
    reference = [Span("CharE", 0, 8, 20), Span("CharE", 0, 2, 9)]
    result = span_matches([worker], reference)
    assert result["matched"] == [SpanPair(worker, reference[1])]
    assert result["missed"] == []


def test_distribution_counts_and_rates_per_100_tokens():
    # Tokens read: d1 (7 tokens) by A and B, d2 (7 tokens) by A = 21.
    # CharE 3 spans: 300 / 21; GramE 2: 200 / 21.
    # sys-a (d1, 14 tokens read): CharE 3 -> 300 / 14, GramE 1 -> 100 / 14; sys-b (7): GramE 1.
    report = report_of(
        [one_segment(), one_segment("d2", SECOND, SECOND_SENTENCES, system="sys-b")],
        [
            main("A", [Span("CharE", 0, 0, 4), Span("CharE", 0, 9, 12), Span("GramE", 0, 14, 16)]),
            main("B", [Span("CharE", 0, 9, 12)]),
            main("A", [Span("GramE", 0, 0, 4)], document="d2"),
        ],
    )
    distribution = report["distribution"]
    assert distribution["by_category"]["CharE"] == {"count": 3, "per_100_tokens": pytest.approx(300 / 21)}
    assert distribution["by_category"]["GramE"] == {"count": 2, "per_100_tokens": pytest.approx(200 / 21)}
    assert distribution["by_category"]["SceneE"] == {"count": 0, "per_100_tokens": 0.0}
    assert distribution["by_system"]["sys-a"]["CharE"]["per_100_tokens"] == pytest.approx(300 / 14)
    assert distribution["by_system"]["sys-a"]["GramE"]["per_100_tokens"] == pytest.approx(100 / 14)
    assert distribution["by_system"]["sys-b"]["CharE"] == {"count": 0, "per_100_tokens": 0.0}
    assert distribution["by_system"]["sys-b"]["GramE"]["per_100_tokens"] == pytest.approx(100 / 7)
    assert distribution["by_annotator"] == {
        "A": {"CharE": 2, "SceneE": 0, "RepE": 0, "GramE": 2},
        "B": {"CharE": 1, "SceneE": 0, "RepE": 0, "GramE": 0},
    }


def test_annotator_time_spans_and_revisits():
    # A: 2 documents of 2 segments, 100 + 80 active seconds -> 180 / 4 = 45 s a segment.
    # Visits [0, 1, 0] and [0, 1, 1, 0]: 1 + 2 revisits. B recorded no time.
    report = report_of(
        [two_segments(), two_segments("d2")],
        [
            main("A", [Span("CharE", 0, 0, 4)], active_seconds=100, segments_visited=[0, 1, 0]),
            main("A", [], document="d2", active_seconds=80, segments_visited=[0, 1, 1, 0]),
            main("B", [Span("CharE", 0, 0, 4), Span("GramE", 1, 0, 4), Span("GramE", 1, 5, 9)]),
        ],
    )
    a, b = report["annotators"]["A"], report["annotators"]["B"]
    assert (a["documents"], a["spans"], a["spans_per_document"]) == (2, 1, 0.5)
    assert a["seconds_per_segment"] == pytest.approx(45.0)
    assert a["segments_revisited"] == 3
    assert (b["documents"], b["spans"], b["spans_per_document"]) == (1, 3, 3.0)
    assert b["seconds_per_segment"] is None and b["seconds_per_segment_reason"]
    assert b["segments_revisited"] == 0


def test_progress_is_reported_up_to_one():
    seen = []
    span_report(
        SpanStudy([one_segment()], CATEGORIES, [main("A", [Span("CharE", 0, 9, 12)]), main("B", [])]),
        progress=seen.append,
    )
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert seen == sorted(seen) and len(seen) >= 3


@pytest.mark.parametrize(
    ("span", "message"),
    [
        (Span("CharE", 0, 5, 40), "outside its segment"),
        (Span("CharE", 0, 5, 5), "outside its segment"),
        (Span("CharE", 3, 0, 1), "no segment 3"),
        (Span("Nope", 0, 0, 1), "unknown category"),
    ],
)
@pytest.mark.parametrize("kind", ["main", "gold"])
def test_invalid_spans_are_rejected(span, message, kind):
    with pytest.raises(ValueError, match=message):
        report_of([one_segment()], [Annotation("A", "d1", kind, [span])])
