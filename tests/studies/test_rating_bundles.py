"""Likert and BWS bundles: ratings and judgments in and out, checked like everything else."""

from pathlib import Path

import pytest

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.rating.models import BestWorstJudgment, Rating
from reports.study_report import study_report_data
from studies.models import Study
from tests.bundles import whole_and_batched
from tests.rating_bundles import SYSTEMS, write_rating_bundle

pytestmark = pytest.mark.django_db


def likert_lines():
    lines = []
    for block in ["b1", "b2"]:
        for annotator, shift in [("r1", 0), ("r2", 1)]:
            ratings = [{"document": f"{block}-in{n}-{system}", "score": min(5, 1 + s + shift + n)}
                       for n in range(2) for s, system in enumerate(SYSTEMS)]  # fmt: skip
            lines.append({"annotator": f"{annotator}-{block}", "block": block, "ratings": ratings})
    return lines


def bws_lines():
    lines = []
    for block in ["b1", "b2"]:
        for annotator in ["r1", "r2"]:
            judgments = [{"documents": [f"{block}-in{n}-{s}" for s in SYSTEMS], "best": f"{block}-in{n}-sysC",
                          "worst": f"{block}-in{n}-sysA" if annotator == "r1" else f"{block}-in{n}-sysB", "value": 2}
                         for n in range(2)]  # fmt: skip
            lines.append({"annotator": f"{annotator}-{block}", "block": block, "judgments": judgments})
    return lines


def read_all(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


def test_likert_bundle_imports_reports_and_round_trips(tmp_path):
    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path / "in", assignments=likert_lines())
    ).study
    assert Rating.objects.count() == 4 * 6
    assignment = Assignment.objects.get(worker__external_id="r1-b1")
    assert assignment.document is None and assignment.block == "b1" and len(assignment.items) == 6
    report = study_report_data(study)
    assert report["protocol"] == "likert"
    # sysA ratings: r1 gives 1 (in0), 2 (in1); r2 gives 2, 3 -> per block, same in b2: mean 2.0 over 8 ratings
    assert report["system_scores"]["sysA"]["mean"] == 2.0 and report["system_scores"]["sysA"]["n"] == 8
    assert "alpha_ordinal" in report and "shr" in report

    study_export_bundle(study=study, directory=tmp_path / "first")
    Assignment.objects.all().delete()
    Study.objects.all().delete()
    study_import_bundle(directory=tmp_path / "first")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "second")
    assert read_all(tmp_path / "first") == read_all(tmp_path / "second")
    assert '"block": "b1"' in (tmp_path / "first" / "documents.jsonl").read_text()


def test_bws_bundle_imports_and_reports_counting_scores(tmp_path):
    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path, protocol="bws", assignments=bws_lines())
    ).study
    assert BestWorstJudgment.objects.count() == 8
    scores = study_report_data(study)["system_scores"]
    # sysC is best in all 8 judgments of its items: counting score 1.0 for each of its items
    assert scores["sysC"]["counting"] == 1.0
    # sysA: worst in r1's 4 judgments, middle in r2's: (0 - 4) / 8 appearances = -0.5
    assert scores["sysA"]["counting"] == -0.5


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ({"annotator": "x", "block": "b9", "ratings": []}, "assignment for unknown block 'b9'"),
        ({"annotator": "x", "block": "b1", "ratings": [{"document": "b2-in0-sysA", "score": 3}]},
         "rating 1: document 'b2-in0-sysA' is not in this block"),
        ({"annotator": "x", "block": "b1", "ratings": [{"document": "b1-in0-sysA", "score": 9}]},
         "rating 1: score 9 is not a whole number from 1 to 5"),
        ({"annotator": "x", "block": "b1", "ratings": [{"document": "b1-in0-sysA", "score": 2},
                                                      {"document": "b1-in0-sysA", "score": 3}]},
         "rating 2: document 'b1-in0-sysA' is rated twice"),
    ],
)  # fmt: skip
def test_bad_likert_lines_name_file_and_line(tmp_path, line, expected):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_rating_bundle(tmp_path, assignments=[likert_lines()[0], line]))
    assert [str(p) for p in caught.value.problems] == [f"assignments.jsonl:2: {expected}"]
    assert Study.objects.count() == 0


@pytest.mark.parametrize(
    ("judgment", "expected"),
    [
        ({"documents": ["b1-in0-sysA", "b1-in0-sysB"], "best": "b1-in0-sysA", "worst": "b1-in0-sysA"},
         "best and worst must be different documents"),
        ({"documents": ["b1-in0-sysA", "b1-in0-sysB"], "best": "b1-in0-sysC", "worst": "b1-in0-sysA"},
         "best and worst must be among the tuple's documents"),
        ({"documents": ["b1-in0-sysA", "b1-in0-sysB"], "best": "b1-in0-sysB", "worst": "b1-in0-sysA", "value": 7},
         "value 7 is not a whole number from 1 to 3"),
    ],
)  # fmt: skip
def test_bad_bws_lines_are_refused(tmp_path, judgment, expected):
    line = {"annotator": "x", "block": "b1", "judgments": [judgment]}
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_rating_bundle(tmp_path, protocol="bws", assignments=[line]))
    assert str(caught.value.problems[0]) == f"assignments.jsonl:1: judgment 1: {expected}"


def test_report_page_of_a_likert_study_shows_scores_and_reliability(tmp_path, client, researcher):
    from reports.models import Report

    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path, assignments=likert_lines()), user=researcher
    ).study
    report = Report.objects.create(study=study, status="done", result=study_report_data(study), progress=1)
    client.force_login(researcher)
    from django.urls import reverse

    html = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert 'id="system-scores-table"' in html and 'id="reliability-table"' in html
    assert "<td>sysA</td><td>2.000</td>" in html and "<svg" in html and "± 1 SD" in html


def test_report_page_shows_the_papers_figures_of_a_rating_study(tmp_path, client, researcher):
    """Scale overlap as Tang et al. define it, the split count, the binarised alpha; BWS average rank."""
    from django.urls import reverse

    from reports.models import Report

    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path, assignments=likert_lines()), user=researcher
    ).study
    result = study_report_data(study)
    report = Report.objects.create(study=study, status="done", result=result, progress=1)
    client.force_login(researcher)
    html = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert "scale overlap (Tang et al. 2022" in html and "scale overlap counted in scale points" in html
    assert f"all {result['shr']['splits']} splits" in html
    assert "good/bad at the threshold with the best nominal α" in html
    assert "<th>average rank</th>" in html


@pytest.mark.parametrize(("protocol", "lines"), [("likert", likert_lines), ("bws", bws_lines)])
def test_ratings_written_a_batch_at_a_time_are_the_ratings_written_at_once(
    tmp_path, monkeypatch, protocol, lines
):
    """Checked lines wait on disk and are written a batch at a time, each batch reading its own
    documents' ids: batches of one give the same study, byte for byte, and at most a batch of
    checked lines is in memory while one is written (before, all of them and their rows were)."""
    from bundles.specs import AssignmentSpec

    directory = write_rating_bundle(tmp_path / "in", protocol=protocol, assignments=lines())
    (whole, batched), held = whole_and_batched(tmp_path, directory, monkeypatch, "rating", AssignmentSpec)
    assert whole == batched
    assert len(held) == 4 and max(held) <= 1, held


@pytest.mark.parametrize(("protocol", "lines"), [("likert", likert_lines), ("bws", bws_lines)])
def test_no_document_is_held_in_memory_while_the_ratings_are_checked(tmp_path, monkeypatch, protocol, lines):
    """The checked documents wait on disk (bundles/checked_documents.py) from their check to the
    write; a line's block is read from there when the line is checked. While the lines are checked,
    no DocumentSpec is alive (before, every document's was, some 0.5 KB each, and a map of every
    block's members beside them)."""
    from bundles.services import study_import_bundle
    from bundles.specs import DocumentSpec
    from tests.bundles import held_while_checking

    held = held_while_checking(
        monkeypatch, "protocols.rating.bundle_checks", "_check_block_assignment", DocumentSpec
    )
    study_import_bundle(directory=write_rating_bundle(tmp_path, protocol=protocol, assignments=lines()))
    assert len(held) == 4 and max(held) == 0, held
    assert Rating.objects.count() + BestWorstJudgment.objects.count() > 0


@pytest.mark.parametrize(("protocol", "lines"), [("likert", likert_lines), ("bws", bws_lines)])
def test_the_export_holds_a_chunk_of_assignments_at_a_time(tmp_path, monkeypatch, protocol, lines):
    """The bundle export sorts the lines from a few fields of each assignment, then reads the rows
    and their ratings or judgments a chunk at a time: with chunks of one, one Assignment is alive as
    each line is written (before, every one, with all their work), and the file is the same."""
    from tests.bundles import held_while_exporting

    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path / "in", protocol=protocol, assignments=lines())
    ).study
    held, (whole, chunked) = held_while_exporting(monkeypatch, study, tmp_path)
    assert len(held) == 4 and max(held) == 1, held
    assert chunked == whole
