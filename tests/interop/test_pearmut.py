"""A Pearmut campaign file (its README's campaign format) imported as a translation study: a
document per document and model, a segment per item, sources and references beside them;
what the platform does not take is said; a bad file is named by its items' lines."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from protocols.translation.report import study_report
from studies.models import Document, Study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files" / "pearmut"


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_task_based_esa_campaign_becomes_an_esa_study_of_its_documents():
    out, _ = run(
        "import_annotations", str(FILES / "esa-task-based.json"), "--format", "pearmut", "--slug", "harbour"
    )
    lines = out.splitlines()
    assert lines[0] == "imported harbour: 4 documents, 6 segments"
    assert lines[1:] == [
        "note: esa-task-based.json: data_welcome (tutorial and form items) not imported",
    ]
    study = Study.objects.get(slug="harbour")
    assert (study.protocol, study.title, study.annotators_per_document) == ("esa", "harbour_en-de", 2)
    assert study.instructions == "Mark the errors, then score each paragraph."
    documents = list(study.documents.order_by("position"))
    assert [(d.input_id, d.system) for d in documents] == [
        ("harbour-1_#_0", "lumen-7b"), ("harbour-1_#_0", "tessera"),
        ("orchard-4_#_0", "lumen-7b"), ("orchard-4_#_0", "tessera"),
    ]  # fmt: skip
    first = documents[1]
    assert [s.text for s in first.segments.order_by("index")] == [
        "Das Boot fuhr morgens ab.",
        "Keiner wusste den Namen.",
    ]
    assert first.meta["sources"] == [
        "The ferry left the harbour at dawn.",
        "Nobody on board knew the keeper's name.",
    ]
    assert first.meta["references"][1] == "Niemand an Bord kannte den Namen des Wärters."
    assert "references" not in documents[2].meta
    assert study_report(study)["reason"] == "no submitted work yet"


def test_a_single_stream_da_campaign_and_what_it_leaves_out():
    out, _ = run("import_annotations", str(FILES / "da-single-stream.json"), "--format", "pearmut", "--slug", "lamp",
                 "--option", "title=Lamp, cs-en")  # fmt: skip
    assert out.splitlines() == [
        "imported lamp: 2 documents, 3 segments",
        "note: da-single-stream.json: info.sliders, custom sliders (the study scores segments on its protocol's "
        "scale), not imported",
    ]
    study = Study.objects.get(slug="lamp")
    assert (study.protocol, study.title, study.annotators_per_document) == ("da", "Lamp, cs-en", 1)
    assert list(study.documents.values_list("input_id", "system")) == [
        ("document 1", "orbis"),
        ("document 2", "orbis"),
    ]


def test_a_bad_campaign_names_each_items_line_and_writes_nothing():
    err = StringIO()
    with pytest.raises(CommandError, match=r"3 problem\(s\); nothing was imported"):
        call_command("import_annotations", str(FILES / "mqm-broken.json"), "--format", "pearmut", "--slug", "broken",
                     stderr=err)  # fmt: skip
    assert err.getvalue().splitlines() == [
        "mqm-broken.json:7: task 1, document 1: its items translate by different models (m1, m2); every item of a "
        "document has every model's translation",
        'mqm-broken.json:11: task 1, document 2, item 1: "tgt" must map each model to its translation',
        "mqm-broken.json:1: an MQM campaign imports with its info.mqm_categories (Pearmut's default taxonomy is not "
        "documented, so it is not guessed)",
    ]
    assert not Study.objects.exists() and not Document.objects.exists()


def test_an_mqm_campaign_with_its_categories_gets_them_as_its_taxonomy(tmp_path):
    campaign = {
        "info": {"protocol": "MQM", "mqm_categories": {"": [], "Accuracy": ["Mistranslation", "Omission"],
                                                        "Style": [], "Non-translation": []},
                 "mqm_severities": ["minor", "major"]},
        "campaign_id": "mqm-demo",
        "data": [[[{"item_id": "x-0", "src": "Ja.", "tgt": {"m1": "Yes."}}]]],
    }  # fmt: skip
    path = tmp_path / "mqm.json"
    path.write_text(json.dumps(campaign), encoding="utf-8")
    run("import_annotations", str(path), "--format", "pearmut", "--slug", "mqm-demo")
    study = Study.objects.get(slug="mqm-demo")
    assert study.protocol == "mqm" and study.config == {"severities": ["Minor", "Major"]}
    categories = list(study.taxonomy.categories.values_list("label", "whole_sentence"))
    assert categories == [("Accuracy/Mistranslation", False), ("Accuracy/Omission", False), ("Style", False),
                          ("Non-translation", True)]  # fmt: skip


def test_a_campaign_of_another_protocol_and_the_export_are_refused(tmp_path):
    path = tmp_path / "cesa.json"
    path.write_text(
        json.dumps({"info": {"protocol": "cESA"}, "campaign_id": "c", "data": []}), encoding="utf-8"
    )
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_annotations", str(path), "--format", "pearmut", "--slug", "c", stderr=err)
    assert err.getvalue().splitlines() == [
        "cesa.json:1: protocol 'cESA': the platform's translation studies are DA, ESA, MQM"
    ]
    run("import_annotations", str(FILES / "da-single-stream.json"), "--format", "pearmut", "--slug", "lamp")
    with pytest.raises(CommandError, match="format 'pearmut' cannot be exported"):
        call_command("export_annotations", "lamp", str(tmp_path / "out.json"), "--format", "pearmut")
