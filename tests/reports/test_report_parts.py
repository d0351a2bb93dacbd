"""A span report computed in parts (chunks of documents) and merged equals the one-pass report.

The pure half splits random studies every which way and compares the merged
figures with span_report's, to the last bit. The database half runs the
parted report through report_request (jobs in-process, as on the embedded
default) and the job bodies one by one, redelivered, superseded and failing.
"""

import json
import math
import random
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bundles.services import study_import_bundle
from protocols.span import report as span_report_module
from reports import parts
from reports.metrics.spans import Annotation, Span, SpanCategory, SpanDocument, SpanStudy, span_report
from reports.metrics.spans import assistance as assistance_metrics
from reports.metrics.spans.annotators import PairSums
from reports.metrics.spans.assistance import (
    Decision,
    SuggestedSpan,
    assistance_from_tallies,
    assistance_report,
    assistance_tallies,
)
from reports.metrics.spans.evaluators import bootstrap as evaluator_bootstrap
from reports.metrics.spans.evaluators import evaluator_comparison
from reports.metrics.spans.evaluators.comparison import comparison_from_tallies, comparison_tallies
from reports.metrics.spans.report import span_figures
from reports.metrics.spans.tallies import merge_tallies, reference_kind_of, span_tallies
from reports.models import Report, ReportPart
from reports.services import report_compute, report_request
from reports.study_report import study_report_data
from tests.reports.span_bundle import write_span_bundle
from tests.reports.test_evaluator_metrics import random_study as evaluators_study

CATEGORIES = [
    SpanCategory("CharE", "coherence"),
    SpanCategory("SceneE", "coherence"),
    SpanCategory("GramE", "language"),
    SpanCategory("RepE", "language", paired=True),
]
WORDS = ["Anna", "met", "Ben", ",", "the", "storm", "came", "over", "hills", "é", "雨", "."]


def random_study(rng, *, documents=12, gold=False):
    """Documents with 0 to 4 annotators (some with one only), two systems, optional gold work."""
    docs, annotations = [], []
    for number in range(documents):
        segments = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))) for _ in range(rng.randint(1, 4))
        ]
        sentences = [[(0, len(text))] if rng.random() < 0.5 else [] for text in segments]
        docs.append(SpanDocument(f"d{number}", f"sys{number % 3}", segments, sentences))
        kinds = ["main"] * rng.choice([0, 1, 2, 2, 3, 4]) + (["gold"] * rng.choice([0, 2]) if gold else [])
        for which, kind in enumerate(kinds):
            spans = []
            for _ in range(rng.randint(0, 5)):
                segment = rng.randrange(len(segments))
                length = len(segments[segment])
                start = rng.randrange(length)
                spans.append(Span(rng.choice(CATEGORIES).key, segment, start, rng.randint(start + 1, length)))
            annotator = f"{kind[0]}{rng.randrange(6) if kind == 'main' else which}"
            annotations.append(
                Annotation(annotator, f"d{number}", kind, spans, active_seconds=rng.randint(0, 900),
                           segments_visited=[rng.randrange(len(segments)) for _ in range(rng.randint(0, 5))])
            )  # fmt: skip
    return SpanStudy(docs, CATEGORIES, annotations)


def in_parts(study, bounds):
    """The study's tallies computed per chunk of documents between `bounds` and merged."""
    reference = reference_kind_of(study.annotations)
    tallies = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        documents = study.documents[start:end]
        ids = {document.id for document in documents}
        part = SpanStudy(documents, study.categories, [a for a in study.annotations if a.document in ids])
        tallies.append(span_tallies(part, reference_kind=reference))
    return span_figures(study.categories, merge_tallies(tallies))


@pytest.mark.parametrize("seed", range(8))
def test_any_split_of_the_documents_gives_the_one_pass_figures_exactly(seed):
    rng = random.Random(seed)
    study = random_study(rng, documents=rng.randint(5, 25), gold=seed % 2 == 1)
    whole = span_report(study)
    count = len(study.documents)
    assert in_parts(study, list(range(count + 1))) == whole  # one document per part
    cuts = sorted(rng.sample(range(1, count), rng.randint(1, count - 1)))
    assert in_parts(study, [0, *cuts, count]) == whole
    assert in_parts(study, [0, count]) == whole


def test_a_part_without_gold_still_scores_against_the_studys_gold():
    rng = random.Random(3)
    study = random_study(rng, documents=10, gold=True)
    # Gold only on the second half: the first half's part alone would score against the others.
    gold_documents = {document.id for document in study.documents[5:]}
    study.annotations = [a for a in study.annotations if a.kind != "gold" or a.document in gold_documents]
    assert in_parts(study, [0, 5, 10]) == span_report(study)
    assert span_report(study)["reference_kind"] == "gold"


def test_merging_adds_what_the_parts_counted():
    rng = random.Random(5)
    study = random_study(rng, documents=10)
    first, second = study.documents[:4], study.documents[4:]

    def tallies(documents):
        ids = {document.id for document in documents}
        return span_tallies(
            SpanStudy(documents, CATEGORIES, [a for a in study.annotations if a.document in ids]),
            reference_kind="others",
        )

    merged = merge_tallies([tallies(first), tallies(second)])
    report = span_report(study)
    assert merged["main"]["units"]["tokens"] == report["units"]["tokens"]
    assert sum(entry["spans"] for entry in merged["main"]["categories"].values()) == sum(
        entry["spans"] for entry in report["categories"].values()
    )
    with pytest.raises(ValueError):
        merge_tallies([tallies(first), {**tallies(second), "reference_kind": "gold"}])


def assisted(study, rng):
    """The study's people in two arms, with suggestions on its documents and the suggestion arm's decisions."""
    people = [replace(a, arm=rng.choice(["suggestions", "control"])) if a.kind == "main" else a
              for a in study.annotations]  # fmt: skip
    suggestions, decisions = [], []
    for document in study.documents:
        for key in range(rng.randint(0, 3)):
            segment = rng.randrange(len(document.segments))
            start = rng.randrange(len(document.segments[segment]))
            end = rng.randint(start + 1, len(document.segments[segment]))
            suggestions.append(
                SuggestedSpan(document.id, key, rng.choice(CATEGORIES).key, segment, start, end)
            )
            for annotation in people:
                if annotation.document == document.id and annotation.arm == "suggestions":
                    decisions.append(Decision(document.id, annotation.annotator, key,
                                              rng.choice(["accept", "reject", "change"]), rng.uniform(0, 30)))  # fmt: skip
    return SpanStudy(study.documents, study.categories, people), suggestions, decisions


def assistance_in_parts(study, suggestions, decisions, bounds):
    """The assistance part from the tallies of chunks of documents, each through JSON as a part stores it."""
    tallies = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        ids = {document.id for document in study.documents[start:end]}
        part = SpanStudy(
            study.documents[start:end], study.categories, [a for a in study.annotations if a.document in ids]
        )
        counted = assistance_tallies(part, [s for s in suggestions if s.document in ids],
                                     [d for d in decisions if d.document in ids])  # fmt: skip
        tallies.append(json.loads(json.dumps(counted)))
    return assistance_from_tallies(tallies, [category.key for category in study.categories], resamples=200)


@pytest.mark.parametrize("seed", range(8))
def test_the_assistance_part_from_any_split_equals_the_one_pass_one_bit_for_bit(seed):
    rng = random.Random(seed)
    study, suggestions, decisions = assisted(
        random_study(rng, documents=rng.randint(4, 20), gold=seed % 2 == 0), rng
    )
    whole = assistance_report(study, suggestions, decisions, resamples=200)
    count = len(study.documents)
    assert whole["documents"] > 0
    assert assistance_in_parts(study, suggestions, decisions, list(range(count + 1))) == whole
    cuts = sorted(rng.sample(range(1, count), rng.randint(1, count - 1)))
    assert assistance_in_parts(study, suggestions, decisions, [0, *cuts, count]) == whole


def comparison_in_parts(study, bounds):
    """The evaluator comparison from the tallies of chunks of documents, each through JSON."""
    tallies = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        ids = {document.id for document in study.documents[start:end]}
        part = SpanStudy(
            study.documents[start:end], study.categories, [a for a in study.annotations if a.document in ids]
        )
        tallies.append(json.loads(json.dumps(comparison_tallies(part))))
    return comparison_from_tallies(tallies, [category.key for category in study.categories], resamples=200)


@pytest.mark.parametrize("seed", range(6))
def test_the_evaluator_comparison_from_any_split_equals_the_one_pass_one_bit_for_bit(seed):
    rng = random.Random(seed)
    study = evaluators_study(seed, documents=rng.randint(4, 16))
    whole = evaluator_comparison(study, resamples=200)
    count = len(study.documents)
    assert whole["evaluators"] == ["llm-a", "quiet"]
    assert comparison_in_parts(study, list(range(count + 1))) == whole
    cuts = sorted(rng.sample(range(1, count), rng.randint(1, count - 1)))
    assert comparison_in_parts(study, [0, *cuts, count]) == whole


# The database half: the report of an imported study, computed in parts of 2 documents.


@pytest.fixture
def parted_study(eager_celery, tmp_path, researcher, settings):
    settings.REPORT_PART_DOCUMENTS = 2
    bundle = write_span_bundle(tmp_path / "bundle", slug="parted", documents=7, segments=3, spans=4)
    return study_import_bundle(directory=bundle, user=researcher).study


def one_pass(study, settings):
    settings.REPORT_PART_DOCUMENTS = 10**9
    return study_report_data(study)


@pytest.mark.django_db(transaction=True)
def test_a_requested_report_is_computed_in_parts_and_equals_the_one_pass_report(parted_study, settings):
    report, created = report_request(study=parted_study)
    report.refresh_from_db()
    assert created and report.status == Report.Status.DONE, report.error
    assert report.attempts == 1 and report.progress == 1.0
    assert not ReportPart.objects.filter(report=report).exists(), "parts are dropped once merged"
    expected = one_pass(parted_study, settings)
    assert report.result == expected
    assert (
        report.result["workforce"]["workers"][0]["agreement"]
        == expected["workforce"]["workers"][0]["agreement"]
    )


def claimed(report, monkeypatch):
    """report_compute claims `report` and splits it; the part jobs it sends are returned, not run."""
    sent = []

    class Recorder:
        def __init__(self, signatures):
            sent.extend(signature.args for signature in signatures)

        def apply_async(self, **options):
            pass

    with monkeypatch.context() as patch:
        patch.setattr(parts, "group", Recorder)
        report_compute(report_id=report.pk)
    report.refresh_from_db()
    return sent


def fanned_out(study, monkeypatch):
    report = Report.objects.create(study=study)
    return report, claimed(report, monkeypatch)


@pytest.mark.django_db(transaction=True)
def test_parts_run_in_any_order_and_twice_merge_once(parted_study, settings, monkeypatch):
    report, jobs = fanned_out(parted_study, monkeypatch)
    assert report.status == Report.Status.RUNNING and len(jobs) == 4  # 7 documents in parts of 2
    merges = []
    monkeypatch.setattr(parts, "_send_merge", lambda report_id, attempt: merges.append((report_id, attempt)))
    for args in [jobs[2], jobs[0], jobs[2], jobs[3]]:  # the third part delivered twice
        parts.part_compute(*args)
    assert merges == [] and Report.objects.get(pk=report.pk).progress == pytest.approx(0.9 * 3 / 4)
    parts.part_compute(*jobs[1])
    parts.part_compute(*jobs[1])  # a redelivered last part: the set is complete, merge sent again
    assert merges == [(report.pk, 1), (report.pk, 1)]
    parts.merge(*merges[0])
    parts.merge(*merges[1])  # the second merge finds the report done and writes nothing
    report.refresh_from_db()
    assert report.status == Report.Status.DONE
    assert report.result == one_pass(parted_study, settings)


@pytest.mark.django_db(transaction=True)
def test_a_new_attempt_ignores_the_old_attempts_parts(parted_study, settings, monkeypatch):
    report, old_jobs = fanned_out(parted_study, monkeypatch)
    Report.objects.filter(pk=report.pk).update(heartbeat_at=None)  # its worker went silent
    monkeypatch.setattr(parts, "_send_merge", lambda report_id, attempt: parts.merge(report_id, attempt))
    new_jobs = claimed(report, monkeypatch)
    assert {args[1] for args in new_jobs} == {2}
    for args in old_jobs:
        parts.part_compute(*args)  # late jobs of attempt 1: nothing stored, nothing merged
    assert not ReportPart.objects.filter(report=report, attempt=1).exists()
    assert Report.objects.get(pk=report.pk).status == Report.Status.RUNNING
    for args in new_jobs:
        parts.part_compute(*args)
    report.refresh_from_db()
    assert report.status == Report.Status.DONE and report.attempts == 2
    assert report.result == one_pass(parted_study, settings)


@pytest.mark.django_db(transaction=True)
def test_a_failing_part_fails_the_report_with_its_reason(parted_study, monkeypatch):
    report, jobs = fanned_out(parted_study, monkeypatch)
    span = parted_study.documents.order_by("position").last()
    from protocols.span.models import ErrorAnnotation

    # A span past its segment's end (as a broken import could leave) in the last part's documents.
    ErrorAnnotation.objects.filter(assignment__document=span).update(end=10_000)
    for args in jobs:
        parts.part_compute(*args)
    report.refresh_from_db()
    assert report.status == Report.Status.FAILED and "outside its segment" in report.error
    assert not ReportPart.objects.filter(report=report).exists()


@pytest.mark.django_db(transaction=True)
def test_two_deliveries_of_the_last_part_at_once_send_one_merge(parted_study, monkeypatch):
    report, jobs = fanned_out(parted_study, monkeypatch)
    merges = []
    monkeypatch.setattr(parts, "_send_merge", lambda report_id, attempt: merges.append(attempt))
    for args in jobs[:-1]:
        parts.part_compute(*args)
    protocol = parts.protocols.of(parted_study)
    compute = protocol.report_part
    twin = []

    def slow_part(study, spec):
        tallies = compute(study, spec)
        if not twin:  # while this delivery computes, the twin delivery computes and stores it
            twin.append(True)
            parts.part_compute(*jobs[-1])
        return tallies

    monkeypatch.setattr(protocol, "report_part", slow_part)
    parts.part_compute(*jobs[-1])
    assert merges == [1], "the delivery that found its part stored by the twin must not send a merge"


# The parts beside the span figures: the assistance report and the evaluator comparison.


@pytest.fixture
def assisted_study(eager_celery, tmp_path, researcher, settings):
    settings.REPORT_PART_DOCUMENTS = 2
    bundle = write_span_bundle(tmp_path / "assisted", slug="assisted", documents=7, segments=3, spans=4,
                               annotators=5, assisted=True, evaluators=2, seed=4)  # fmt: skip
    return study_import_bundle(directory=bundle, user=researcher).study


@pytest.mark.django_db(transaction=True)
def test_the_assistance_report_and_the_evaluator_comparison_from_parts_equal_the_one_pass_ones(
    assisted_study, settings, monkeypatch
):
    loaded = []
    load = span_report_module._load_span_study

    def counted(study, document_ids=None):
        loaded.append(None if document_ids is None else len(document_ids))
        return load(study, document_ids=document_ids)

    monkeypatch.setattr(span_report_module, "_load_span_study", counted)
    report, _ = report_request(study=assisted_study)
    report.refresh_from_db()
    # Each part's documents are read once, for every tally of the part; nothing reads the whole study.
    assert loaded == [2, 2, 2, 1]
    assert report.status == Report.Status.DONE, report.error
    expected = one_pass(assisted_study, settings)
    assert expected["assistance"]["documents"] == 7 and expected["assistance"]["decisions"]["accept"] > 0
    assert expected["evaluator_comparison"]["evaluators"] == ["llm0", "llm1"]
    assert report.result["assistance"] == expected["assistance"]
    assert report.result["evaluator_comparison"] == expected["evaluator_comparison"]
    assert report.result == expected


@pytest.mark.parametrize("seed", range(3))
def test_the_assistance_resamples_drawn_a_block_at_a_time_give_the_same_intervals(seed, monkeypatch):
    rng = random.Random(seed)
    study, suggestions, decisions = assisted(random_study(rng, documents=rng.randint(6, 20)), rng)
    whole = assistance_report(study, suggestions, decisions, resamples=200)
    monkeypatch.setattr(assistance_metrics, "DRAWS_PER_BLOCK", 25)  # a few resamples per block
    assert assistance_report(study, suggestions, decisions, resamples=200) == whole


# The merge in flat memory: it reads the parts a part at a time and keeps sums and packed arrays.


@pytest.mark.parametrize("seed", range(4))
def test_the_workforce_agreement_summed_part_by_part_equals_the_mean_over_every_pair(seed):
    rng = random.Random(seed)
    values = [rng.choice([rng.random(), 2 * rng.randint(0, 9) / rng.randint(1, 20), 1.0, 0.0, 1e-300])
              for _ in range(rng.randint(1, 400))]  # fmt: skip
    cuts = sorted(rng.sample(range(len(values) + 1), 3))
    sums = PairSums()
    for start, end in zip([0, *cuts], [*cuts, len(values)], strict=True):
        sums.add({"w1": values[start:end]})
    assert sums.agreement() == {"w1": (math.fsum(values) / len(values), len(values))}


@pytest.mark.parametrize("seed", range(3))
def test_the_evaluator_bootstrap_drawn_a_small_block_at_a_time_gives_the_same_intervals(seed, monkeypatch):
    study = evaluators_study(seed, documents=random.Random(seed).randint(6, 16))
    whole = evaluator_comparison(study, resamples=200)
    monkeypatch.setattr(evaluator_bootstrap, "_DRAWS_PER_BLOCK", 40)  # a few resamples per block
    assert evaluator_comparison(study, resamples=200) == whole


@pytest.mark.django_db(transaction=True)
def test_the_merge_reads_one_part_at_a_time_and_equals_the_one_pass_report(
    assisted_study, settings, monkeypatch
):
    report, jobs = fanned_out(assisted_study, monkeypatch)
    monkeypatch.setattr(parts, "_send_merge", lambda report_id, attempt: None)
    for args in jobs:
        parts.part_compute(*args)
    with CaptureQueriesContext(connection) as queries:
        parts.merge(report.pk, report.attempts)
    reads = [query["sql"] for query in queries if "tallies" in query["sql"].split(" FROM ")[0]]
    assert reads, "the merge reads the parts' tallies"
    # Each read of tallies names one part: no query brings two parts' tallies into memory at once.
    assert all('"reports_reportpart"."id" = ' in sql for sql in reads), reads
    report.refresh_from_db()
    assert report.status == Report.Status.DONE, report.error
    assert report.result == one_pass(assisted_study, settings)
