"""Uploads in admin: a whole study bundle (.zip) and a documents file into a study."""

import io
import json
import tempfile
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import StudyMembership
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from studies.models import Document, Study
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

IMPORT_URL = "admin:studies_study_import"

STUDY_YAML = """\
slug: uploaded
title: Uploaded study
protocol: span
annotators_per_document: 2
taxonomy:
  slug: uploaded-taxonomy
  name: Uploaded taxonomy
  categories:
    - {key: CharE, label: New character, group: coherence, kind: singleton, shortcut: c}
    - {key: RepE, label: Repetition, group: language, kind: paired}
"""

DOCUMENTS = [
    {"id": "d1", "segments": ["Anna met Ben. They talked.", "Rosalie left the mill."]},
    {"id": "d2", "segments": ["A second text."], "system": "sysB"},
]

ASSIGNMENTS = [
    {
        "document": "d1",
        "annotator": "w17",
        "annotations": [{"segment": 1, "category": "CharE", "start": 0, "end": 7, "text": "Rosalie"}],
    },
]


def login(client, user):
    client.force_login(user)


def jsonl(rows):
    return "".join(json.dumps(row) + "\n" for row in rows)


def make_zip(files, folder=""):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(folder + name, text)
    return buffer.getvalue()


def bundle_files(**overrides):
    files = {
        "study.yaml": STUDY_YAML,
        "documents.jsonl": jsonl(DOCUMENTS),
        "assignments.jsonl": jsonl(ASSIGNMENTS),
    }
    return {**files, **overrides}


def upload_bundle(client, content, name="bundle.zip", locate=False):
    data = {"bundle": SimpleUploadedFile(name, content, content_type="application/zip")}
    if locate:
        data["locate"] = "on"
    return client.post(reverse(IMPORT_URL), data)


# Bundles -------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["", "snac-books/"])
def test_valid_bundle_creates_the_study_and_its_uploader_runs_it(client, researcher, folder):
    login(client, researcher)

    response = upload_bundle(client, make_zip(bundle_files(), folder=folder))

    study = Study.objects.get(slug="uploaded")
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:studies_study_change", args=[study.pk])
    assert sorted(study.documents.values_list("external_id", flat=True)) == ["d1", "d2"]
    assert study.documents.get(external_id="d1").segments.count() == 2
    assert Assignment.objects.filter(study=study).count() == 1
    assert ErrorAnnotation.objects.get().text == "Rosalie"
    assert StudyMembership.objects.get(study=study).user == researcher
    page = client.get(response["Location"]).content.decode()
    assert "uploaded: 2 documents, 3 segments, 1 assignments, 1 annotations" in page


def test_archiver_litter_is_ignored(client, researcher):
    files = {**bundle_files(), "__MACOSX/._study.yaml": "junk", ".DS_Store": "junk"}
    login(client, researcher)

    response = upload_bundle(client, make_zip(files))

    assert response.status_code == 302
    assert Study.objects.filter(slug="uploaded").exists()


def test_changelist_offers_the_bundle_import(client, researcher):
    login(client, researcher)

    page = client.get(reverse("admin:studies_study_changelist")).content.decode()

    assert reverse(IMPORT_URL) in page
    assert "Import study bundle" in page


def test_spans_given_by_text_are_located_when_asked(client, researcher):
    by_text = [
        {
            "document": "d1",
            "annotator": "w1",
            "annotations": [{"segment": 1, "category": "CharE", "text": "mill"}],
        }
    ]
    login(client, researcher)
    files = bundle_files(**{"assignments.jsonl": jsonl(by_text)})

    refused = upload_bundle(client, make_zip(files))
    located = upload_bundle(client, make_zip(files), locate=True)

    assert "no start/end offsets" in refused.content.decode()
    assert located.status_code == 302
    annotation = ErrorAnnotation.objects.get()
    assert (annotation.start, annotation.end) == (17, 21)


def test_invalid_bundle_lists_every_problem_and_writes_nothing(client, researcher):
    documents = [*DOCUMENTS, {"id": "d1", "segments": ["Again d1."]}]
    assignments = [
        {
            "document": "d2",
            "annotator": "w1",
            "annotations": [{"segment": 0, "category": "NoSuchE", "start": 0, "end": 1}],
        }
    ]
    files = bundle_files(**{"documents.jsonl": jsonl(documents), "assignments.jsonl": jsonl(assignments)})
    login(client, researcher)
    studies_before, documents_before = Study.objects.count(), Document.objects.count()

    response = upload_bundle(client, make_zip(files))

    page = response.content.decode()
    assert response.status_code == 200
    assert "documents.jsonl:3: duplicate document id &#x27;d1&#x27; (first on line 1)" in page
    assert "assignments.jsonl:1: " in page and "unknown category &#x27;NoSuchE&#x27;" in page
    assert "2 problems found" in page
    assert Study.objects.count() == studies_before
    assert Document.objects.count() == documents_before
    assert not Assignment.objects.exists()


def test_problem_messages_are_escaped(client, researcher):
    documents = [{"id": "<script>alert(1)</script>", "segments": [""]}]
    login(client, researcher)

    page = upload_bundle(
        client, make_zip(bundle_files(**{"documents.jsonl": jsonl(documents)}))
    ).content.decode()

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page


@pytest.mark.parametrize("name", ["../evil", "bundle/../../evil", "/etc/evil", "C:/evil", "..\\evil"])
def test_zip_with_a_member_outside_the_bundle_is_refused(client, researcher, name):
    login(client, researcher)
    files = {**bundle_files(), name: "owned"}

    response = upload_bundle(client, make_zip(files))

    page = response.content.decode()
    assert response.status_code == 200
    assert "refused" in page
    assert not Study.objects.filter(slug="uploaded").exists()
    assert not (Path(tempfile.gettempdir()) / "evil").exists()


def test_zip_that_unpacks_too_large_is_refused(client, researcher, settings):
    settings.BUNDLE_MAX_FILE_BYTES = 1000
    login(client, researcher)
    files = bundle_files(**{"padding.txt": "x" * 5000})  # compresses to a few bytes

    page = upload_bundle(client, make_zip(files)).content.decode()

    assert "refused: the zip unpacks to more than 4,000 bytes" in page
    assert not Study.objects.exists()


def test_not_a_zip_is_refused(client, researcher):
    login(client, researcher)

    page = upload_bundle(client, b"this is not a zip").content.decode()

    assert "not a zip file" in page
    assert not Study.objects.exists()


def test_bundle_import_needs_the_add_permission(client, db):
    from tests.factories import UserFactory

    staff = UserFactory(is_staff=True)
    login(client, staff)

    assert client.get(reverse(IMPORT_URL)).status_code == 403
    assert upload_bundle(client, make_zip(bundle_files())).status_code == 403
    assert not Study.objects.exists()


# Documents into an existing study -----------------------------------------


def add_documents_url(study):
    return reverse("admin:studies_study_add_documents", args=[study.pk])


def upload_documents(client, study, name, text):
    upload = SimpleUploadedFile(name, text.encode(), content_type="application/octet-stream")
    return client.post(add_documents_url(study), {"documents": upload})


def test_falte_json_adds_a_document_of_paragraph_segments(client, researcher):
    study = make_span_study(researcher=researcher, documents=1)
    login(client, researcher)

    response = upload_documents(
        client, study, "documents.json", json.dumps({"d1": ["para one.", "para two."]})
    )

    assert response.status_code == 302
    document = study.documents.get(external_id="d1")
    assert list(document.segments.order_by("index").values_list("text", flat=True)) == [
        "para one.",
        "para two.",
    ]


def test_jsonl_with_an_empty_segment_shows_its_line_and_adds_nothing(client, researcher):
    study = make_span_study(researcher=researcher, documents=1)
    rows = [{"id": "good", "segments": ["Fine text."]}, {"id": "bad", "segments": ["Fine.", "  "]}]
    login(client, researcher)

    response = upload_documents(client, study, "documents.jsonl", jsonl(rows))

    page = response.content.decode()
    assert response.status_code == 200
    assert "documents.jsonl:2: document &#x27;bad&#x27;: segment 1 is empty" in page
    assert study.documents.count() == 1


def test_documents_file_must_be_jsonl_or_json(client, researcher):
    study = make_span_study(researcher=researcher, documents=1)
    login(client, researcher)

    page = upload_documents(client, study, "documents.csv", "id,text\n").content.decode()

    assert "must end in .jsonl" in page
    assert study.documents.count() == 1


def test_documents_cannot_be_added_to_a_study_the_user_does_not_manage(client, researcher, other_researcher):
    theirs = make_span_study(researcher=other_researcher, documents=1)
    shared = make_span_study(researcher=other_researcher, documents=1)
    StudyMembership.objects.create(study=shared, user=researcher, role=StudyMembership.Role.ANALYST)
    login(client, researcher)
    body = jsonl([{"id": "sneaky", "segments": ["Text."]}])

    assert upload_documents(client, theirs, "documents.jsonl", body).status_code == 404
    assert upload_documents(client, shared, "documents.jsonl", body).status_code == 403
    assert not Document.objects.filter(external_id="sneaky").exists()


def test_study_change_page_links_to_its_tools(client, researcher):
    study = make_span_study(researcher=researcher, documents=1)
    login(client, researcher)

    page = client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()

    assert add_documents_url(study) in page
    assert reverse("admin:studies_study_generate_assignments", args=[study.pk]) in page
