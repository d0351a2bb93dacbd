"""The translation report: MQM scores summed from the study's weights, ESA and DA means, the
ranking with significance, z-scores for DA, and agreement on scores and spans (hand-worked)."""

import pytest
from django.utils import timezone

from annotations.models import Assignment
from protocols.translation.models import SegmentScore, TranslationError
from protocols.translation.report import study_report
from reports.metrics.translation import MarkedError, RatedSegment, score_agreement, span_agreement
from studies.models import Category
from tests.factories import AssignmentFactory, WorkerFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


def submitted(study, system, worker):
    return AssignmentFactory(
        document=study.documents.get(system=system), study=study, worker=worker,
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
    )  # fmt: skip


CLIENT_IDS = iter(range(10**6))


def error(assignment, index, severity, category=None, start=0, end=3, side="target"):
    segment = assignment.document.segments.get(index=index)
    return TranslationError.objects.create(
        assignment=assignment, segment=segment, side=side, start=start, end=end, text="x" * (end - start),
        category=Category.objects.get(taxonomy=assignment.study.taxonomy, key=category) if category else None,
        severity=severity, client_id=f"c{next(CLIENT_IDS)}",
    )  # fmt: skip


def test_mqm_scores_are_the_studys_weights_summed_per_segment_and_averaged(db):
    study = make_translation_study("mqm")
    rater = WorkerFactory()
    a = submitted(study, "sysA", rater)
    b = submitted(study, "sysB", rater)
    error(a, 0, "Major", "Mistranslation")  # 5
    error(a, 0, "Minor", "Punctuation")  # 0.1
    error(b, 1, "Minor", "Mistranslation")  # 1
    error(b, 2, "Major", "NonTranslation")  # 25 whatever the severity
    report = study_report(study)
    scores = {row["system"]: row["score"] for row in report["systems"]}
    assert scores["sysA"] == pytest.approx(5.1 / 3)
    assert scores["sysB"] == pytest.approx(26 / 3)
    assert {row["system"]: row["errors"] for row in report["systems"]}["sysA"] == {"Neutral": 0, "Minor": 1,
                                                                                 "Major": 1}  # fmt: skip
    assert [row["system"] for row in report["ranking"]["systems"]] == ["sysA", "sysB"]  # lower is better
    assert report["ranking"]["higher_is_better"] is False
    categories = {row["system"]: row["categories"] for row in report["systems"]}
    assert categories["sysA"] == pytest.approx({"Accuracy": 5 / 3, "Fluency": 0.1 / 3})


def test_study_weights_change_the_scores(db):
    study = make_translation_study("mqm", config={"weights": {"severities": {"Major": 10}}})
    a = submitted(study, "sysA", WorkerFactory())
    error(a, 0, "Major", "Mistranslation")
    report = study_report(study)
    assert report["systems"][0]["score"] == pytest.approx(10 / 3)


def test_an_unweighted_severity_is_named_instead_of_counted_as_zero(db):
    study = make_translation_study("mqm", config={"severities": ["Minor", "Major", "Critical"]})
    a = submitted(study, "sysA", WorkerFactory())
    error(a, 0, "Critical", "Mistranslation")
    report = study_report(study)
    assert "critical" in report["reason"] and report["segments_rated"] == 0


def test_esa_ranks_higher_scores_first_and_agreement_compares_raters_on_shared_segments(db):
    study = make_translation_study("esa", systems=("sysA", "sysB", "sysC"), taxonomy=None)
    raters = [WorkerFactory(), WorkerFactory()]
    given = {"sysA": [90, 85, 95], "sysB": [60, 70, 65], "sysC": [10, 20, 5]}
    for r, rater in enumerate(raters):
        for system, scores in given.items():
            assignment = submitted(study, system, rater)
            for index, value in enumerate(scores):
                segment = assignment.document.segments.get(index=index)
                SegmentScore.objects.create(assignment=assignment, segment=segment, score=value + r)
    report = study_report(study)
    assert [row["system"] for row in report["ranking"]["systems"]] == ["sysA", "sysB", "sysC"]
    assert report["systems"][0]["score"] == pytest.approx(90.5)
    # Rater 2 is rater 1 plus one point: the same order everywhere, tau 1; alpha close to 1.
    assert report["score_agreement"]["tau"] == pytest.approx(1.0)
    assert report["score_agreement"]["alpha"] > 0.99
    assert report["ranking"]["stability"]["mean"] == pytest.approx(1.0)


def test_da_also_ranks_on_each_raters_z_scores(db):
    study = make_translation_study("da", systems=("sysA", "sysB"), taxonomy=None)
    lenient, strict = WorkerFactory(), WorkerFactory()
    for rater, scores in ((lenient, {"sysA": 100, "sysB": 90}), (strict, {"sysA": 20, "sysB": 0})):
        for system, value in scores.items():
            assignment = submitted(study, system, rater)
            for segment in assignment.document.segments.all():
                SegmentScore.objects.create(assignment=assignment, segment=segment, score=value)
    report = study_report(study)
    z = {row["system"]: row["score"] for row in report["ranking_z"]["systems"]}
    # Each rater's scores standardised: both give sysA +1 and sysB -1.
    assert z == pytest.approx({"sysA": 1.0, "sysB": -1.0})


def test_span_agreement_by_severity_hand_worked():
    first = RatedSegment("s", "d", 0, "r1", None, (MarkedError("target", 0, 4, "", "Major"),))
    second = RatedSegment("s", "d", 0, "r2", None, (MarkedError("target", 2, 6, "", "Major"),
                                                     MarkedError("missing", 0, 0, "", "Minor")))  # fmt: skip
    result = span_agreement([first, second])
    # Major: {0,1,2,3} against {2,3,4,5}: 2 x 2 / (4 + 4) = 0.5; Minor: one marks [missing], the other nothing.
    by_name = {entry["name"]: entry["f1"] for entry in result["severities"]}
    assert by_name == {"Major": 0.5, "Minor": 0.0}
    assert result["any"]["f1"] == pytest.approx(2 * 2 / (4 + 5))


def test_score_agreement_needs_two_raters_on_a_segment():
    rows = [RatedSegment("s", "d", i, "r1", float(i), ()) for i in range(3)]
    result = score_agreement(rows)
    assert result["alpha"] is None and "two raters" in result["reason"]


def test_the_study_chooses_the_ranking_test_and_the_report_names_it(db):
    study = make_translation_study(
        "da", taxonomy=None, config={"ranking": {"test": "ranksum", "alpha": 0.01}}
    )
    for system, value in (("sysA", 90), ("sysB", 40)):
        assignment = submitted(study, system, WorkerFactory())
        for segment in assignment.document.segments.all():
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=value + segment.index)
    report = study_report(study)
    assert report["ranking"]["test"] == "one-sided Wilcoxon rank-sum (unpaired)"
    assert report["ranking"]["alpha"] == 0.01
