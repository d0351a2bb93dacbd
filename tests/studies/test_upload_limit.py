"""Admin uploads over BUNDLE_WEB_MAX_BYTES are refused before any work, pointing to the command line."""

import json
import secrets
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from studies.models import Document, Study
from tests.factories import make_span_study
from tests.studies.test_admin_upload import bundle_files, make_zip

pytestmark = pytest.mark.django_db

COMMAND_HINT = "python manage.py import_study DIR"


def import_url():
    return reverse("admin:studies_study_import")


def big_documents(count):
    return "".join(json.dumps({"id": f"d{n}", "segments": ["Anna met Ben at the mill. " * 20]}) + "\n"
                   for n in range(count))  # fmt: skip


@override_settings(BUNDLE_WEB_MAX_BYTES=2000)
def test_a_bundle_over_the_web_limit_is_refused_before_it_is_unpacked(client, researcher):
    content = make_zip(bundle_files(**{"documents.jsonl": secrets.token_hex(4000)}))  # hardly compresses
    assert len(content) > 2000
    client.force_login(researcher)

    with mock.patch("studies.admin.study_views.extract_bundle") as extract:
        response = client.post(
            import_url(), {"bundle": SimpleUploadedFile("big.zip", content, content_type="application/zip")}
        )

    page = response.content.decode()
    assert response.status_code == 200
    assert COMMAND_HINT in page and "2,000 bytes" in page
    extract.assert_not_called()
    assert not Study.objects.exists()


@override_settings(BUNDLE_WEB_MAX_BYTES=2000)
def test_a_huge_declared_body_is_not_read_at_all(client, researcher):
    client.force_login(researcher)

    # The body that arrives is tiny; reading the 300 MB it declares would fail the request.
    response = client.generic(
        "POST", import_url(), b"--B--\r\n", content_type="multipart/form-data; boundary=B",
        CONTENT_LENGTH=str(300 * 1024 * 1024),
    )  # fmt: skip

    assert response.status_code == 200
    assert COMMAND_HINT in response.content.decode()
    assert not Study.objects.exists()


@override_settings(BUNDLE_WEB_MAX_BYTES=20_000)
def test_a_small_zip_that_unpacks_over_the_limit_is_refused_before_the_import(client, researcher):
    # 200 documents of repeated text: a few kilobytes zipped, about 110 kB unpacked.
    content = make_zip(bundle_files(**{"documents.jsonl": big_documents(200)}))
    assert len(content) < 20_000
    client.force_login(researcher)

    with mock.patch("studies.admin.study_views.study_import_bundle") as imported:
        response = client.post(
            import_url(), {"bundle": SimpleUploadedFile("big.zip", content, content_type="application/zip")}
        )

    assert response.status_code == 200
    assert COMMAND_HINT in response.content.decode()
    imported.assert_not_called()


@override_settings(BUNDLE_WEB_MAX_BYTES=20_000)
def test_a_bundle_under_the_limit_still_imports(client, researcher):
    client.force_login(researcher)

    response = client.post(
        import_url(),
        {"bundle": SimpleUploadedFile("ok.zip", make_zip(bundle_files()), content_type="application/zip")},
    )

    assert response.status_code == 302
    assert Study.objects.filter(slug="uploaded").exists()


@override_settings(BUNDLE_WEB_MAX_BYTES=2000)
def test_a_documents_file_over_the_web_limit_is_refused(client, researcher):
    study = make_span_study(researcher=researcher, documents=0)
    client.force_login(researcher)
    url = reverse("admin:studies_study_add_documents", args=[study.pk])

    response = client.post(
        url, {"documents": SimpleUploadedFile("documents.jsonl", big_documents(40).encode())}
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "split the documents" in page and COMMAND_HINT in page
    assert not Document.objects.filter(study=study).exists()
