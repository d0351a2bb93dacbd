"""Every link is imported: a same-label pair as a paired span, any other link as a relation span."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from annotations.models import Assignment
from bundles import BundleInvalid
from interop.services import study_export_annotations, study_import_annotations
from protocols.span.models import ErrorAnnotation
from studies.models import Study
from tests.interop.test_label_studio import exported, one_task, relation, span, write_tasks

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
DOCCANO = FILES / "doccano" / "relations.jsonl"  # entities used alone and in relations, by two annotators
LABEL_STUDIO = FILES / "label-studio-relations.json"  # relations between labels, a region in two links


def categories_of(slug):
    taxonomy = Study.objects.get(slug=slug).taxonomy
    return {c.key: (c.label, c.kind, c.group) for c in taxonomy.categories.all()}


def spans_of(slug, annotator):
    """(category, span text, its start, paired text, its start) of one annotator's spans."""
    rows = ErrorAnnotation.objects.filter(
        assignment__study__slug=slug, assignment__worker__external_id=annotator
    ).select_related("assignment__document", "category", "segment")
    return sorted(
        (row.assignment.document.external_id, row.category.key, row.segment.text[row.start : row.end], row.start,
         row.paired_text, row.paired_start)
        for row in rows
    )  # fmt: skip


def doccano_view(path):
    """What a doccano export says, as sets: per document and annotator, its text, entities and relations."""
    view = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        who = str(record.get("annotator", record.get("user")))
        entities = {e["id"]: (e["start_offset"], e["end_offset"], e["label"]) for e in record["entities"]}
        relations = {(entities[r["from_id"]], entities[r["to_id"]], r["type"]) for r in record["relations"]}
        view[(str(record["id"]), who)] = (record["text"], set(entities.values()), relations)
    return view


def test_a_doccano_relation_export_imports_entities_as_spans_and_relations_as_paired_spans():
    study_import_annotations(path=DOCCANO, fmt="doccano", slug="rel")
    assert categories_of("rel") == {
        "PER": ("PER", "singleton", ""), "ORG": ("ORG", "singleton", ""), "LOC": ("LOC", "singleton", ""),
        "DATE": ("DATE", "singleton", ""),
        "works_for": ("works_for", "paired", "relations"), "located_in": ("located_in", "paired", "relations"),
        "hired": ("hired", "paired", "relations"),
        # A relation named as an entity label gets a key of its own.
        "PER-2": ("PER", "paired", "relations"),
    }  # fmt: skip
    assert spans_of("rel", "alice") == [
        ("21", "DATE", "2019", 70, "", None),
        ("21", "LOC", "Lisbon", 33, "", None),
        ("21", "ORG", "Acme Corp", 20, "", None),  # in two relations, one span
        ("21", "ORG", "Acme Corp", 41, "", None),
        ("21", "PER", "Ana Silva", 0, "", None),
        ("21", "PER", "Ana Silva", 57, "", None),
        # In one segment the relation's source is the span, its target the pair.
        ("21", "hired", "Acme Corp", 41, "Ana Silva", 57),
        ("21", "located_in", "Acme Corp", 20, "Lisbon", 33),
        ("21", "works_for", "Ana Silva", 0, "Acme Corp", 20),
        ("22", "LOC", "Lisbon", 29, "", None),
        ("22", "ORG", "Acme Corp", 46, "", None),
        ("22", "PER", "Ana Silva", 12, "", None),
        ("22", "PER", "Bo Chen", 0, "", None),
        ("22", "PER-2", "Bo Chen", 0, "Ana Silva", 12),
        ("22", "located_in", "Acme Corp", 46, "Lisbon", 29),
    ]
    hired = ErrorAnnotation.objects.get(assignment__worker__external_id="alice", category__key="hired")
    assert hired.answers == {
        "interop_link": {"label": "hired", "source": "span", "relation": True, "source_label": "ORG",
                         "target_label": "PER"}
    }  # fmt: skip


def test_a_doccano_relation_export_round_trips_to_an_equivalent_file(tmp_path):
    study_import_annotations(path=DOCCANO, fmt="doccano", slug="rel")
    out = tmp_path / "out.jsonl"
    study_export_annotations(study=Study.objects.get(slug="rel"), fmt="doccano", path=out)
    assert doccano_view(out) == doccano_view(DOCCANO)
    study_import_annotations(path=out, fmt="doccano", slug="again")
    assert spans_of("again", "alice") == spans_of("rel", "alice")
    assert categories_of("again") == categories_of("rel")


def test_the_report_of_an_imported_relation_file_counts_relations_as_paired_categories(tmp_path):
    study_import_annotations(path=DOCCANO, fmt="doccano", slug="rel")
    out = tmp_path / "report.json"
    call_command("study_report", "rel", "--output", str(out))
    report = out.read_text(encoding="utf-8")
    assert "works_for" in report and "located_in" in report


def test_label_studio_relations_between_labels_and_a_region_in_two_links_round_trip(tmp_path):
    study_import_annotations(path=LABEL_STUDIO, fmt="label-studio", slug="ls-rel")
    assert categories_of("ls-rel") == {
        "PER": ("PER", "singleton", ""), "LOC": ("LOC", "singleton", ""), "ORG": ("ORG", "singleton", ""),
        "RepE": ("RepE", "paired", ""),  # a same-label pair stays one paired span of its label
        "knows": ("knows", "paired", "relations"), "in": ("in", "paired", "relations"),
        "works_at": ("works_at", "paired", "relations"), "link": ("link", "paired", "relations"),
    }  # fmt: skip
    assert spans_of("ls-rel", "8") == [
        ("301", "LOC", "Paris", 16, "", None),
        ("301", "ORG", "Acme", 36, "", None),
        ("301", "PER", "Anna", 0, "", None),
        ("301", "PER", "Ben", 9, "", None),
        ("301", "in", "Anna", 0, "Paris", 16),
        ("301", "in", "Ben", 9, "Paris", 16),
        ("301", "knows", "Anna", 0, "Ben", 9),
    ]
    assert ("301", "RepE", "Anna met Ben again", 42, "Anna met Ben", 0) in spans_of("ls-rel", "7")
    assert ("301", "link", "Anna", 42, "Acme", 36) in spans_of("ls-rel", "7")
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="ls-rel"), fmt="label-studio", path=out)
    assert exported(out) == exported(LABEL_STUDIO)
    (task,) = json.loads(out.read_text(encoding="utf-8"))
    labelled = [r for r in task["annotations"][1]["result"] if r["type"] == "labels"]
    assert len(labelled) == 4  # the relations' ends are the entities' regions, not regions of their own


def test_same_label_pairs_of_the_existing_export_stay_paired_spans():
    study_import_annotations(path=FILES / "label-studio-export.json", fmt="label-studio", slug="pairs")
    assert categories_of("pairs")["InconE"] == ("InconE", "paired", "")
    assert not [key for key, (_, _, group) in categories_of("pairs").items() if group == "relations"]


def test_a_label_used_alone_and_in_a_same_label_link_makes_the_link_a_relation(tmp_path):
    results = [span(rid="a", needle="Anna met Ben", label="RepE"),
               span(rid="b", needle="Anna met Ben", label="RepE", nth=1), relation("b", "a"),
               span(rid="c", needle="Ben left", label="RepE")]  # fmt: skip
    tasks = one_task(results)
    tasks[0]["predictions"] = []
    study_import_annotations(path=write_tasks(tmp_path / "t.json", tasks), fmt="label-studio", slug="t")
    assert categories_of("t") == {"RepE": ("RepE", "singleton", ""), "link": ("link", "paired", "relations")}
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="t"), fmt="label-studio", path=out)
    assert exported(out) == exported(tmp_path / "t.json")


def test_a_relation_made_on_the_platform_links_the_spans_at_its_ends_or_regions_of_its_own(tmp_path):
    from django.utils import timezone

    from tests.factories import AssignmentFactory, ErrorAnnotationFactory, make_span_study

    study = make_span_study(documents=1, segments=1, slug="made-here")
    repetition = study.taxonomy.categories.get(key="RepE")
    repetition.group, repetition.label = "relations", "repeats"
    repetition.save()
    segment = study.documents.get().segments.get()
    assignment = AssignmentFactory(
        document=segment.document, status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
    )
    singleton = study.taxonomy.categories.exclude(kind="paired").first()
    first = segment.text.index(" ") + 1
    ErrorAnnotationFactory(assignment=assignment, segment=segment, category=singleton, start=0, end=first - 1,
                           text=segment.text[: first - 1])  # fmt: skip
    ErrorAnnotationFactory(
        assignment=assignment, segment=segment, category=repetition, start=first, end=first + 3,
        text=segment.text[first : first + 3], paired_segment=segment, paired_start=0, paired_end=first - 1,
        paired_text=segment.text[: first - 1],
    )  # fmt: skip
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(pk=study.pk), fmt="label-studio", path=out)
    (task,) = json.loads(out.read_text(encoding="utf-8"))
    (annotation,) = task["annotations"]
    regions = {r["id"]: r["value"] for r in annotation["result"] if r["type"] == "labels"}
    (link,) = [r for r in annotation["result"] if r["type"] == "relation"]
    assert link["labels"] == ["RepE"]  # the category's key: its label was not made from it
    # The earlier end is the singleton span's region; the later has a region of the relation's name.
    assert regions[link["to_id"]]["labels"] == [singleton.key] and regions[link["to_id"]]["start"] == 0
    assert regions[link["from_id"]]["labels"] == ["RepE"] and regions[link["from_id"]]["start"] == first
    assert len(regions) == 2


def test_a_relation_the_given_taxonomy_lacks_as_a_paired_category_is_a_problem_and_nothing_is_written(
    tmp_path,
):
    settings = tmp_path / "study.yaml"
    settings.write_text(
        "title: People\ntaxonomy:\n  slug: people\n  name: People\n  version: '1'\n  categories:\n"
        "    - {key: PER, label: Person, kind: singleton}\n    - {key: ORG, label: Organisation}\n"
        "    - {key: LOC, label: Place}\n    - {key: DATE, label: Date}\n"
        "    - {key: WorksFor, label: works_for, kind: paired}\n    - {key: located_in, label: In}\n"
        "    - {key: Hired, label: hired, kind: paired}\n",
        encoding="utf-8",
    )
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(path=DOCCANO, fmt="doccano", slug="given", settings_path=settings)
    assert [str(p) for p in raised.value.problems] == [
        "relations.jsonl:1: document '21', annotator 'alice': link 2 -> 3 is a relation 'located_in', which must "
        "be the key or the label of a paired category of study.yaml (its paired categories: Hired, WorksFor)",
        "relations.jsonl:3: document '22', annotator 'alice': link 7 -> 8 is a relation 'PER', which must be "
        "the key or the label of a paired category of study.yaml (its paired categories: Hired, WorksFor)",
    ]
    assert not Study.objects.exists() and not Assignment.objects.exists()


def test_relations_named_by_a_given_taxonomy_import_into_its_paired_categories_and_export_as_read(tmp_path):
    settings = tmp_path / "study.yaml"
    settings.write_text(
        "title: People\ntaxonomy:\n  slug: people\n  name: People\n  version: '1'\n  categories:\n"
        "    - {key: PER, label: Person}\n    - {key: ORG, label: Organisation}\n"
        "    - {key: LOC, label: Place}\n    - {key: DATE, label: Date}\n"
        "    - {key: WorksFor, label: works_for, kind: paired}\n    - {key: In, label: located_in, kind: paired}\n"
        "    - {key: Hired, label: hired, kind: paired}\n    - {key: Same, label: PER, kind: paired}\n",
        encoding="utf-8",
    )
    study_import_annotations(path=DOCCANO, fmt="doccano", slug="given", settings_path=settings)
    assert ("21", "WorksFor", "Ana Silva", 0, "Acme Corp", 20) in spans_of("given", "alice")
    out = tmp_path / "out.jsonl"
    study_export_annotations(study=Study.objects.get(slug="given"), fmt="doccano", path=out)
    assert doccano_view(out) == doccano_view(DOCCANO)


def test_a_region_in_two_same_label_links_makes_them_relations(tmp_path):
    results = [span(rid="a", needle="Ben", label="RepE"), span(rid="b", needle="Ben", label="RepE", nth=1),
               span(rid="c", needle="Ben", label="RepE", nth=2), relation("b", "a"), relation("c", "a")]  # fmt: skip
    tasks = one_task(results)
    tasks[0]["predictions"] = []
    study_import_annotations(path=write_tasks(tmp_path / "t.json", tasks), fmt="label-studio", slug="t")
    assert categories_of("t") == {"RepE": ("RepE", "singleton", ""), "link": ("link", "paired", "relations")}
    assert [row[1:] for row in spans_of("t", "3")] == [
        ("RepE", "Ben", 9, "", None), ("RepE", "Ben", 23, "", None), ("RepE", "Ben", 34, "", None),
        ("link", "Ben", 23, "Ben", 9), ("link", "Ben", 34, "Ben", 9),
    ]  # fmt: skip
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="t"), fmt="label-studio", path=out)
    assert exported(out) == exported(tmp_path / "t.json")


def test_a_label_the_given_taxonomy_makes_paired_but_the_file_does_not_pair_is_a_problem(tmp_path):
    settings = tmp_path / "study.yaml"
    settings.write_text(
        "title: People\ntaxonomy:\n  slug: people\n  name: People\n  version: '1'\n  categories:\n"
        "    - {key: PER, label: Person, kind: paired}\n    - {key: ORG, label: Organisation}\n"
        "    - {key: LOC, label: Place}\n    - {key: DATE, label: Date}\n"
        "    - {key: works_for, label: works for, kind: paired}\n    - {key: In, label: located_in, kind: paired}\n"
        "    - {key: Hired, label: hired, kind: paired}\n    - {key: Same, label: PER, kind: paired}\n",
        encoding="utf-8",
    )
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(path=DOCCANO, fmt="doccano", slug="given", settings_path=settings)
    assert str(raised.value.problems[0]) == (
        "relations.jsonl:1: document '21', annotator 'alice', region 1: category PER is paired, but the file does "
        "not pair regions labelled 'PER' (each in exactly one link, to a region of the same label); give the "
        "label a singleton category"
    )
    assert not Study.objects.exists() and not Assignment.objects.exists()


def test_a_relation_from_an_earlier_segment_is_stored_the_other_way_round_and_written_back_as_read(tmp_path):
    results = [span(rid="a", needle="Anna", label="Person"), span(rid="b", needle="Ben left", label="Event"),
               {**relation("a", "b"), "labels": ["does"], "direction": "left"}]  # fmt: skip
    tasks = one_task(results)
    tasks[0]["predictions"] = []
    path = write_tasks(tmp_path / "t.json", tasks)
    study_import_annotations(path=path, fmt="label-studio", slug="t", sentences_per_segment=1)
    does = ErrorAnnotation.objects.get(category__key="does")
    assert (does.segment.index, does.text, does.paired_segment.index, does.paired_text) == (
        2,
        "Ben left",
        0,
        "Anna",
    )
    assert does.answers["interop_link"]["source"] == "paired"
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="t"), fmt="label-studio", path=out)
    assert exported(out) == exported(path)
