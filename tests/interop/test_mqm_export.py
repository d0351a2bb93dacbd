"""MQM and ESA studies made on the platform, written as MQM TSV: a line per error, a No-error
line per rated segment without one, in a release's order; the file imported and exported again
is the same file; a DA study has no errors to write."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from protocols.translation.models import SegmentScore
from protocols.translation.report import study_report
from studies.models import Study
from tests.factories import WorkerFactory
from tests.translation.studies import make_translation_study
from tests.translation.test_report import error, submitted

pytestmark = pytest.mark.django_db

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def rated_study(protocol):
    """sysA rated by ann1; sysB by ann2 and ann1, in that order."""
    study = make_translation_study(
        protocol, slug=f"made-{protocol}", **({} if protocol == "mqm" else {"taxonomy": None})
    )
    ann1, ann2 = WorkerFactory(external_id="ann1"), WorkerFactory(external_id="ann2")
    a1, b2, b1 = (
        submitted(study, "sysA", ann1),
        submitted(study, "sysB", ann2),
        submitted(study, "sysB", ann1),
    )
    mqm = protocol == "mqm"
    error(a1, 0, "Major", "Mistranslation" if mqm else None, start=4, end=7)  # dog
    error(a1, 0, "Minor", "Punctuation" if mqm else None, start=13, end=14)  # .
    error(b2, 1, "Major", "Omission" if mqm else None, start=18, end=30, side="source")  # auf dem Sofa
    whole = error(b2, 2, "Major", "NonTranslation" if mqm else None, start=0, end=9)  # It rains.
    whole.comment = "first line\nsecond\tpart"
    whole.save()
    if not mqm:
        for assignment in (a1, b2, b1):
            for index in range(3):
                SegmentScore.objects.create(assignment=assignment, segment=assignment.document.segments.get(index=index),
                                            score=80)  # fmt: skip
    return study


def expected(category):
    """The file of rated_study, with `category` naming each error's category (ESA: none)."""
    lines = [
        ("sysA", "1", "1", "ann1", "Der Hund bellt.", "The <v>dog</v> barks.", category("Accuracy/Mistranslation"), "Major", ""),
        ("sysA", "1", "1", "ann1", "Der Hund bellt.", "The dog barks<v>.</v>", category("Fluency/Punctuation"), "Minor", ""),
        ("sysB", "1", "1", "ann2", "Der Hund bellt.", "The dog barked loudly.", "No-error", "No-error", ""),
        ("sysB", "1", "1", "ann1", "Der Hund bellt.", "The dog barked loudly.", "No-error", "No-error", ""),
        ("sysA", "2", "2", "ann1", "Die Katze schläft auf dem Sofa.", "The cat sleeps on the sofa.", "No-error", "No-error", ""),
        ("sysB", "2", "2", "ann2", "Die Katze schläft <v>auf dem Sofa</v>.", "The cat sleeps.", category("Accuracy/Omission"), "Major", ""),
        ("sysB", "2", "2", "ann1", "Die Katze schläft auf dem Sofa.", "The cat sleeps.", "No-error", "No-error", ""),
        ("sysA", "3", "3", "ann1", "Es regnet.", "It is raining.", "No-error", "No-error", ""),
        ("sysB", "3", "3", "ann2", "Es regnet.", "<v>It rains.</v>", category("Non-translation"), "Major", "first line second part"),
        ("sysB", "3", "3", "ann1", "Es regnet.", "It rains.", "No-error", "No-error", ""),
    ]  # fmt: skip
    return HEADER + "".join("\t".join((system, "src-0", *rest)) + "\n" for system, *rest in lines)


def test_an_mqm_study_is_written_a_line_per_error_and_a_no_error_line_per_clean_segment(tmp_path):
    study = rated_study("mqm")
    out = run("export_annotations", study.slug, str(tmp_path / "made.tsv"), "--format", "mqm-tsv")
    assert out.strip() == (
        "exported made-mqm as mqm-tsv to " + str(tmp_path / "made.tsv") + ": 10 lines: 4 errors over 9 rated "
        "segments of 2 documents"
    )
    assert (tmp_path / "made.tsv").read_text(encoding="utf-8") == expected(lambda label: label)


def test_the_written_file_imported_and_written_again_is_the_same_and_scores_the_same(tmp_path):
    study = rated_study("mqm")
    run("export_mqm", study.slug, str(tmp_path / "first.tsv"))
    run("import_mqm", str(tmp_path / "first.tsv"), "--study", "again")
    run("export_mqm", "again", str(tmp_path / "second.tsv"))
    assert (tmp_path / "second.tsv").read_bytes() == (tmp_path / "first.tsv").read_bytes()
    scores = {row["system"]: row["score"] for row in study_report(study)["systems"]}
    again = {row["system"]: row["score"] for row in study_report(Study.objects.get(slug="again"))["systems"]}
    assert again == scores == {"sysA": pytest.approx(5.1 / 3), "sysB": pytest.approx(30 / 6)}


def test_an_esa_study_is_written_with_severities_and_no_category(tmp_path):
    study = rated_study("esa")
    run("export_mqm", study.slug, str(tmp_path / "esa.tsv"))
    assert (tmp_path / "esa.tsv").read_text(encoding="utf-8") == expected(lambda label: "")
    printed = run("mqm_scores", str(tmp_path / "esa.tsv"), "--resamples", "10")
    # Weighed by severity alone: sysA (5 + 1) / 3; sysB, ann2's 5 + 5 and ann1's nothing over 6.
    assert re.search(r"^\s+\d+\s+\d+\s+sysA\s+2\.000\s", printed, re.MULTILINE)
    assert re.search(r"^\s+\d+\s+\d+\s+sysB\s+1\.667\s", printed, re.MULTILINE)


def test_raters_are_named_by_their_pseudonym_when_asked(tmp_path):
    study = rated_study("mqm")
    run("export_mqm", study.slug, str(tmp_path / "pseudonyms.tsv"), "--pseudonyms")
    raters = {
        line.split("\t")[4]
        for line in (tmp_path / "pseudonyms.tsv").read_text(encoding="utf-8").splitlines()[1:]
    }
    assert len(raters) == 2 and all(re.fullmatch(r"A[0-9a-f]{10}", rater) for rater in raters)


def test_a_da_study_has_no_errors_to_write(tmp_path):
    study = make_translation_study("da", slug="made-da", taxonomy=None)
    with pytest.raises(CommandError, match="a da study; only MQM and ESA studies have error spans"):
        call_command("export_mqm", study.slug, str(tmp_path / "da.tsv"))
    assert not (tmp_path / "da.tsv").exists()


def test_an_error_stored_on_another_documents_segment_is_written_where_it_was_before(tmp_path):
    """The export maps an error's segment to its index from the batch's segments; an error whose
    segment is of a document outside the batch (the database does not forbid it) keeps that
    segment's index, as when the index came from a join."""
    study = rated_study("mqm")
    elsewhere = make_translation_study("mqm", slug="elsewhere").documents.get(system="sysB")
    a1 = study.assignments.get(document__system="sysA")
    stray = error(a1, 0, "Minor", "Punctuation", start=0, end=3)
    stray.segment = elsewhere.segments.get(index=2)
    stray.save()
    run("export_mqm", study.slug, str(tmp_path / "stray.tsv"))
    lines = (tmp_path / "stray.tsv").read_text(encoding="utf-8").splitlines()
    assert "sysA\tsrc-0\t3\t3\tann1\tEs regnet.\t<v>It </v>is raining.\tFluency/Punctuation\tMinor\t" in lines
    assert "sysA\tsrc-0\t3\t3\tann1\tEs regnet.\tIt is raining.\tNo-error\tNo-error\t" not in lines


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the plans are PostgreSQL's")
def test_on_postgresql_each_batch_is_read_by_index_never_by_scanning_a_whole_table(tmp_path):
    """A scan of a whole table per batch makes the export's cost grow with the square of the
    study (docs/benchmarks.md, "MQM TSV"). On these few rows PostgreSQL would scan every table
    whole if left to choose; every batch read must be an index lookup all the same."""
    study = rated_study("mqm")
    batch_tables = ('"studies_segment"', '"annotations_assignment"', '"translation_translationerror"')
    plans = []

    def explained(execute, sql, params, many, context):
        if sql.startswith("SELECT") and any(f"FROM {table}" in sql for table in batch_tables):
            raw = context["cursor"].cursor  # psycopg's own cursor: no wrapper runs twice
            raw.execute("EXPLAIN " + sql, params)
            plans.append("\n".join(row[0] for row in raw.fetchall()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(explained):
        run("export_mqm", study.slug, str(tmp_path / "made.tsv"))
    assert len(plans) == 3
    assert all("Index" in plan and "Seq Scan" not in plan for plan in plans), plans
    with connection.cursor() as cursor:
        cursor.execute("SHOW enable_seqscan")
        assert cursor.fetchone() == ("on",)  # put back for the rest of the caller's transaction
