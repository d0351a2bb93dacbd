"""A translation study in the console's new-study flow: documents uploaded as CSV or JSON Lines
(sources and references beside the segments, every problem named by line and nothing added),
the protocol's settings (MQM severities and cap, ESA warnings, DA scale, the reference), preview
and launch, and the Design tab's facts."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from studies.models import Study

pytestmark = pytest.mark.django_db

CSV = """doc_id,system,source,target,reference
news-1,sysA,Der Hund bellt.,The dog barks.,The dog is barking.
news-1,sysA,Es regnet.,It rains.,It is raining.
news-1,sysB,Der Hund bellt.,The dog barked.,The dog is barking.
news-1,sysB,Es regnet.,Rain.,It is raining.
news-2,sysA,"Guten Morgen,
sagte sie.","Good morning,
she said.",
"""
JSONL = (
    '{"doc_id": "news-1", "system": "sysA", "source_lang": "de", "target_lang": "en", "segments": '
    '[{"source": "Der Hund bellt.", "target": "The dog barks."}, {"source": "Es regnet.", "target": "It rains."}]}\n'
    "\n"
    '{"doc_id": "news-1", "system": "sysB", "segments": [{"source": "Der Hund bellt.", "target": "Dog.", '
    '"reference": "The dog is barking."}, {"source": "Es regnet.", "target": "Rain."}]}\n'
)


@pytest.fixture
def client(researcher):
    client = Client()
    client.force_login(researcher)
    return client


def new_study(client, protocol, title=None):
    title = title or f"A {protocol} study"
    client.post(reverse("console:new"), {"title": title, "protocol": protocol})
    return Study.objects.get(title=title)


def upload(client, study, name, content):
    return client.post(
        reverse("console:documents", args=[study.pk]),
        {"files": SimpleUploadedFile(name, content.encode() if isinstance(content, str) else content)},
    )


def documents_of(study):
    return [
        (d.external_id, d.input_id, d.system, [s.text for s in d.segments.order_by("index")], d.meta)
        for d in study.documents.order_by("position")
    ]


def test_a_csv_becomes_one_document_per_source_document_and_system(client):
    study = new_study(client, "mqm")
    response = upload(client, study, "news.csv", CSV)
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert response.url == reverse("console:categories", args=[study.pk])
    assert documents_of(study) == [
        ("news-1#sysA", "news-1", "sysA", ["The dog barks.", "It rains."],
         {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", "It is raining."]}),
        ("news-1#sysB", "news-1", "sysB", ["The dog barked.", "Rain."],
         {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", "It is raining."]}),
        ("news-2#sysA", "news-2", "sysA", ["Good morning,\nshe said."], {"sources": ["Guten Morgen,\nsagte sie."]}),
    ]  # fmt: skip


def test_seg_id_orders_a_documents_segments(client):
    study = new_study(client, "da")
    table = "seg_id,doc_id,system,source,target\n2,d,s,Zwei.,Two.\n1,d,s,Eins.,One.\n3,d,s,Drei.,Three.\n"
    assert upload(client, study, "table.csv", table).status_code == 302
    assert documents_of(study)[0][3] == ["One.", "Two.", "Three."]
    assert documents_of(study)[0][4]["sources"] == ["Eins.", "Zwei.", "Drei."]


def test_json_lines_give_the_same_documents_with_languages(client):
    study = new_study(client, "esa")
    assert upload(client, study, "news.jsonl", JSONL).status_code == 302
    assert documents_of(study) == [
        ("news-1#sysA", "news-1", "sysA", ["The dog barks.", "It rains."],
         {"sources": ["Der Hund bellt.", "Es regnet."], "source_lang": "de", "target_lang": "en"}),
        ("news-1#sysB", "news-1", "sysB", ["Dog.", "Rain."],
         {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", ""]}),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "content", "problems"),
    [
        ("t.csv", "doc_id,system,source\nd,s,Eins.\n",
         ["t.csv:1: no column target: the header row needs doc_id, system, source, target"]),
        ("t.csv", "doc_id,system,source,target,score\nd,s,Eins.,One.,3\n", ["t.csv:1: unknown column(s) score"]),
        ("t.csv", "doc_id,system,source,target\nd,s,Eins.,One.\nd,s,Zwei.,\n,s,Drei.,Three.\nd,s,Vier.,Four.,x\n",
         ["t.csv:3: the target is empty", "t.csv:4: the doc_id is empty",
          "t.csv:5: 5 cells, but the header has 4 columns"]),
        ("t.csv", 'doc_id,system,source,target\nd,s,"Eins\nund zwei.",\nd,s,Drei.,Three.\n',
         ["t.csv:2: the target is empty"]),  # a quoted cell over two lines: the row starts on line 2
        ("t.csv", "doc_id,system,source,target,seg_id\nd,s,Eins.,One.,1\nd,s,Zwei.,Two.,x\nd,s,Drei.,Three.,1\n",
         ["t.csv:3: seg_id 'x' is not a whole number", "t.csv:4: seg_id 1 of doc_id 'd', system 's' is already on line 2"]),
        ("t.csv", "doc_id,system,source,target\nd,A,Eins.,One.\nd,A,Zwei.,Two.\nd,B,Eins.,One.\n",
         ["t.csv:4: doc_id 'd', system 'B' has 1 segments, system 'A' (line 2) has 2"]),
        ("t.csv", "doc_id,system,source,target\nd,A,Eins.,One.\nd,B,Ein.,One.\n",
         ["t.csv:3: doc_id 'd', system 'B': the source of segment 0 is not the one system 'A' (line 2) translates"]),
        ("t.csv", b"doc_id,system,source,target\nd,s,\xff,x\n", ["t.csv:0: not UTF-8 text"]),
        ("t.csv", "doc_id,system,source,target\n", ["t.csv:0: no translations in it"]),
        ("t.csv", "doc_id,system,source,target\nd,s,Eins.,O\x00ne.\n", ["t.csv:2: ", "NUL"]),
        ("t.jsonl", '{"doc_id": "d", "system": "s", "segments": [{"source": "Eins.", "target": "One."}]}\n'
                    '{"doc_id": "d", "system": "s", "segments": [{"source": "Eins.", "target": "Two."}]}\n'
                    '{"doc_id": "e", "segments": [{"source": "Eins.", "target": "One."}]}\n'
                    '{"doc_id": "f", "system": "s", "segments": [{"source": "Eins."}]}\n'
                    '{"doc_id": "g", "system": "s", "segments": [{"source": "Eins.", "target": "One.", "ref": ""}]}\n'
                    '{"doc_id": "h", "system": "s", "segments": []}\n'
                    '{"doc_id": "i", "system": "s", "segmnts": []}\n'
                    '{"doc_id": "j", "system": "s", "segments": [{"source": "A", "target": "B"}]\n',
         ["t.jsonl:2: doc_id 'd', system 's' is already on line 1", "t.jsonl:3: 'system' is required",
          "t.jsonl:4: segment 0: the target is empty", 't.jsonl:5: segment 0: give {"source", "target"}',
          "t.jsonl:6: 'segments' must be a non-empty list", "t.jsonl:7: unknown field 'segmnts'",
          "t.jsonl:8: invalid JSON"]),
        ("t.txt", "Der Hund bellt.", ["t.txt:0: give a .csv or .jsonl file"]),
    ],
)  # fmt: skip
def test_a_malformed_file_names_each_problem_by_line_and_adds_nothing(client, name, content, problems):
    study = new_study(client, "esa")
    response = upload(client, study, name, content)
    assert response.status_code == 200
    page = response.content.decode()
    for problem in problems:
        assert problem.replace("'", "&#x27;").replace('"', "&quot;") in page, (problem, page[-3000:])
    assert "Nothing was added" in page and study.documents.count() == 0


def test_pasted_text_is_not_offered_for_a_translation_study(client):
    study = new_study(client, "mqm")
    page = client.get(reverse("console:documents", args=[study.pk])).content.decode()
    assert (
        'name="text"' not in page
        and 'accept=".csv,.jsonl"' in page
        and "doc_id, system, source, target" in page
    )
    response = client.post(reverse("console:documents", args=[study.pk]), {"text": "Der Hund bellt."})
    assert response.status_code == 200 and "Choose a file." in response.content.decode()
    assert study.documents.count() == 0


def test_an_mqm_study_takes_mqm_core_with_severities_and_a_cap(client):
    study = new_study(client, "mqm")
    upload(client, study, "news.csv", CSV)
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert page.index('value="mqm-core"') < page.index('value="snac"')  # MQM core first, and chosen
    assert 'value="mqm-core" checked' in page
    response = client.post(
        reverse("console:categories", args=[study.pk]),
        {"source": "mqm-core", "settings-neutral": "on", "settings-critical": "on", "settings-critical_weight": "10",
         "settings-max_errors": "4", "settings-show_reference": "on"},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[-3000:]
    study.refresh_from_db()
    assert study.taxonomy.slug == "mqm-core" and study.taxonomy.version == "2"
    whole = study.taxonomy.categories.get(label="Non-translation")
    assert whole.whole_sentence and whole.shortcut == "k"
    assert study.config["severities"] == ["Neutral", "Minor", "Major", "Critical"]
    assert study.config["weights"] == {"severities": {"Neutral": 0, "Minor": 1, "Major": 5, "Critical": 10.0}}
    assert study.config["max_errors_per_segment"] == 4 and study.config["show_reference"] is True

    # Again without Critical or a cap: both leave the config, the other weights stay.
    client.post(reverse("console:categories", args=[study.pk]),
                {"source": "mqm-core", "settings-neutral": "on", "settings-max_errors": ""})  # fmt: skip
    study.refresh_from_db()
    assert study.config["severities"] == ["Neutral", "Minor", "Major"]
    assert (
        "Critical" not in study.config["weights"]["severities"]
        and "max_errors_per_segment" not in study.config
    )
    assert study.config["show_reference"] is False


def test_mqm_settings_refuse_critical_without_a_weight_and_a_reference_no_document_has(client):
    study = new_study(client, "mqm")
    upload(client, study, "news.jsonl", JSONL.splitlines()[0] + "\n")  # no reference
    response = client.post(
        reverse("console:categories", args=[study.pk]),
        {"source": "mqm-core", "settings-critical": "on", "settings-critical_weight": "",
         "settings-show_reference": "on", "settings-max_errors": "0"},
    )  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 200
    assert (
        "Give Critical errors a weight" in page
        and "None of the study&#x27;s documents has a reference" in page
    )
    assert "greater than or equal to 1" in page
    study.refresh_from_db()
    assert (
        study.taxonomy_id is None and "severities" not in study.config
    )  # neither the taxonomy nor the settings


def test_the_mqm_cap_starts_at_five(client):
    study = new_study(client, "mqm")
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert 'name="settings-max_errors" value="5"' in page


def test_esa_sets_its_score_warnings(client):
    study = new_study(client, "esa")
    upload(client, study, "news.csv", CSV)
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert "<h2>Scores</h2>" in page and 'value="33"' in page and 'value="66"' in page
    bad = client.post(reverse("console:categories", args=[study.pk]),
                      {"settings-warn_low": "70", "settings-warn_high": "40"})  # fmt: skip
    assert "The upper threshold must be above the lower one." in bad.content.decode()
    response = client.post(
        reverse("console:categories", args=[study.pk]),
        {"settings-warn_low": "25", "settings-warn_high": "75", "settings-show_reference": "on"},
    )
    assert response.url == reverse("console:annotators", args=[study.pk])
    study.refresh_from_db()
    assert (
        study.config["score_warnings"] == {"low": 25, "high": 75} and study.config["show_reference"] is True
    )
    assert "categories" in study.config["setup"]["done"]


@pytest.mark.parametrize(
    ("choice", "scale"),
    [("slider", {"min": 0, "max": 100}), ("sqm", {"min": 0, "max": 6})],
)
def test_da_chooses_a_slider_or_sqm(client, choice, scale):
    study = new_study(client, "da", f"DA {choice}")
    upload(client, study, "news.csv", CSV)
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert "<legend>Workers score each segment on</legend>" in page
    response = client.post(reverse("console:categories", args=[study.pk]), {"settings-scale": choice})
    assert response.status_code == 302
    study.refresh_from_db()
    assert {key: study.config["scale"][key] for key in ("min", "max")} == scale
    if choice == "sqm":
        assert study.config["scale"]["labels"]["6"] == "Perfect meaning and grammar"
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert (
        f'value="{choice}" id="id_settings-scale_{0 if choice == "slider" else 1}" required checked' in page
    )


@pytest.mark.parametrize("protocol", ["mqm", "esa", "da"])
def test_a_translation_study_is_previewed_and_launched_with_task_links(client, protocol):
    study = new_study(client, protocol)
    upload(client, study, "news.csv", CSV)
    settings = {"mqm": {"source": "mqm-core", "settings-neutral": "on", "settings-max_errors": "5"},
                "esa": {"settings-warn_low": "33", "settings-warn_high": "66"},
                "da": {"settings-scale": "slider"}}[protocol]  # fmt: skip
    assert client.post(reverse("console:categories", args=[study.pk]), settings).status_code == 302
    client.post(reverse("console:annotators", args=[study.pk]), {"annotators_per_document": 2})
    preview = client.post(reverse("console:preview", args=[study.pk]))
    assert preview.status_code == 302 and preview.url.startswith("/task/")
    page = client.get(preview.url, follow=True)
    assert page.status_code == 200
    response = client.post(
        reverse("console:launch", args=[study.pk]), {"stage": "main", "workers": "ana, ben"}
    )
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.status == "open"
    assert Assignment.objects.filter(study=study).count() == 6  # 3 documents x 2 people, no preview task

    design = client.get(reverse("console:study", args=[study.pk]) + "?tab=design").content.decode()
    expected = {"mqm": "Neutral (0), Minor (1), Major (5)", "esa": "below 33 with no error, above 66 with a Major error",
                "da": "0 to 100"}[protocol]  # fmt: skip
    assert expected in design and "Reference shown" in design


def test_a_contrastive_study_gets_a_block_per_source_document(client):
    study = new_study(client, "contrastive-esa")
    assert upload(client, study, "news.csv", CSV).status_code == 302
    assert [(d.external_id, d.block) for d in study.documents.order_by("position")] == [
        ("news-1#sysA", "news-1"), ("news-1#sysB", "news-1"), ("news-2#sysA", "news-2")
    ]  # fmt: skip
    response = client.post(reverse("console:categories", args=[study.pk]),
                           {"settings-warn_low": "33", "settings-warn_high": "66"})  # fmt: skip
    assert response.status_code == 302
    client.post(reverse("console:annotators", args=[study.pk]), {"annotators_per_document": 2})
    client.post(reverse("console:launch", args=[study.pk]), {"stage": "main", "workers": "ana, ben"})
    assignments = Assignment.objects.filter(study=study)
    assert sorted(assignments.values_list("block", flat=True)) == ["news-1", "news-1", "news-2", "news-2"]
    design = client.get(reverse("console:study", args=[study.pk]) + "?tab=design").content.decode()
    assert "side by side, in an order shuffled per worker" in design


def test_settings_are_checked_as_study_yaml_checks_them_before_they_are_stored(client):
    from console.services import SetupRefused, study_set_settings

    study = new_study(client, "esa")
    with pytest.raises(SetupRefused, match="config.score_warnings.low: must be a number from 0 to 100"):
        study_set_settings(study=study, config={"score_warnings": {"low": 120, "high": 66}})
    study.refresh_from_db()
    assert "score_warnings" not in study.config
