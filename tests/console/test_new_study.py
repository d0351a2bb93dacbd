"""The researcher console's new-study flow, as a researcher goes through it: from nothing to a
launched span study with task links in six page steps, no file written by hand."""

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership
from annotations.models import Assignment
from studies.models import Study

pytestmark = pytest.mark.django_db

TEXTS = """The lighthouse keeper counted ships. Rosalie tore up the letter.

The storm came at night. The the lamp went out.
---
Marguerite sold the orchard. After the incident at the customs house, nobody spoke.

Years later the harbour was quiet."""


def test_a_span_study_from_nothing_to_task_links_in_six_page_steps(client, researcher):
    steps = 0
    response = client.post(reverse("console:new"), {"title": "Coherence pilot", "protocol": "span"})
    steps += 1
    study = Study.objects.get(title="Coherence pilot")
    assert response.url == reverse("console:documents", args=[study.pk])
    assert study.status == "draft" and StudyMembership.objects.filter(study=study, user=researcher).exists()

    response = client.post(response.url, {"text": TEXTS})
    steps += 1
    assert response.status_code == 302, response.content.decode()[:2000]
    assert [(d.external_id, d.segments.count()) for d in study.documents.order_by("position")] == [
        ("text-1", 2), ("text-2", 2)
    ]  # fmt: skip

    response = client.post(response.url, {"source": "snac"})
    steps += 1
    study.refresh_from_db()
    assert study.taxonomy.slug == "snac" and study.taxonomy.categories.count() == 7

    response = client.post(response.url, {"annotators_per_document": 2, "instructions": "Mark the errors."})
    steps += 1
    assert response.url == reverse("console:preview", args=[study.pk])

    preview = client.post(response.url)  # the preview: the real task page of the researcher's own task
    steps += 1
    assert preview.status_code == 302 and preview.url.startswith("/task/")
    assert client.get(preview.url).status_code == 200

    response = client.post(
        reverse("console:launch", args=[study.pk]), {"stage": "pilot", "workers": "ana, ben\ncleo"}
    )
    steps += 1
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.status == "open" and study.config["stage"] == "pilot"
    links = Assignment.objects.filter(study=study)
    assert sorted(set(links.values_list("worker__external_id", flat=True))) == ["ana", "ben", "cleo"]
    assert links.count() == 4  # 2 documents x 2 annotators; the preview task is gone
    assert steps == 6

    page = client.get(response.url).content.decode()
    assert "Join link" in page and links.first().token in page


def test_categories_written_in_place_get_keys_colours_and_free_shortcuts(client, researcher):
    client.post(reverse("console:new"), {"title": "Own categories", "protocol": "span"})
    study = Study.objects.get(title="Own categories")
    client.post(reverse("console:documents", args=[study.pk]), {"text": "One text.\n\nTwo."})
    written = (
        "Number error: a wrong number\nName error\nRepetition (paired): repeats earlier text\nNumber error"
    )
    response = client.post(
        reverse("console:categories", args=[study.pk]), {"source": "written", "written": written}
    )
    assert response.status_code == 302
    categories = list(Study.objects.get(pk=study.pk).taxonomy.categories.order_by("order"))
    assert [(c.key, c.label, c.kind) for c in categories] == [
        ("NumberError", "Number error", "singleton"), ("NameError", "Name error", "singleton"),
        ("Repetition", "Repetition", "paired"), ("NumberError2", "Number error", "singleton"),
    ]  # fmt: skip
    shortcuts = [c.shortcut for c in categories]
    assert all(shortcuts) and len(set(shortcuts)) == 4 and not set(shortcuts) & set("npaxgju")
    assert len({c.color for c in categories}) == 4


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("texts.csv", b"id,text,system\nd1,\"First para.\n\nSecond para.\",sysA\nd2,Only one.,sysB\n",
         [("d1", 2, "sysA"), ("d2", 1, "sysB")]),
        ("story.txt", b"Para one.\n\nPara two.\n\nPara three.", [("story-1", 3, "")]),
        ("documents.jsonl", b'{"id": "j1", "segments": ["A.", "B."], "system": "s"}\n', [("j1", 2, "s")]),
    ],
)  # fmt: skip
def test_documents_are_uploaded_as_txt_csv_or_jsonl(client, name, content, expected):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.post(reverse("console:new"), {"title": f"Upload {name}", "protocol": "span"})
    study = Study.objects.get(title=f"Upload {name}")
    response = client.post(
        reverse("console:documents", args=[study.pk]), {"files": SimpleUploadedFile(name, content)}
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert [
        (d.external_id, d.segments.count(), d.system) for d in study.documents.order_by("position")
    ] == expected


def test_a_bad_file_names_file_line_and_problem_and_adds_nothing(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.post(reverse("console:new"), {"title": "Bad upload", "protocol": "span"})
    study = Study.objects.get(title="Bad upload")
    bad = SimpleUploadedFile("texts.csv", b"id,text\nd1,Fine.\nd2,\n")
    page = client.post(reverse("console:documents", args=[study.pk]), {"files": bad, "text": "A pasted one."})
    assert page.status_code == 200
    assert "texts.csv:3: the text is empty: a document needs text" in page.content.decode()
    assert study.documents.count() == 0  # the pasted text was not added either


def test_only_the_studys_researchers_set_it_up(client, researcher, other_researcher):
    client.post(reverse("console:new"), {"title": "Mine", "protocol": "span"})
    study = Study.objects.get(title="Mine")
    from accounts.services import researcher_create

    analyst = researcher_create(username="analyst-c", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    for user, code in ((other_researcher, 404), (analyst, 403)):
        other = Client()
        other.force_login(user)
        for name in ("documents", "categories", "annotators", "preview", "launch"):
            assert other.post(reverse(f"console:{name}", args=[study.pk]), {"text": "x"}).status_code == code
    assert study.documents.count() == 0 and Study.objects.get(pk=study.pk).status == "draft"
    assert Client().get(reverse("console:home")).status_code == 302  # anonymous: to the login page


@pytest.mark.parametrize(
    ("protocol", "scale", "config"),
    [
        ("likert", {"low": 1, "high": 7}, {"scale": {"min": 1, "max": 7}}),
        ("bws", {"tuple_size": 3}, {"tuple_size": 3}),
        ("pairwise", {}, {}),
    ],
)
def test_a_rating_study_sets_its_scale_instead_of_categories(client, protocol, scale, config):
    client.post(reverse("console:new"), {"title": f"A {protocol} study", "protocol": protocol})
    study = Study.objects.get(title=f"A {protocol} study")
    texts = "\n---\n".join(f"Output {n}." for n in range(4))
    assert client.post(reverse("console:documents", args=[study.pk]), {"text": texts}).status_code == 302
    assert set(study.documents.values_list("block", flat=True)) == {"1"}  # one block of every document
    page = client.get(reverse("console:categories", args=[study.pk])).content.decode()
    assert "Start from" not in page  # no taxonomy for a rating study
    response = client.post(reverse("console:categories", args=[study.pk]), scale)
    assert response.url == reverse("console:annotators", args=[study.pk])
    study.refresh_from_db()
    assert {key: study.config[key] for key in config} == config
    client.post(response.url, {"annotators_per_document": 2})
    client.post(reverse("console:launch", args=[study.pk]), {"stage": "main", "workers": "ana\nben"})
    study.refresh_from_db()
    assert (
        study.status == "open" and Assignment.objects.filter(study=study).count() == 2
    )  # one block, two people


@pytest.mark.parametrize(
    ("name", "fmt"), [("label-studio-export.json", "label-studio"), ("doccano/alice.jsonl", "doccano")]
)
def test_another_tools_export_gives_its_texts_as_documents(client, name, fmt):
    """The texts of a Label Studio or doccano export, cut into segments as an annotations import
    cuts them; its annotations stay out (a study of their own is the import's job)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from interop.documents import texts_of

    path = Path(__file__).resolve().parents[1] / "interop" / "files" / name
    client.post(reverse("console:new"), {"title": f"From {fmt}", "protocol": "span"})
    study = Study.objects.get(title=f"From {fmt}")
    response = client.post(
        reverse("console:documents", args=[study.pk]),
        {"files": SimpleUploadedFile(path.name, path.read_bytes()), "file_format": fmt},
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    expected = list(texts_of(path, path.name, fmt))
    documents = list(study.documents.order_by("position"))
    assert [d.external_id for d in documents] == [document["id"] for _, document in expected]
    for document, (_, read) in zip(documents, expected, strict=True):
        assert [s.text for s in document.segments.order_by("index")] == read["segments"]
        assert "".join(read["segments"]).strip()
    assert not study.assignments.exists()


def test_a_bad_export_names_the_tools_item_and_adds_nothing(client, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.post(reverse("console:new"), {"title": "Bad export", "protocol": "span"})
    study = Study.objects.get(title="Bad export")
    export = b'[{"id": 1, "data": {"text": "Fine text."}}, {"id": 2, "data": {"text": "   "}}]'
    page = client.post(
        reverse("console:documents", args=[study.pk]),
        {"files": SimpleUploadedFile("export.json", export), "file_format": "label-studio"},
    ).content.decode()
    assert "export.json" in page and "task 2" in page and "the text is empty" in page
    assert study.documents.count() == 0


def test_every_format_interop_reads_can_give_documents():
    from interop.documents import TEXT_FORMATS
    from interop.formats.registry import EXPORT_ONLY, TRANSLATION, names

    # A translation format's file is a study of its own (an MQM TSV: a rated MQM campaign).
    assert set(TEXT_FORMATS) == set(names()) - EXPORT_ONLY - set(TRANSLATION)
