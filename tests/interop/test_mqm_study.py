"""An MQM TSV file imported as an MQM study and a study exported as one: the TED release's
published scores from the study's report, the file given back byte for byte, raters sharing
a document, and a bad file named by its lines with nothing written."""

import gzip
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Worker
from annotations.models import Assignment
from interop.formats.mqm_tsv import read
from interop.mqm import exporting
from protocols.translation.models import TranslationError
from protocols.translation.report import study_report
from reports.metrics.mqm import segment_scores, system_scores
from studies.models import Document, Study, Taxonomy

from .test_mqm_tsv import DATA, PUBLISHED, README_SLIPS

pytestmark = pytest.mark.django_db

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
# Two systems' translations of one doc of three segments (seg_ids 1, 2, 10: numeric order), the
# segments shared out between two raters, seg 1 of A rated by both, in the order of a release
# (segment, system, rater); a source-side omission, a <v> never closed, a whole-segment
# Non-translation marked nowhere, an error with no span.
SMALL = HEADER + (
    "A\td1\t1\t1\tr1\tDer Hund bellt.\tThe <v>dog</v> barks.\tAccuracy/Mistranslation\tMajor\tcheck\n"
    "A\td1\t1\t1\tr2\tDer Hund bellt.\tThe dog barks.\tNo-error\tNo-error\t\n"
    "B\td1\t1\t1\tr2\tDer Hund bellt.\tThe hound barks.\tNo-error\tNo-error\t\n"
    "A\td1\t2\t2\tr2\tDie Katze schläft.\tThe cat sleeps.\tNo-error\tNo-error\t\n"
    "B\td1\t2\t2\tr2\tDie Katze schläft.\tDie Katze schläft.\tNon-translation!\tMajor\t\n"
    "A\td1\t3\t10\tr1\t<v>Es regnet</v> heute.\tToday.\tAccuracy/Omission\tMajor\t\n"
    "B\td1\t3\t10\tr1\tEs regnet heute.\tIt rains today<v>.\tFluency/Punctuation\tMinor\t\n"
    "B\td1\t3\t10\tr1\tEs regnet heute.\tIt rains today.\tStyle/Awkward\tMinor\tno span\n"
)


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def imported(path, slug="ted"):
    run("import_mqm", str(path), "--study", slug)
    return Study.objects.get(slug=slug)


def report_scores(study):
    return {row["system"]: (row["score"], row["segments"]) for row in study_report(study)["systems"]}


def test_the_ted_release_as_a_study_reports_the_published_scores_and_ranks():
    study = imported(DATA / "mqm_ted_ende.tsv.gz")
    report = study_report(study)
    scores = {row["system"]: row for row in report["systems"]}
    assert set(scores) == set(PUBLISHED["ende"])
    ranked = [row["system"] for row in report["ranking"]["systems"]]
    for system, (printed, rank) in PUBLISHED["ende"].items():
        assert scores[system]["segments"] == 529
        assert ranked.index(system) + 1 == rank, system
        digits = len(printed.split(".")[1])
        if ("ende", system) in README_SLIPS:  # the README's own slip (test_mqm_tsv.py)
            assert abs(scores[system]["score"] - float(printed)) < 0.01
        else:
            assert f"{scores[system]['score']:.{digits}f}" == printed, system
    assert len(report["ranking"]["pairs"]) == 91


@pytest.mark.parametrize("pair", ["ende", "zhen"])
def test_the_report_gives_the_scores_of_mqm_scores_on_the_same_file(pair):
    path = DATA / f"mqm_ted_{pair}.tsv.gz"
    study = imported(path)
    lines, _ = read(path)
    from_file = system_scores(segment_scores(line.judgment for line in lines))
    from_study = report_scores(study)
    assert set(from_study) == set(from_file)
    for system, (score, pairs) in from_file.items():
        assert from_study[system] == (pytest.approx(score, abs=1e-12), pairs)
    printed, _ = run("mqm_scores", str(path), "--resamples", "10")
    for system, (score, _) in from_study.items():
        assert re.search(rf"^\s+\d+\s+\d+\s+{re.escape(system)}\s+{score:.3f}\s", printed, re.MULTILINE), (
            system
        )


@pytest.mark.parametrize("pair", ["ende", "zhen"])
def test_the_ted_release_imported_and_exported_is_the_same_file_byte_for_byte(pair, tmp_path):
    path = DATA / f"mqm_ted_{pair}.tsv.gz"
    imported(path)
    out, _ = run("export_mqm", "ted", str(tmp_path / "out.tsv"))
    with gzip.open(path, "rb") as original:
        assert (tmp_path / "out.tsv").read_bytes() == original.read()
    assert "lines" in out


def test_the_ted_release_exported_a_source_document_at_a_time_is_still_the_same_file(tmp_path, monkeypatch):
    """Five batches instead of one: what a batch learns (the header, the seg_ids so far, the
    categories' labels) carries over to the next, as in a study of thousands of documents."""
    path = DATA / "mqm_ted_ende.tsv.gz"
    imported(path)
    monkeypatch.setattr(exporting, "DOCUMENTS_AT_ONCE", 1)
    run("export_mqm", "ted", str(tmp_path / "out.tsv"))
    with gzip.open(path, "rb") as original:
        assert (tmp_path / "out.tsv").read_bytes() == original.read()


def test_a_small_file_becomes_documents_raters_assignments_and_errors(tmp_path):
    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    out, _ = run("import_mqm", str(path), "--study", "small", "--title", "Small campaign")
    assert out.splitlines()[0] == (
        "imported small: 2 documents, 6 segments, 4 assignments, 5 errors, 7 rated segments"
    )
    study = Study.objects.get(slug="small")
    assert (study.protocol, study.title) == ("mqm", "Small campaign")
    assert study.config["severities"] == ["Minor", "Major"]  # the file's, mildest first
    a, b = study.documents.order_by("position")
    assert (a.system, a.input_id, b.system, b.input_id) == ("A", "d1", "B", "d1")
    assert [s.text for s in a.segments.order_by("index")] == ["The dog barks.", "The cat sleeps.", "Today."]
    assert a.meta["sources"] == ["Der Hund bellt.", "Die Katze schläft.", "Es regnet heute."]
    categories = {c.label: c for c in study.taxonomy.categories.all()}
    assert list(categories) == ["Accuracy/Mistranslation", "Non-translation!", "Accuracy/Omission",
                                "Fluency/Punctuation", "Style/Awkward"]  # in the file's order  # fmt: skip
    assert [c.label for c in categories.values() if c.whole_sentence] == ["Non-translation!"]
    raters = Worker.objects.filter(platform="import", external_id__in=["r1", "r2"])
    assert raters.count() == 2
    given = {
        (x.document.system, x.worker.external_id): x.items for x in Assignment.objects.filter(study=study)
    }
    assert given == {("A", "r1"): [0, 2], ("A", "r2"): [0, 1], ("B", "r2"): [0, 1], ("B", "r1"): [2]}
    assert all(x.status == "submitted" for x in Assignment.objects.filter(study=study))
    errors = {(e.segment.document.system, e.segment.index, e.category.label): (e.side, e.start, e.end, e.text)
              for e in TranslationError.objects.filter(assignment__study=study)}  # fmt: skip
    assert errors == {
        ("A", 0, "Accuracy/Mistranslation"): ("target", 4, 7, "dog"),
        ("A", 2, "Accuracy/Omission"): ("source", 0, 9, "Es regnet"),
        ("B", 1, "Non-translation!"): ("target", 0, 18, "Die Katze schläft."),
        ("B", 2, "Fluency/Punctuation"): ("target", 14, 15, "."),
        ("B", 2, "Style/Awkward"): ("missing", 0, 0, ""),
    }
    # A: 5 (r1 on 1), 0 (r2 on 1), 0, 5 (the omission): 10 / 4; B: 0, 25, 0.1 + 1: 26.1 / 3.
    assert report_scores(study) == {"A": (2.5, 4), "B": (pytest.approx(8.7), 3)}
    lines, _ = read(path)
    assert system_scores(segment_scores(line.judgment for line in lines)) == {"A": (2.5, 4),
                                                                              "B": (pytest.approx(8.7), 3)}  # fmt: skip


def test_exported_again_only_the_whole_segment_error_marked_nowhere_gains_its_markers(tmp_path):
    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    imported(path, slug="small")
    run("export_mqm", "small", str(tmp_path / "out.tsv"))
    written = (tmp_path / "out.tsv").read_text(encoding="utf-8")
    assert written == SMALL.replace(
        "B\td1\t2\t2\tr2\tDie Katze schläft.\tDie Katze schläft.\t",
        "B\td1\t2\t2\tr2\tDie Katze schläft.\t<v>Die Katze schläft.</v>\t",
    )
    assert "It rains today<v>." in written  # the <v> never closed, as it was


def bad_file(tmp_path, body):
    path = tmp_path / "bad.tsv"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_a_bad_file_is_named_by_its_lines_and_nothing_is_written(tmp_path):
    path = bad_file(tmp_path, (
        "A\td1\t1\t1\tr1\tDer Hund bellt.\tThe <v>dog</v> barks.\tAccuracy/Mistranslation\tMajor\t\n"
        "B\td1\t1\t1\tr1\tDer Hund bellte.\tThe hound barks.\tNo-error\tNo-error\t\n"
        "A\td1\t1\t1\tr2\tDer Hund bellt.\tA dog barks.\tNo-error\tNo-error\t\n"
        "A\td1\t2\t2\tr1\tEs regnet.\tIt rains.\t\tMinor\t\n"
        "A\td1\t3\t3\tr1\tJa.\t<v>Y</v>e<v>s</v>.\tFluency/Spelling\tMinor\t\n"
        "A\td1\t4\t4\tr1\tNein.\t\tNo-error\tNo-error\t\n"
        "A\td1\t5\t5\tr1\tGut.\tGood.\n"
        "A\td1\t6\t6\tr1\tGut.\t<v>Good</v>.\tAccuracy/Mistranslation\tCritical\t\n"
        "A\td1\t7\t7\tr1\tGut.\tGood</v>.\tAccuracy/Mistranslation\tMajor\t\n"
    ))  # fmt: skip
    err = StringIO()
    with pytest.raises(CommandError, match=r"8 problem\(s\); nothing was imported"):
        call_command("import_mqm", str(path), "--study", "bad", stderr=err)
    assert err.getvalue().splitlines() == [
        "bad.tsv:3: the source of segment 1 of doc 'd1' differs from line 2's",
        "bad.tsv:4: the target of segment 1 of doc 'd1' by A differs from line 2's",
        "bad.tsv:5: no category: an MQM error has a category and a severity (an ESA file names none)",
        "bad.tsv:6: 2 spans marked; an error line marks one span (or none)",
        "bad.tsv:7: the target is empty: a segment needs a text",
        "bad.tsv:8: 7 columns, an MQM line has at least 9 (system, doc, doc_id, seg_id, rater, source, target, "
        "category, severity)",
        "bad.tsv:9: severity 'critical' has no weight (the scheme weighs major, minor, neutral): give its weight "
        "(--weights, or the config's weights in study.yaml)",
        "bad.tsv:10: the span markers do not pair up: a </v> without its <v>",
    ]
    assert not Study.objects.exists() and not Taxonomy.objects.exists() and not Document.objects.exists()
    assert not Worker.objects.filter(platform="import").exists()


def test_weights_given_weigh_a_severity_the_common_scheme_lacks(tmp_path):
    path = bad_file(tmp_path, "A\td1\t1\t1\tr1\tGut.\t<v>Good</v>.\tAccuracy/Mistranslation\tCritical\t\n"
                              "A\td1\t2\t2\tr1\tJa.\tYes.\tFluency/Spelling\tMinor\t\n")  # fmt: skip
    weights = tmp_path / "weights.yaml"
    weights.write_text("severities: {Critical: 10, Major: 5, Minor: 1}\n", encoding="utf-8")
    run("import_mqm", str(path), "--study", "critical", "--weights", str(weights))
    study = Study.objects.get(slug="critical")
    assert study.config == {"severities": ["Minor", "Critical"],
                            "weights": {"severities": {"Critical": 10, "Major": 5, "Minor": 1}}}  # fmt: skip
    assert report_scores(study) == {"A": (5.5, 2)}


def test_an_existing_slug_is_refused_before_the_file_is_read(tmp_path):
    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    imported(path, slug="twice")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_mqm", str(path), "--study", "twice", stderr=err)
    assert err.getvalue().splitlines() == ["small.tsv:0: a study with slug 'twice' already exists"]
    assert Study.objects.count() == 1


def test_a_researcher_uploads_an_mqm_file_in_admin_and_gets_the_study(client, researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    client.force_login(researcher)
    settings = SimpleUploadedFile("study.yaml", b"title: TED en-de\nconfig:\n  max_errors_per_segment: 5\n")
    response = client.post(reverse("admin:studies_study_import_annotations"), {
        "file": SimpleUploadedFile("small.tsv", SMALL.encode()), "format": "mqm-tsv", "slug": "uploaded",
        "taxonomy": settings, "options": "title=Overridden",
    })  # fmt: skip
    study = Study.objects.get(slug="uploaded")
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:studies_study_change", args=[study.pk])
    assert (study.title, study.config["max_errors_per_segment"]) == ("Overridden", 5)
    assert study.memberships.get(user=researcher).role == "researcher"
    page = client.get(response["Location"]).content.decode()
    assert "uploaded: 2 documents, 6 segments, 4 assignments, 5 errors, 7 rated segments" in page


def test_a_bad_upload_lists_its_lines_and_writes_nothing(client, researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    client.force_login(researcher)
    body = HEADER + "A\td1\t1\t1\tr1\tS.\t<v>T</v>.\t\tMajor\t\n"
    page = client.post(reverse("admin:studies_study_import_annotations"), {
        "file": SimpleUploadedFile("bad.tsv", body.encode()), "format": "mqm-tsv", "slug": "uploaded",
        "options": "repeats=latest",
    }).content.decode()  # fmt: skip
    assert "format &#x27;mqm-tsv&#x27; has no option &#x27;repeats&#x27;; its options: title" in page
    page = client.post(reverse("admin:studies_study_import_annotations"), {
        "file": SimpleUploadedFile("bad.tsv", body.encode()), "format": "mqm-tsv", "slug": "uploaded",
    }).content.decode()  # fmt: skip
    assert "1 problem found. Nothing was imported." in page
    assert "bad.tsv:2: no category: an MQM error has a category and a severity" in page
    assert not Study.objects.exists()


def test_import_annotations_takes_the_format_too_and_refuses_what_does_not_apply(tmp_path):
    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_annotations", str(path), "--format", "mqm-tsv", "--slug", "x", "--into", "review",
                     "--sentences-per-segment", "2", stderr=err)  # fmt: skip
    assert err.getvalue().splitlines() == [
        "small.tsv:0: an MQM TSV file is imported as a translation study of its own, not into a review study of the "
        "evaluators' annotations",
        "small.tsv:0: an MQM TSV file's segments are its seg_ids; it is not cut into sentences",
    ]
    out, _ = run(
        "import_annotations", str(path), "--format", "mqm-tsv", "--slug", "y", "--option", "title=Mine"
    )
    assert (
        out.splitlines()[0].startswith("imported y: 2 documents")
        and Study.objects.get(slug="y").title == "Mine"
    )


def test_a_failure_while_writing_leaves_nothing_behind(tmp_path, monkeypatch):
    from interop.mqm import writing

    def broken(model, fields, rows):
        raise RuntimeError("the disk is full")

    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    monkeypatch.setattr(writing, "insert_rows", broken)
    with pytest.raises(RuntimeError, match="the disk is full"):
        call_command("import_mqm", str(path), "--study", "half")
    assert not Study.objects.exists() and not Taxonomy.objects.exists() and not Document.objects.exists()
    assert not Assignment.objects.exists() and not Worker.objects.filter(platform="import").exists()


def test_the_annotation_table_has_a_row_per_rated_segment_not_per_segment_of_each_document(tmp_path):
    from protocols.translation.exports import translation_row_count, translation_rows

    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    study = imported(path, slug="small")
    rows = [row for row, _ in translation_rows(study)]
    assert translation_row_count(study) == len(rows) == 7  # 4 of A's, 3 of B's, as in the file
    assert sorted((row[3], row[4]) for row in rows) == [("A", 0), ("A", 0), ("A", 1), ("A", 2),
                                                        ("B", 0), ("B", 1), ("B", 2)]  # fmt: skip


def test_a_file_without_header_or_comment_column_comes_back_as_it_was(tmp_path):
    # Nine columns, no header, gzipped and saved under a name without .gz (as an upload is).
    body = "".join(line.rsplit("\t", 1)[0] + "\n" for line in SMALL.splitlines()[1:])
    body = body.replace(
        "Die Katze schläft.\tDie Katze schläft.", "Die Katze schläft.\t<v>Die Katze schläft.</v>"
    )
    path = tmp_path / "upload"
    path.write_bytes(gzip.compress(body.encode()))
    imported(path, slug="bare")
    run("export_mqm", "bare", str(tmp_path / "out.tsv"))
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8") == body


def test_a_byte_order_mark_does_not_hide_the_header(tmp_path):
    path = tmp_path / "bom.tsv"
    path.write_text("\ufeff" + SMALL, encoding="utf-8")
    imported(path, slug="bom")
    assert set(Study.objects.get(slug="bom").documents.values_list("system", flat=True)) == {"A", "B"}


def test_a_system_without_a_line_on_a_segment_has_no_segment_there_and_the_others_keep_their_places(tmp_path):
    body = "".join(line + "\n" for line in SMALL.splitlines()[1:] if not line.startswith("B\td1\t2\t"))
    path = tmp_path / "gap.tsv"
    path.write_text(HEADER + body, encoding="utf-8")
    out, _ = run("import_mqm", str(path), "--study", "gap")
    assert (
        "note: gap.tsv: B has no line on 1 of the 3 segments of doc 'd1'; its document has no segment there"
        in out
    )
    b = Study.objects.get(slug="gap").documents.get(system="B")
    assert list(b.segments.values_list("index", flat=True)) == [
        0,
        2,
    ]  # seg_id 10 stays at index 2, beside A's
    assert report_scores(Study.objects.get(slug="gap"))["B"] == (pytest.approx(1.1 / 2), 2)
    run("export_mqm", "gap", str(tmp_path / "out.tsv"))
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8") == HEADER + body
