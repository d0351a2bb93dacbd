"""The report's comparison of an MQM or ESA judge with the people: span precision and recall,
Kendall's tau and pairwise accuracy of the system rankings (worked by hand), the suggestion arm
left out, and the report page showing it all, escaped."""

import json
from itertools import count

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator
from evaluators.services import evaluator_run_request
from protocols.translation.models import SegmentScore, TranslationError
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Category
from tests.factories import AssignmentFactory, WorkerFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db
CLIENT_IDS = count()


def submitted(study, system, worker, arm=""):
    return AssignmentFactory(
        document=study.documents.get(system=system), study=study, worker=worker, arm=arm,
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
    )  # fmt: skip


def mark(assignment, index, text, severity, category=None):
    segment = assignment.document.segments.get(index=index)
    start = segment.text.index(text)
    TranslationError.objects.create(
        assignment=assignment, segment=segment, start=start, end=start + len(text), text=text, severity=severity,
        category=Category.objects.get(taxonomy=assignment.study.taxonomy, key=category) if category else None,
        client_id=f"c{next(CLIENT_IDS)}",
    )  # fmt: skip


def run_judge(study, answers, key="gpt-judge", capture=None):
    with FakeChatServer() as server:
        server.add(*[Reply(json.dumps({"segments": segments})) for segments in answers])
        evaluator = Evaluator.objects.create(
            study=study,
            key=key,
            kind="llm",
            base_url=server.base_url,
            model="m",
            concurrency=1,
            max_retries=0,
        )
        with capture(execute=True):
            evaluator_run_request(evaluator=evaluator)
    return evaluator


def error(number, span, severity, category="Accuracy/Mistranslation"):
    return {"segment": number, "errors": [{"span": span, "side": "target", "category": category,
                                           "severity": severity, "explanation": ""}]}  # fmt: skip


@pytest.fixture
def mqm_study(researcher):
    """Three systems; two people. The people's MQM: sysB 1.0 < sysA 5/3 < sysC 2.5 (lower is better)."""
    study = make_translation_study("mqm", systems=("sysA", "sysB", "sysC"))
    StudyMembership.objects.create(study=study, user=researcher)
    first, second = WorkerFactory(), WorkerFactory()
    for person in (first, second):
        mark(submitted(study, "sysA", person), 0, "barks", "Major", "Mistranslation")
    mark(submitted(study, "sysB", first), 0, "loudly", "Minor", "Mistranslation")
    mark(submitted(study, "sysB", second), 0, "loudly", "Major", "Mistranslation")
    c_first = submitted(study, "sysC", first)
    mark(c_first, 0, "Dog", "Major", "Mistranslation")
    mark(c_first, 1, "Cat", "Major", "Mistranslation")
    mark(submitted(study, "sysC", second), 0, "Dog", "Major", "Mistranslation")
    return study


@pytest.fixture
def mqm_judged(mqm_study, django_capture_on_commit_callbacks):
    """The judge: sysA 1/3 < sysB 5/3 < sysC 10/3; it orders A and B otherwise than the people."""
    answers = [
        [error(1, "barks", "Minor")],
        [error(1, "loudly", "Major")],
        [error(1, "Dog", "Major"), error(2, "Cat", "Major")],
    ]
    return run_judge(mqm_study, answers, capture=django_capture_on_commit_callbacks)


def test_the_judges_system_ranking_against_the_peoples_hand_worked(mqm_study, mqm_judged):
    report = study_report_data(mqm_study)
    comparison = report["evaluator_comparison"]
    assert comparison["evaluators"] == ["gpt-judge"] and comparison["higher_is_better"] is False
    systems = comparison["by_evaluator"]["gpt-judge"]["systems"]
    rows = [
        (row["system"], row["people"], row["judge"]) for row in systems["systems"]
    ]  # the people's best first
    assert [system for system, *_ in rows] == ["sysB", "sysA", "sysC"]
    assert [score for _, *scores in rows for score in scores] == pytest.approx(
        [1.0, 5 / 3, 5 / 3, 1 / 3, 2.5, 10 / 3]
    )
    # Three pairs; A-B is ordered otherwise: 2 of 3 alike, tau = (2 - 1) / 3.
    assert (systems["agreeing"], systems["pairs"]) == (2, 3)
    assert systems["pairwise_accuracy"] == pytest.approx(2 / 3) and systems["tau"] == pytest.approx(1 / 3)
    assert systems["disagreeing"] == [
        {"first": "sysB", "second": "sysA", "people": "first", "judge": "second"}
    ]
    # The people's own figures do not count the judge.
    assert report["raters"] == 2 and [row["system"] for row in report["ranking"]["systems"]][0] == "sysB"


def test_the_judges_spans_against_each_persons_hand_worked(mqm_study, mqm_judged):
    spans = study_report_data(mqm_study)["evaluator_comparison"]["by_evaluator"]["gpt-judge"]["spans"]
    assert spans["units"] == 9
    # Characters, judge against each of two people: barks 5+5, loudly 6+6, Dog 3+3, Cat 3 (p1) + 3 (p2, none).
    overall = spans["any"]
    assert (overall["judge_characters"], overall["people_characters"], overall["both_characters"]) == (
        34,
        31,
        31,
    )
    assert overall["precision"] == pytest.approx(31 / 34) and overall["recall"] == 1.0
    severities = {entry["name"]: entry for entry in spans["severities"]}
    # Major: the judge's loudly (vs p2's Major only), Dog, Cat; the people's Major barks the judge calls Minor.
    assert severities["Major"]["precision"] == pytest.approx(15 / 24)
    assert severities["Major"]["recall"] == pytest.approx(15 / 25)
    assert severities["Minor"]["precision"] == 0.0 and severities["Minor"]["recall"] == 0.0
    [category] = spans["categories"]
    assert category["name"] == "Accuracy/Mistranslation" and category["recall"] == 1.0


def test_the_suggestion_arm_is_left_out_of_the_comparison(mqm_study, mqm_judged):
    anchored = WorkerFactory()
    for system in ("sysA", "sysB", "sysC"):
        mark(submitted(mqm_study, system, anchored, arm="suggestions"), 2, "rain" if system == "sysB" else ".",
             "Major", "Mistranslation")  # fmt: skip
    comparison = study_report_data(mqm_study)["evaluator_comparison"]
    assert comparison["assisted_left_out"] == 3 and comparison["people"]["raters"] == 2
    assert comparison["by_evaluator"]["gpt-judge"]["spans"]["any"]["people_characters"] == 31


def test_an_esa_judges_scores_are_compared_with_the_peoples(django_capture_on_commit_callbacks):
    study = make_translation_study("esa", systems=("sysA", "sysB", "sysC"), taxonomy=None)
    given = {"sysA": 90, "sysB": 60, "sysC": 20}
    for person in (WorkerFactory(), WorkerFactory()):
        for system, score in given.items():
            assignment = submitted(study, system, person)
            for segment in assignment.document.segments.all():
                SegmentScore.objects.create(assignment=assignment, segment=segment, score=score)
    answers = [[{"segment": n, "errors": [], "score": score} for n in (1, 2, 3)] for score in (80, 85, 10)]
    run_judge(study, answers, capture=django_capture_on_commit_callbacks)
    figures = study_report_data(study)["evaluator_comparison"]["by_evaluator"]["gpt-judge"]
    assert figures["systems"]["pairwise_accuracy"] == pytest.approx(2 / 3)
    assert figures["systems"]["tau"] == pytest.approx(1 / 3)
    assert figures["segments"]["units"] == 9


def test_the_report_page_shows_the_comparison_escaped(mqm_study, mqm_judged, researcher):
    Evaluator.objects.filter(pk=mqm_judged.pk).update(key="<b>judge</b>")
    worker = Worker.objects.create(platform="model", external_id="<b>judge</b>")
    Assignment.objects.filter(kind="model").update(worker=worker)
    report = Report.objects.create(study=mqm_study, status="done", result=study_report_data(mqm_study))
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/admin/reports/report/{report.pk}/change/").content.decode()
    assert 'id="judge-spans-table-1"' in page and 'id="judge-systems-table-1"' in page
    assert 'id="judge-disagreeing-1"' in page and 'id="evaluator-runs-table"' in page
    assert "pairwise accuracy 0.667 (2 of 3 pairs of systems" in page
    assert "MQM score per system: the people and &lt;b&gt;judge&lt;/b&gt;" in page
    assert "<b>judge</b>" not in page
    assert 'id="evaluator-table"' not in page  # the span study's table is not shown


def test_a_contrastive_studys_people_work_in_blocks_and_the_judge_still_compares(
    django_capture_on_commit_callbacks,
):
    study = make_translation_study("contrastive-esa", systems=("sysA", "sysB", "sysC"), taxonomy=None)
    documents = {d.system: d for d in study.documents.all()}
    given = {"sysA": 90, "sysB": 60, "sysC": 20}
    for person in (WorkerFactory(), WorkerFactory()):
        block = AssignmentFactory(
            study=study, document=None, worker=person, block="src-0", status=Assignment.Status.SUBMITTED,
            items=[{"position": n, "document": documents[s].pk} for n, s in enumerate(("sysC", "sysA", "sysB"))],
            submitted_at=timezone.now(),
        )  # fmt: skip
        for system, score in given.items():
            for segment in documents[system].segments.all():
                SegmentScore.objects.create(assignment=block, segment=segment, score=score)
    answers = [[{"segment": n, "errors": [], "score": score} for n in (1, 2, 3)] for score in (95, 50, 30)]
    run_judge(study, answers, capture=django_capture_on_commit_callbacks)
    comparison = study_report_data(study)["evaluator_comparison"]
    assert comparison["scheme"] == "esa" and comparison["people"]["raters"] == 2
    assert comparison["by_evaluator"]["gpt-judge"]["systems"]["pairwise_accuracy"] == 1.0
