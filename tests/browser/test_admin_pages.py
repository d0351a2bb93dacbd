"""A researcher in a real browser: log in, import a bundle, preview a document."""

import json
import zipfile

import pytest
import yaml
from django.urls import reverse

from accounts.services import researcher_create
from studies.models import Study
from tests.browser.logins import log_in
from tests.bundles import study_yaml

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE = "Anna wrote <script>alert('x')</script> on the wall. Then <img src=x onerror=alert(2)> & left."


def bundle_zip(tmp_path):
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("my-study/study.yaml", yaml.safe_dump(study_yaml(slug="browser-study")))
        document = {"id": "hostile", "segments": [HOSTILE, "A quiet second segment. It ends here."]}
        archive.writestr("my-study/documents.jsonl", json.dumps(document) + "\n")
    return path


def test_researcher_imports_a_bundle_and_previews_escaped_sentences(page, live_server, tmp_path):
    researcher_create(username="ada", password="pass-w0rd-for-tests")
    log_in(page, live_server, "ada")

    page.goto(live_server.url + reverse("admin:studies_study_import"))
    page.set_input_files("input[type=file]", str(bundle_zip(tmp_path)))
    page.click("input[type=submit], button[type=submit] >> nth=-1")
    page.wait_for_url("**/change/")
    assert "Imported the study bundle" in page.content()

    document = Study.objects.get(slug="browser-study").documents.get()
    page.goto(live_server.url + reverse("admin:studies_document_preview", args=[document.pk]))
    first_segment = page.locator("#segment-0")
    sentences = first_segment.locator(".sentence")
    assert sentences.count() == 2
    assert sentences.nth(0).inner_text() == "Anna wrote <script>alert('x')</script> on the wall."
    assert sentences.nth(1).inner_text() == "Then <img src=x onerror=alert(2)> & left."
    assert page.locator("#segment-0 img").count() == 0
    assert page.dialogs == []
