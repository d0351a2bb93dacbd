"""A simulated assisted study, run through the platform's own services: scripted workers join,
are drawn into arms, decide on suggestions (accepting correct ones with probability P_CORRECT and
incorrect ones with P_INCORRECT) or annotate unaided; the report must recover those rates."""

import random

import pytest
from django.test import Client

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from annotations.services.joining import JoinRefused, assignment_join
from annotations.services.task import assignment_submit
from protocols.span.assistance.decisions import suggestion_decide
from protocols.span.assistance.sources import SuggestedSpan, suggestions_replace
from protocols.span.models import ErrorAnnotation, Suggestion
from protocols.span.services import annotation_add, assignment_move
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Category
from tests.factories import CategoryFactory, DocumentFactory, SegmentFactory, StudyFactory

pytestmark = pytest.mark.django_db

P_CORRECT, P_INCORRECT = 0.85, 0.3
DOCUMENTS, SEGMENTS, PER_DOCUMENT = 12, 2, 4
WORDS = ["Anna", "met", "Ben", "near", "the", "mill", "and", "Carl", "saw", "Dora"]
ERRORS = {0, 2, 7}  # word positions that are errors in every segment (CharE)
WRONG = {3, 5, 8}  # positions the model suggests wrongly


def word_span(position):
    start = sum(len(word) + 1 for word in WORDS[:position])
    return start, start + len(WORDS[position])


def build_study():
    study = StudyFactory(
        annotators_per_document=PER_DOCUMENT, config={"assistance": {"share": 0.5, "seed": 5}}
    )
    CategoryFactory(taxonomy=study.taxonomy, key="CharE", kind=Category.Kind.SINGLETON)
    text = " ".join(WORDS) + "."
    expert = Worker.objects.create(platform=Worker.Platform.LINK, external_id="expert")
    suggested = []
    for number in range(DOCUMENTS):
        document = DocumentFactory(study=study, external_id=f"doc{number}", position=number)
        segments = [SegmentFactory(document=document, index=i, text=text) for i in range(SEGMENTS)]
        if number % 2 == 0:  # gold on half the documents; the others are judged by the control arm
            gold = Assignment.objects.create(study=study, document=document, worker=expert, kind="gold",
                                             status="submitted")  # fmt: skip
            for segment in segments:
                for position in ERRORS:
                    start, end = word_span(position)
                    ErrorAnnotation.objects.create(
                        assignment=gold, segment=segment, category=study.taxonomy.categories.get(),
                        start=start, end=end, text=text[start:end], client_id=f"g{segment.pk}-{position}",
                    )  # fmt: skip
        for segment in range(SEGMENTS):
            for position in sorted(ERRORS | WRONG):
                suggested.append(SuggestedSpan(document.pk, segment, *word_span(position), "CharE"))
    suggestions_replace(study=study, spans=suggested, source="simulation")
    study.status = "open"
    study.save(update_fields=["status"])
    return study


def span(segment, start, end, client_id):
    text = " ".join(WORDS) + "."
    return {"client_id": client_id, "category": "CharE", "segment": segment, "start": start, "end": end,
            "text": text[start:end], "comment": ""}  # fmt: skip


def work(assignment, rng, truth):
    """One scripted worker on one document, segment by segment."""
    assisted = assignment.arm == "suggestions"
    for segment in range(SEGMENTS):
        assignment_move(token=assignment.token, segment=segment)
        if assisted:
            for row in Suggestion.objects.filter(document=assignment.document, segment__index=segment):
                correct = row.start in truth
                take = rng.random() < (P_CORRECT if correct else P_INCORRECT)
                taken = span(segment, row.start, row.end, f"{assignment.pk}-{row.pk}") if take else None
                suggestion_decide(token=assignment.token, suggestion_id=row.pk,
                                  data={"annotation": taken, "seconds": rng.uniform(1, 4)})  # fmt: skip
        else:  # the control arm finds every error and nothing else
            for position in ERRORS:
                start, end = word_span(position)
                annotation_add(
                    token=assignment.token,
                    data=span(segment, start, end, f"{assignment.pk}-{segment}-{position}"),
                )
    Assignment.objects.filter(pk=assignment.pk).update(active_seconds=60 if assisted else 100)
    assignment_submit(token=assignment.token)


def test_the_report_recovers_the_anchoring_rates_of_the_simulation():
    study = build_study()
    rng = random.Random(11)
    truth = {word_span(position)[0] for position in ERRORS}
    for number in range(200):
        try:
            work(assignment_join(study=study, platform="prolific", external_id=f"w{number}"), rng, truth)
        except JoinRefused:
            break
    assert Assignment.objects.filter(study=study, kind="main", status="submitted").count() == 48

    assistance = study_report_data(study)["assistance"]
    assert assistance["references"] == {"gold": 6, "other_arm_majority": 6}
    assert (
        assistance["arms"]["suggestions"]["assignments"] == assistance["arms"]["control"]["assignments"] == 24
    )
    pooled = next(row for row in assistance["anchoring"] if row["category"] == "all")
    # Exactly what the scripted workers did (every reference here is the truth) ...
    decided = {"correct": [0, 0], "incorrect": [0, 0]}
    for decision in Suggestion.objects.filter(document__study=study).values_list(
        "start", "decisions__action"
    ):
        kind = "correct" if decision[0] in truth else "incorrect"
        decided[kind][0] += 1
        decided[kind][1] += decision[1] != "reject"
    for kind in ("correct", "incorrect"):
        assert (pooled[kind]["decided"], pooled[kind]["taken"]) == tuple(decided[kind])
        assert pooled[kind]["acceptance"]["value"] == pytest.approx(decided[kind][1] / decided[kind][0])
    # ... and the rates that drove them, inside the bootstrap intervals.
    assert pooled["correct"]["decided"] == pooled["incorrect"]["decided"] == 144
    for kind, rate in (("correct", P_CORRECT), ("incorrect", P_INCORRECT)):
        figure = pooled[kind]["acceptance"]
        assert figure["low"] <= rate <= figure["high"], (kind, figure)
        assert abs(figure["value"] - rate) < 0.1
    assert pooled["difference"]["low"] > 0  # people took correct suggestions more often

    # Scores: gold on half the documents, the other arm's majority on the rest. The control arm finds
    # every error and nothing else; the suggestion arm misses the correct suggestions it rejected and
    # takes over incorrect ones.
    rows = {(row["arm"], row["category"]): row for row in assistance["scores"]["rows"]}
    control, assisted = rows[("control", "all")], rows[("suggestions", "all")]
    assert control["recall"]["value"] > assisted["recall"]["value"]
    assert control["precision"]["value"] > assisted["precision"]["value"]
    difference = next(row for row in assistance["scores"]["differences"] if row["category"] == "all")
    assert difference["precision"]["high"] < 0  # the anchoring cost precision, and the documents show it
    assert difference["precision"]["value"] == pytest.approx(
        assisted["precision"]["value"] - control["precision"]["value"]
    )
    time = assistance["time"]["seconds_per_segment"]
    assert (time["suggestions"]["value"], time["control"]["value"], time["difference"]["value"]) == (
        30,
        50,
        -20,
    )
    assert assistance["decisions"]["reject"] + assistance["decisions"]["accept"] == 288
    control_alpha = next(row for row in assistance["agreement"] if row["category"] == "CharE")["control"]
    assert control_alpha["value"] == 1.0  # identical control annotators


def test_the_report_page_shows_the_arms_and_the_anchoring_figure(researcher):
    study = build_study()
    StudyMembership.objects.create(study=study, user=researcher)
    rng, truth = random.Random(2), {word_span(position)[0] for position in ERRORS}
    for number in range(8):
        work(assignment_join(study=study, platform="prolific", external_id=f"w{number}"), rng, truth)
    report = Report.objects.create(study=study, status="done", result=study_report_data(study))
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/admin/reports/report/{report.pk}/change/").content.decode()
    for table in ("assistance-scores", "assistance-anchoring", "assistance-agreement"):
        assert f'id="{table}"' in page
    assert "Acceptance of correct and incorrect suggestions" in page
    assert "F1 per category, by arm" in page


def test_a_study_without_assistance_has_no_assistance_part():
    study = StudyFactory()
    CategoryFactory(taxonomy=study.taxonomy, key="CharE")
    assert "assistance" not in study_report_data(study)
