"""Translation bundles: sources and references in documents.jsonl's meta, errors and scores in
assignments.jsonl, every problem named by file and line, and export -> import -> export exact."""

import io
import json
from pathlib import Path

import pytest

from accounts.models import Worker
from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_add_documents, study_export_bundle, study_import_bundle
from protocols.translation.models import SegmentScore, TranslationError
from protocols.translation.report import study_report
from studies.models import Category, Study, Taxonomy
from tests.bundles import held_while_writing, whole_and_batched
from tests.translation.bundles import DOCUMENTS, translation_yaml, work_lines, write_translation_bundle

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("eager_celery"),
]  # runs go on in this process, broker or not


def read_all(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


def round_trip(study, tmp_path):
    study_export_bundle(study=study, directory=tmp_path / "first")
    Assignment.objects.all().delete()
    Study.objects.all().delete()
    Category.objects.all().delete()
    Taxonomy.objects.all().delete()
    Worker.objects.all().delete()
    study_import_bundle(directory=tmp_path / "first")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "second")
    return read_all(tmp_path / "first"), read_all(tmp_path / "second")


def problems_of(directory):
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=directory)
    return [str(problem) for problem in raised.value.problems]


def test_an_mqm_bundle_imports_errors_on_every_side_and_round_trips(tmp_path):
    result = study_import_bundle(directory=write_translation_bundle(tmp_path / "in", "mqm"))
    assert (result.documents, result.assignments, result.annotations) == (2, 4, 5)
    study = result.study
    errors = TranslationError.objects.filter(assignment__worker__external_id="r1").order_by(
        "segment__document__position", "id"
    )
    assert [(e.segment.index, e.side, e.start, e.end, e.text, e.category.key, e.severity) for e in errors] == [
        (0, "target", 14, 18, "loud", "Mistranslation", "Minor"),
        (1, "source", 0, 3, "Die", "Mistranslation", "Major"),
        (1, "missing", 0, 0, "", "Mistranslation", "Minor"),
        (1, "target", 0, 29, "The cat sleeps 😀 on the sofa.", "NonTranslation", "Major"),  # the whole segment
        (0, "target", 0, 9, "Dog bark.", "Mistranslation", "Major"),  # the study's spelling of "major"
    ]  # fmt: skip
    assert errors.first().comment == "should be an adverb"
    assert study.documents.get(system="sysA").meta["sources"][1] == "Die Katze schläft 😀 auf dem Sofa."
    report = study_report(study)
    assert {row["system"]: row["score"] for row in report["systems"]} == pytest.approx(
        {"sysA": (1 + 5 + 1 + 25) / 4, "sysB": 5 / 4}  # r1's errors over both raters' two segments
    )

    exported, again = round_trip(study, tmp_path)
    assert exported == again
    assert set(exported) == {"study.yaml", "documents.jsonl", "assignments.jsonl", "annotations.csv"}
    first = json.loads(exported["assignments.jsonl"].decode().splitlines()[0])
    assert first["errors"][0] == {"segment": 0, "side": "target", "start": 14, "end": 18, "text": "loud",
                                  "category": "Mistranslation", "severity": "Minor", "comment": "should be an adverb"}  # fmt: skip
    assert "scores" not in first
    documents = [json.loads(line) for line in exported["documents.jsonl"].decode().splitlines()]
    assert documents[0]["meta"]["references"] == DOCUMENTS[0]["meta"]["references"]


@pytest.mark.parametrize("protocol", ["esa", "da"])
def test_scores_import_by_segment_and_round_trip(tmp_path, protocol):
    study = study_import_bundle(directory=write_translation_bundle(tmp_path / "in", protocol)).study
    scores = SegmentScore.objects.filter(
        assignment__worker__external_id="r2", assignment__document__system="sysA"
    )
    expected = {"esa": [(0, 80.5), (1, 56.0)], "da": [(0, 5.5), (1, 5.0)]}[protocol]
    assert sorted((s.segment.index, s.score) for s in scores) == expected
    if protocol == "esa":
        assert TranslationError.objects.filter(assignment__study=study, category__isnull=True).count() == 4
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    lines = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert lines[0]["scores"][0]["segment"] == 0 and ("errors" in lines[0]) == (protocol == "esa")
    whole = {"esa": 80, "da": 5}[protocol]
    assert lines[0]["scores"][0]["score"] == whole and isinstance(lines[0]["scores"][0]["score"], int)


def test_a_study_made_on_the_platform_round_trips(tmp_path):
    from django.utils import timezone

    from tests.factories import AssignmentFactory, WorkerFactory
    from tests.translation.studies import make_translation_study

    study = make_translation_study("esa", taxonomy=None, config={"show_reference": True})
    for system in ("sysA", "sysB"):
        assignment = AssignmentFactory(
            study=study, document=study.documents.get(system=system), worker=WorkerFactory(),
            status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
        )  # fmt: skip
        for segment in assignment.document.segments.all():
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=40 + segment.index)
        TranslationError.objects.create(assignment=assignment, segment=assignment.document.segments.get(index=0),
                                        side="missing", severity="Major", client_id="e1")  # fmt: skip
    study.refresh_from_db()  # its status as stored text, as the export reads it
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    assert len(exported["assignments.jsonl"].decode().splitlines()) == 2


def test_sources_and_references_must_give_one_text_per_segment(tmp_path):
    documents = [
        {**DOCUMENTS[0], "meta": {"sources": ["Nur einer."]}},
        {**DOCUMENTS[1], "meta": {"sources": DOCUMENTS[1]["meta"]["sources"], "references": "The dog."}},
        {"id": "news-2#sysA", "segments": ["One."], "meta": {"sources": ["Eins."], "target_lang": 7}},
    ]
    problems = problems_of(
        write_translation_bundle(tmp_path / "in", "esa", documents=documents, assignments=[])
    )
    assert problems == [
        "documents.jsonl:1: document 'news-1#sysA': meta.sources has 1 texts for 2 segments: give one per segment",
        "documents.jsonl:2: document 'news-1#sysB': meta.references must be a list of texts, one per segment",
        "documents.jsonl:3: document 'news-2#sysA': meta.target_lang must be text, e.g. \"de\"",
    ]
    assert not Study.objects.exists()


def test_a_document_without_sources_is_let_in_with_a_warning(tmp_path):
    documents = [{**DOCUMENTS[0], "meta": {}}, DOCUMENTS[1]]
    result = study_import_bundle(directory=write_translation_bundle(tmp_path / "in", "da", documents=documents,
                                                                    assignments=[]))  # fmt: skip
    assert [str(w) for w in result.warnings] == [
        "documents.jsonl:1: warning: document 'news-1#sysA' has no meta.sources: its workers see no source text"
    ]


def test_documents_added_to_a_study_are_checked_the_same_way(tmp_path):
    study = study_import_bundle(
        directory=write_translation_bundle(tmp_path / "in", "mqm", assignments=[])
    ).study
    path = tmp_path / "more.jsonl"
    path.write_text(
        json.dumps({"id": "news-2#sysA", "segments": ["One.", "Two."], "meta": {"sources": ["Eins."]}})
    )
    with pytest.raises(BundleInvalid) as raised:
        study_add_documents(study=study, path=path, name="more.jsonl")
    assert [str(p) for p in raised.value.problems] == [
        "more.jsonl:1: document 'news-2#sysA': meta.sources has 1 texts for 2 segments: give one per segment"
    ]
    assert study.documents.count() == 2


def test_documents_added_to_a_study_name_the_protocols_problems_after_the_bundles_own(tmp_path):
    """Checked one at a time (their meta not kept), the meta problems still come after the others."""
    study = study_import_bundle(
        directory=write_translation_bundle(tmp_path / "in", "mqm", assignments=[])
    ).study
    path = tmp_path / "more.jsonl"
    path.write_text(
        json.dumps({"id": "news-3#sysA", "segments": ["One.", "Two."], "meta": {"sources": ["Eins."]}}) + "\n"
        + json.dumps({"id": "news-1#sysA", "segments": ["One."], "meta": {"sources": ["Eins."]}}) + "\n"
    )  # fmt: skip
    with pytest.raises(BundleInvalid) as raised:
        study_add_documents(study=study, path=path, name="more.jsonl")
    assert [str(p) for p in raised.value.problems] == [
        "more.jsonl:2: document id 'news-1#sysA' is already in the study",
        "more.jsonl:1: document 'news-3#sysA': meta.sources has 1 texts for 2 segments: give one per segment",
    ]


def line(document="news-1#sysA", **fields):
    return {"document": document, "annotator": fields.pop("annotator", "r1"), **fields}


@pytest.mark.parametrize(
    ("protocol", "lines", "expected"),
    [
        ("mqm", [line(errors=[{"segment": 0, "category": "Nope", "severity": "Minor", "start": 0, "end": 3}])],
         "assignments.jsonl:1: error 1: unknown category 'Nope' (the taxonomy has Mistranslation, NonTranslation, Punctuation)"),
        ("mqm", [line(errors=[{"segment": 0, "category": "Punctuation", "severity": "Critical", "start": 0, "end": 3}])],
         "assignments.jsonl:1: error 1: severity 'Critical' is not one of Neutral, Minor, Major"),
        ("mqm", [line(errors=[{"segment": 0, "category": "Punctuation", "severity": "Minor", "start": 0, "end": 3,
                               "text": "Dog"}])],
         "assignments.jsonl:1: error 1: target of segment 0: text 'Dog' does not match the offsets [0, 3), which hold 'The'"),
        ("mqm", [line(errors=[{"segment": 0, "category": "Punctuation", "severity": "Minor", "side": "source",
                               "start": 0, "end": 99}])],
         "assignments.jsonl:1: error 1: source of segment 0: offsets [0, 99) are outside it (20 characters) or empty"),
        ("mqm", [line(errors=[{"segment": 1, "category": "NonTranslation", "severity": "Minor", "start": 0, "end": 3}])],
         "assignments.jsonl:1: error 1: category NonTranslation covers the whole segment: side target, start 0, end 29"),
        ("mqm", [line(errors=[{"segment": 2, "category": "Punctuation", "severity": "Minor"}])],
         "assignments.jsonl:1: error 1: segment 2 is not in the document (0 to 1)"),
        ("mqm", [line(errors=[{"segment": 0, "category": "Punctuation", "severity": "Minor", "side": "missing",
                               "start": 2, "end": 4}])],
         "assignments.jsonl:1: error 1: a [missing] error has no span"),
        ("mqm", [line(scores=[{"segment": 0, "score": 3}])],
         "assignments.jsonl:1: 'scores': an MQM study's score is its errors' weights"),
        ("esa", [line(errors=[{"segment": 0, "category": "Punctuation", "severity": "Minor", "start": 0, "end": 3}])],
         "assignments.jsonl:1: error 1: an ESA error has a severity only, no category"),
        ("esa", [line(scores=[{"segment": 0, "score": 101}])],
         "assignments.jsonl:1: score 1: the score must be a number from 0 to 100, not 101"),
        ("esa", [line(scores=[{"segment": 0, "score": 5}, {"segment": 0, "score": 6}])],
         "assignments.jsonl:1: score 2: segment 0 is not a new segment of the document (0 to 1)"),
        ("esa", [line(errors=[{"segment": 0, "severity": "Minor", "side": "source", "start": 0, "end": 3}])],
         "assignments.jsonl:1: error 1: this study marks errors in the translation only (config.source_spans is false)"),
        ("da", [line(errors=[])], "assignments.jsonl:1: 'errors': a DA study scores segments and marks no errors"),
        ("da", [line(scores=[{"segment": 0, "score": 7}])],
         "assignments.jsonl:1: score 1: the score must be a number from 0 to 6, not 7"),
        ("da", [line(scores=[{"segment": 0}])], 'assignments.jsonl:1: score 1: give {"segment": index, "score": number}'),
        ("da", [line(document="ghost", scores=[])], "assignments.jsonl:1: assignment for unknown document 'ghost'"),
        ("da", [line(scores=[]), line(scores=[])],
         "assignments.jsonl:2: annotator 'r1' already has a main assignment for 'news-1#sysA' (line 1)"),
    ],
)  # fmt: skip
def test_bad_work_is_named_by_line_and_nothing_is_written(tmp_path, protocol, lines, expected):
    study = translation_yaml(protocol)
    if protocol == "esa":
        study["config"] = {**study["config"], "source_spans": False}
    problems = problems_of(
        write_translation_bundle(tmp_path / "in", protocol, study=study, assignments=lines)
    )
    assert len(problems) == 1 and problems[0].startswith(expected), problems
    assert not Study.objects.exists() and not Assignment.objects.exists()


def test_work_is_still_checked_when_the_config_is_broken(tmp_path):
    study = translation_yaml("esa", config={"scale": "wide"})
    lines = [line(scores=[{"segment": 0, "score": 101}])]
    problems = problems_of(write_translation_bundle(tmp_path / "in", "esa", study=study, assignments=lines))
    assert problems[0].startswith("study.yaml:") and "config.scale" in problems[0]
    assert problems[1].startswith("assignments.jsonl:1: score 1: the score must be a number from 0 to 100")


def test_the_work_lines_of_the_test_bundle_are_what_export_writes_back():
    """The helper's lines are in the bundle's own format (a guard on the test data itself)."""
    assert {key for line in work_lines("esa") for key in line} == {
        "document", "annotator", "active_seconds", "submitted_at", "errors", "scores"
    }  # fmt: skip


DEMO = Path(__file__).resolve().parents[2] / "demo"


@pytest.mark.parametrize(
    ("name", "ranked"), [("esa-demo", ["sysA", "sysB", "sysC"]), ("mqm-demo", ["sysA", "sysB", "sysC"])]
)
def test_the_demos_translation_studies_import_rank_their_systems_and_round_trip(tmp_path, name, ranked):
    result = study_import_bundle(directory=DEMO / name)
    assert (result.documents, result.assignments, result.warnings) == (6, 12, [])
    report = study_report(result.study)
    assert [row["system"] for row in report["ranking"]["systems"]] == ranked
    exported, again = round_trip(result.study, tmp_path)
    assert exported == again


CONTRASTIVE_DOCUMENTS = [{**document, "block": "news-1"} for document in DOCUMENTS]


def block_line(annotator, order, **fields):
    return {"block": "news-1", "annotator": annotator, "order": order, **fields}


def test_a_contrastive_bundle_keeps_each_workers_order_and_each_translations_work(tmp_path):
    lines = [
        block_line("r1", ["news-1#sysB", "news-1#sysA"],
                   errors=[{"document": "news-1#sysA", "segment": 0, "start": 14, "end": 18, "text": "loud",
                            "severity": "Minor"},
                           {"document": "news-1#sysB", "segment": 1, "side": "missing", "severity": "Major"}],
                   scores=[{"document": "news-1#sysA", "segment": 0, "score": 80},
                           {"document": "news-1#sysB", "segment": 0, "score": 20}]),
        block_line("r2", ["news-1#sysA", "news-1#sysB"], errors=[],
                   scores=[{"document": "news-1#sysB", "segment": 1, "score": 10.5}]),
    ]  # fmt: skip
    study_yaml = translation_yaml("contrastive-esa", slug="side-by-side")
    result = study_import_bundle(
        directory=write_translation_bundle(tmp_path / "in", "esa", study=study_yaml, documents=CONTRASTIVE_DOCUMENTS,
                                           assignments=lines)
    )  # fmt: skip
    study = result.study
    first = Assignment.objects.get(study=study, worker__external_id="r1")
    assert first.document is None and first.block == "news-1"
    shown = [study.documents.get(pk=item["document"]).external_id for item in first.items]
    assert shown == ["news-1#sysB", "news-1#sysA"]
    assert sorted((s.segment.document.system, s.segment.index, s.score) for s in first.segment_scores.all()) == [
        ("sysA", 0, 80.0), ("sysB", 0, 20.0)
    ]  # fmt: skip
    assert {(e.segment.document.system, e.side) for e in first.translation_errors.all()} == {
        ("sysA", "target"), ("sysB", "missing")
    }  # fmt: skip

    exported, again = round_trip(study, tmp_path)
    assert exported == again
    written = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert [(w["annotator"], w["block"], w["order"]) for w in written] == [
        ("r1", "news-1", ["news-1#sysB", "news-1#sysA"]), ("r2", "news-1", ["news-1#sysA", "news-1#sysB"])
    ]  # fmt: skip
    assert written[0]["scores"][1] == {"document": "news-1#sysB", "segment": 0, "score": 20}


def test_contrastive_work_made_on_the_platform_round_trips(tmp_path):
    from annotations.services.joining import assignment_join
    from tests.translation.studies import make_translation_study

    study = make_translation_study("contrastive-mqm", systems=("sysA", "sysB", "sysC"))
    for name in ("w1", "w2"):
        assignment = assignment_join(study=study, platform="link", external_id=name)
        first = study.documents.get(pk=assignment.items[0]["document"])
        TranslationError.objects.create(
            assignment=assignment, segment=first.segments.get(index=0), side="target", start=0, end=3,
            text=first.segments.get(index=0).text[:3], severity="Minor",
            category=study.taxonomy.categories.get(key="Mistranslation"), client_id=f"{name}-1",
        )  # fmt: skip
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    study.refresh_from_db()
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    assert len(exported["assignments.jsonl"].decode().splitlines()) == 2


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([block_line("r1", ["news-1#sysA"], scores=[])],
         "assignments.jsonl:1: 'order' must list the block's translations (news-1#sysA, news-1#sysB) once each"),
        ([block_line("r1", ["news-1#sysA", "news-1#sysB"], scores=[{"document": "news-2#sysA", "segment": 0, "score": 1}])],
         "assignments.jsonl:1: score 1: document 'news-2#sysA' is not a translation of block 'news-1'"),
        ([block_line("r1", ["news-1#sysA", "news-1#sysB"], scores=[{"segment": 0, "score": 1}])],
         'assignments.jsonl:1: score 1: give {"document": its translation, "segment": index, "score": number}'),
        ([{"block": "news-9", "annotator": "r1", "scores": []}], "assignments.jsonl:1: assignment for unknown block 'news-9'"),
        ([{"block": "", "annotator": "r1", "scores": []}], "assignments.jsonl:1: assignment for unknown block ''"),
        ([block_line("r1", ["news-1#sysA", "news-1#sysB"]), block_line("r1", ["news-1#sysA", "news-1#sysB"])],
         "assignments.jsonl:2: annotator 'r1' already has a main assignment for block 'news-1' (line 1)"),
    ],
)  # fmt: skip
def test_bad_contrastive_lines_are_named_by_line(tmp_path, lines, expected):
    study_yaml = translation_yaml(
        "contrastive-da", slug="side-by-side", config={"scale": {"min": 0, "max": 6}}
    )
    problems = problems_of(write_translation_bundle(tmp_path / "in", "da", study=study_yaml,
                                                    documents=CONTRASTIVE_DOCUMENTS, assignments=lines))  # fmt: skip
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_a_contrastive_block_is_one_source_document(tmp_path):
    documents = [{**DOCUMENTS[0], "block": "news-1"}, {**DOCUMENTS[1], "input_id": "news-2", "block": "news-1"},
                 {**DOCUMENTS[1], "id": "news-3#sysB"}]  # fmt: skip
    study_yaml = translation_yaml("contrastive-da", slug="side-by-side", config={})
    problems = problems_of(write_translation_bundle(tmp_path / "in", "da", study=study_yaml, documents=documents,
                                                    assignments=[]))  # fmt: skip
    assert problems == [
        "documents.jsonl:2: document 'news-1#sysB': block 'news-1' holds translations of 'news-1' ('news-1#sysA'), "
        "not of 'news-2': a block is one source",
        "documents.jsonl:3: document 'news-3#sysB': a contrastive study needs its 'input_id' (the source document) "
        "and its 'block' (the same id: a block is one source)",
    ]


def test_an_imported_mqm_release_keeps_each_raters_share_of_the_segments(tmp_path):
    """An MQM file's raters rate some segments of a document each (interop/mqm): the bundle's
    `segments` keeps which, so the report is the same after export and import."""
    from django.core.management import call_command

    from tests.interop.test_mqm_study import SMALL

    path = tmp_path / "small.tsv"
    path.write_text(SMALL, encoding="utf-8")
    call_command("import_mqm", str(path), "--study", "small", stdout=io.StringIO())
    study = Study.objects.get(slug="small")
    before = {row["system"]: (row["score"], row["segments"]) for row in study_report(study)["systems"]}
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    lines = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert [(line["document"], line["annotator"], line["segments"]) for line in lines] == [
        ("A/d1", "r1", [0, 2]), ("A/d1", "r2", [0, 1]), ("B/d1", "r1", [2]), ("B/d1", "r2", [0, 1])
    ]  # fmt: skip
    after = {
        row["system"]: (row["score"], row["segments"]) for row in study_report(Study.objects.get())["systems"]
    }
    assert after == before


def test_segments_rated_are_checked(tmp_path):
    lines = [
        line(segments=[0, 0], errors=[]),
        line(annotator="r2", segments=[1], errors=[{"segment": 0, "category": "Punctuation", "severity": "Minor",
                                                    "start": 0, "end": 3}]),
    ]  # fmt: skip
    problems = problems_of(write_translation_bundle(tmp_path / "in", "mqm", assignments=lines))
    assert problems == [
        "assignments.jsonl:1: 'segments' must list the segments rated, each once, from 0 to 1 (left out: all)",
        "assignments.jsonl:2: error 1: segment 0 is not one the line rated ('segments')",
    ]


@pytest.mark.parametrize("batch", [None, 1])
def test_an_assisted_studys_suggestions_and_what_the_suggestion_arm_kept_round_trip(
    tmp_path, monkeypatch, batch
):
    """ESA-AI: the judge's suggestions in suggestions.jsonl, a suggestion-arm line's `prefilled`
    and the `suggestion` each kept error came from; the control arm's line has neither. Written a
    suggestion at a time (each batch reading its own ids), the import stores the same. While the
    assignments are checked, the suggestions wait on disk: no ErrorSpec is alive at the first line."""
    from django.utils import timezone

    from protocols.translation.assistance.prefill import suggestions_prefill
    from protocols.translation.assistance.sources import Suggestion, suggested_errors_replace
    from protocols.translation.bundle_errors import ErrorSpec
    from protocols.translation.models import SuggestedError, SuggestionPrefill
    from tests.bundles import held_while_checking
    from tests.factories import AssignmentFactory, WorkerFactory
    from tests.translation.studies import make_translation_study

    study = make_translation_study("esa", taxonomy=None, config={"assistance": {"share": 0.5, "seed": 1}})
    document = study.documents.get(system="sysB")  # "The dog barked loudly.", "The cat sleeps.", "It rains."
    suggested_errors_replace(study=study, source="evaluator judge, run 1", errors=[
        Suggestion(document.pk, 0, "target", 15, 21, None, "Minor"),
        Suggestion(document.pk, 1, "target", 8, 14, None, "Major"),
        Suggestion(document.pk, 2, "missing", 0, 0, None, "Major"),
    ])  # fmt: skip
    for arm in ("suggestions", "control"):
        assignment = AssignmentFactory(study=study, document=document, worker=WorkerFactory(), arm=arm)
        suggestions_prefill(assignment=assignment)
        if arm == "suggestions":  # the worker removes one suggestion and adds an error of their own
            assignment.translation_errors.filter(segment__index=1).delete()
            TranslationError.objects.create(assignment=assignment, segment=document.segments.get(index=1), start=0,
                                            end=3, text="The", severity="Minor", client_id="own")  # fmt: skip
        for segment in document.segments.all():
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=60)
        Assignment.objects.filter(pk=assignment.pk).update(status="submitted", submitted_at=timezone.now())
    study.refresh_from_db()

    if batch:
        monkeypatch.setattr("bundles.checked_suggestions.BATCH", batch)
    held = held_while_checking(monkeypatch, "protocols.translation.bundle_checks", "_check_line", ErrorSpec)
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    assert held and held[0] == 0, held
    suggestions = [json.loads(line) for line in exported["suggestions.jsonl"].decode().splitlines()]
    assert [(s["position"], s["side"], s["text"], s["severity"]) for s in suggestions] == [
        (1, "target", "loudly", "Minor"), (2, "target", "sleeps", "Major"), (3, "missing", "", "Major")
    ]  # fmt: skip
    lines = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    arm = {line["arm"]: line for line in lines}
    assert arm["suggestions"]["prefilled"] == 3 and "prefilled" not in arm["control"]
    assert [(e["segment"], e.get("suggestion")) for e in arm["suggestions"]["errors"]] == [
        (0, 1),
        (1, None),
        (2, 3),
    ]
    imported = Study.objects.get()
    assert SuggestedError.objects.filter(document__study=imported).count() == 3
    assert SuggestionPrefill.objects.get(assignment__study=imported).suggestions == 3
    kept = TranslationError.objects.filter(assignment__study=imported, suggestion__isnull=False)
    assert sorted(e.suggestion.position for e in kept) == [1, 3]


@pytest.mark.parametrize(
    ("suggestions", "lines", "expected"),
    [
        ([{"document": "news-1#sysA", "position": 1, "segment": 0, "start": 0, "end": 3, "text": "Dog",
           "severity": "Minor"}], [],
         "suggestions.jsonl:1: suggestion 1: target of segment 0: text 'Dog' does not match the offsets [0, 3)"),
        ([{"document": "news-1#sysA", "position": 1, "segment": 0, "side": "missing", "severity": "Minor"},
          {"document": "news-1#sysA", "position": 1, "segment": 1, "side": "missing", "severity": "Minor"}], [],
         "suggestions.jsonl:2: document 'news-1#sysA' has a suggestion 1 already (line 1)"),
        ([{"document": "news-1#sysA", "position": 1, "segment": 0, "side": "missing", "severity": "Minor"}],
         [line(arm="suggestions", prefilled=1, errors=[{"segment": 0, "side": "missing", "severity": "Minor",
                                                        "suggestion": 2}])],
         "assignments.jsonl:1: error 1: suggestion 2 is not one of document 'news-1#sysA' (suggestions.jsonl)"),
        ([], [line(prefilled=-1, errors=[])], "assignments.jsonl:1: 'prefilled' must be a whole number"),
    ],
)  # fmt: skip
def test_bad_suggestions_are_named_by_line(tmp_path, suggestions, lines, expected):
    directory = write_translation_bundle(tmp_path / "in", "esa", assignments=lines)
    if suggestions:
        (directory / "suggestions.jsonl").write_text("".join(json.dumps(s) + "\n" for s in suggestions))
    problems = problems_of(directory)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_suggestions_are_refused_in_a_da_study(tmp_path):
    directory = write_translation_bundle(tmp_path / "in", "da", assignments=[])
    (directory / "suggestions.jsonl").write_text('{"document": "news-1#sysA", "position": 1}\n')
    assert problems_of(directory) == [
        "suggestions.jsonl:0: suggestions are a judge's errors pre-filled in an MQM or ESA study (one translation a "
        "page); this study has none"
    ]


def test_a_judges_errors_and_scores_round_trip_as_its_model_lines(
    tmp_path, settings, django_capture_on_commit_callbacks
):
    """An LLM judge's run on an ESA study (evaluators/): its lines are `kind: model`, beside the
    evaluator in study.yaml."""
    from tests.translation.studies import make_translation_study
    from tests.translation.test_assistance import ANSWERS, judge_run

    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    study = make_translation_study("esa", taxonomy=None, annotators_per_document=2)
    judge_run(study, django_capture_on_commit_callbacks, ANSWERS)
    study.refresh_from_db()
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    lines = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert {(line["annotator"], line["kind"]) for line in lines} == {("gpt-judge", "model")}
    assert sum(len(line["errors"]) for line in lines) == 4 and "gpt-judge" in exported["study.yaml"].decode()


def contrastive_lines():
    scores = [{"document": "news-1#sysA", "segment": 0, "score": 80}, {"document": "news-1#sysB", "segment": 1,
              "score": 20}]  # fmt: skip
    errors = [
        {"document": "news-1#sysB", "segment": 0, "start": 0, "end": 3, "text": "Dog", "severity": "Minor"}
    ]
    return [
        block_line(rater, ["news-1#sysB", "news-1#sysA"][:: 1 if n % 2 else -1], errors=errors, scores=scores)
        for n, rater in enumerate(("r1", "r2", "r3", "r4", "r5"))
    ]


def translation_bundle(directory, protocol):
    if protocol == "contrastive-esa":
        return write_translation_bundle(
            directory, "esa", study=translation_yaml(protocol), documents=CONTRASTIVE_DOCUMENTS,
            assignments=contrastive_lines(),
        )  # fmt: skip
    return write_translation_bundle(directory, protocol)


@pytest.mark.parametrize("protocol", ["mqm", "esa", "da", "contrastive-esa"])
def test_work_written_a_batch_at_a_time_is_the_work_written_at_once(tmp_path, monkeypatch, protocol):
    """Checked assignments wait on disk and are written a batch at a time, each batch reading its own
    documents' and segments' ids: batches of one give the same study, byte for byte, as one batch."""
    from protocols.translation.bundle_checks import TranslationAssignmentSpec

    directory = translation_bundle(tmp_path / "in", protocol)
    (whole, batched), held = whole_and_batched(
        tmp_path, directory, monkeypatch, "translation", TranslationAssignmentSpec
    )
    assert whole == batched and max(held) <= 1
    assert SegmentScore.objects.exists() == (protocol != "mqm")


def test_checked_work_is_not_held_while_it_is_written(tmp_path, monkeypatch):
    """While a batch is written, the assignments checked for later batches are on disk: at most a
    batch of them is in memory (before, every checked assignment and its errors and scores were)."""
    from protocols.translation.bundle_checks import TranslationAssignmentSpec

    held = held_while_writing(monkeypatch, "translation", TranslationAssignmentSpec, 2)
    directory = translation_bundle(tmp_path / "in", "contrastive-esa")
    assert study_import_bundle(directory=directory).assignments == 5
    assert len(held) == 3 and max(held) <= 2, held


@pytest.mark.parametrize(
    ("protocol", "check"), [("esa", "_check_line"), ("contrastive-esa", "_check_block_line")]
)
def test_no_document_is_held_in_memory_while_the_work_is_checked(tmp_path, monkeypatch, protocol, check):
    """The checked documents wait on disk (bundles/checked_documents.py), their texts too
    (bundles/texts.py): a line's translation is read back when the line names it. While the lines
    are checked, no DocumentSpec is alive (before, every document's was, without its texts)."""
    from bundles.specs import DocumentSpec
    from tests.bundles import held_while_checking

    held = held_while_checking(monkeypatch, "protocols.translation.bundle_checks", check, DocumentSpec)
    assert study_import_bundle(directory=translation_bundle(tmp_path / "in", protocol)).assignments
    assert held and max(held) == 0, held


@pytest.mark.parametrize("identities", [True, False])
@pytest.mark.parametrize("protocol", ["mqm", "esa", "da", "contrastive-esa"])
def test_an_export_a_chunk_of_assignments_at_a_time_is_the_export_at_once(
    tmp_path, monkeypatch, protocol, identities
):
    """The export reads each chunk's errors, scores and shown translations by the chunk's own
    assignments (bundles/exporting.in_line_order): chunks of one give the same files, named or
    pseudonymous (whose lines are sorted by the names the file shows)."""
    from bundles import exporting

    study = study_import_bundle(directory=translation_bundle(tmp_path / "in", protocol)).study

    def exported(name):
        study_export_bundle(study=study, directory=tmp_path / name, identities=identities)
        return {path.name: path.read_bytes() for path in sorted(Path(tmp_path / name).iterdir())}

    whole = exported("whole")
    monkeypatch.setattr(exporting, "ASSIGNMENT_CHUNK", 1)
    assert exported("chunked") == whole
    assert whole["assignments.jsonl"].count(b"\n") == Assignment.objects.filter(study=study).count() > 1
