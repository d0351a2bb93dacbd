"""Scoring candidates against expert gold, on hand-built cases."""

import pytest

from qualification.models import QualificationResult
from qualification.services import qualification_result_update
from tests.qualification.builders import annotate, make_round, span

pytestmark = pytest.mark.django_db

# Sentences: segment 0 = [Anna met Ben at the mill.][Ben left early.]
#            segment 1 = [Anna met Ben at the mill again.][Then Carl sang.]


def score(qualification, document, worker_spans, gold_spans, thresholds=None):
    if thresholds is not None:
        qualification.thresholds = thresholds
        qualification.save()
    annotate(document, "expert", "gold", gold_spans, platform="expert")
    assignment = annotate(document, "cand", "qualification", worker_spans, seconds=300)
    return qualification_result_update(qualification=qualification, worker=assignment.worker)


def test_exact_and_partial_overlaps_are_matches():
    qualification, document = make_round()
    gold = [span(document, 1, "Carl", "CharE"), span(document, 0, "Ben left", "GramE")]
    mine = [span(document, 1, "Carl sang", "CharE"), span(document, 0, "Ben left", "GramE")]
    result = score(qualification, document, mine, gold)
    assert result.scores["spans"] == {"matched": 2, "missed": 0, "extra": 0, "confused": 0}
    char = result.scores["categories"]["CharE"]
    assert (char["precision"], char["recall"], char["f1"], char["overlap"]) == (1.0, 1.0, 1.0, 1.0)
    assert result.suggested == "pass" and result.documents == 1 and result.active_seconds == 300


def test_wrong_category_is_confused_and_missed():
    qualification, document = make_round()
    gold = [span(document, 1, "Carl", "CharE")]
    mine = [span(document, 1, "Carl", "GramE")]
    result = score(qualification, document, mine, gold)
    assert result.scores["spans"] == {"matched": 0, "missed": 1, "extra": 0, "confused": 1}
    assert result.scores["categories"]["CharE"]["recall"] == 0.0
    assert result.scores["categories"]["GramE"]["precision"] == 0.0
    assert result.suggested == "fail"


def test_extra_span_lowers_precision_only():
    qualification, document = make_round()
    gold = [span(document, 1, "Carl", "CharE")]
    mine = [span(document, 1, "Carl", "CharE"), span(document, 0, "Ben", "CharE", occurrence=1)]
    result = score(qualification, document, mine, gold)
    char = result.scores["categories"]["CharE"]
    # units (sentence, CharE): predicted {s0.1, s1.1}, gold {s1.1} -> P = 1/2, R = 1, F1 = 2/3
    assert (char["precision"], char["recall"]) == (0.5, 1.0)
    assert char["f1"] == pytest.approx(2 / 3)
    assert result.scores["spans"]["extra"] == 1


def test_paired_category_is_scored_on_both_spans():
    qualification, document = make_round()
    earlier = {"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"}
    wrong_earlier = {"segment": 0, "start": 26, "end": 29, "text": "Ben"}
    gold = [span(document, 1, "Anna met Ben", "RepE", paired=earlier)]
    right = score(qualification, document, [span(document, 1, "Anna met Ben", "RepE", paired=earlier)], gold)
    assert right.scores["spans"]["matched"] == 1
    # The earlier span's sentence counts as a unit too: 2 units, both found.
    assert right.scores["categories"]["RepE"]["reference"] == 2
    assert right.scores["categories"]["RepE"]["f1"] == 1.0

    qualification2, document2 = make_round(slug="second-round")
    gold2 = [span(document2, 1, "Anna met Ben", "RepE", paired=earlier)]
    wrong = score(
        qualification2, document2, [span(document2, 1, "Anna met Ben", "RepE", paired=wrong_earlier)], gold2
    )
    assert wrong.scores["spans"]["matched"] == 0
    assert wrong.scores["spans"]["missed"] == 1 and wrong.scores["spans"]["confused"] == 1
    repe = wrong.scores["categories"]["RepE"]
    # units: worker {s1.0, s0.1}, gold {s1.0, s0.0}: P = R = 1/2
    assert (repe["precision"], repe["recall"]) == (0.5, 0.5)


def test_a_category_the_experts_never_used_is_undefined_not_zero():
    qualification, document = make_round()
    result = score(
        qualification, document, [span(document, 1, "Carl", "CharE")], [span(document, 1, "Carl", "CharE")]
    )
    gram = result.scores["categories"]["GramE"]
    assert gram["precision"] is None and gram["recall"] is None and gram["f1"] is None
    assert gram["recall_reason"] == "the reference marks no sentence"
    assert result.suggested == "pass"  # neither side used GramE: nothing to judge


def test_per_category_thresholds_decide_the_suggestion():
    qualification, document = make_round()
    gold = [span(document, 1, "Carl", "CharE")]
    mine = [span(document, 1, "Carl", "CharE"), span(document, 0, "Ben", "CharE", occurrence=1)]
    result = score(qualification, document, mine, gold, thresholds={"f1": 0.9, "categories": {"CharE": 0.6}})
    assert result.suggested == "pass"  # F1 2/3 >= 0.6 for CharE
    assert result.status == QualificationResult.Status.PENDING
