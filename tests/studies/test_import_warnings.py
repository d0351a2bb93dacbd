"""Identical outputs of the same input are flagged at import: a warning, not a refusal."""

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command

from bundles.services import study_import_bundle
from studies.models import Study
from tests.bundles import write_bundle
from tests.studies.test_admin_upload import STUDY_YAML, jsonl, login, make_zip, upload_bundle

pytestmark = pytest.mark.django_db

# Line 3 repeats line 1 for the same input from another system, once its segments are joined;
# line 4 is the same text for another input, line 5 the same system again: neither is flagged.
DOCUMENTS = [
    {"id": "a", "input_id": "in1", "system": "sysA", "segments": ["Anna met Ben.", "They talked."]},
    {"id": "b", "input_id": "in1", "system": "sysB", "segments": ["Anna met Bert. They talked."]},
    {"id": "c", "input_id": "in1", "system": "sysC", "segments": ["Anna met Ben. They talked."]},
    {"id": "d", "input_id": "in2", "system": "sysB", "segments": ["Anna met Ben. They talked."]},
    {"id": "e", "input_id": "in2", "system": "sysB", "segments": ["Anna met Ben. They talked."]},
]
WARNING = (
    "documents.jsonl:3: warning: document 'c' (system 'sysC') has the same text as 'a' "
    "(system 'sysA', line 1) for input 'in1'"
)


def test_the_import_result_carries_the_warning_and_the_study_is_imported(tmp_path):
    result = study_import_bundle(directory=write_bundle(tmp_path, documents=DOCUMENTS))

    assert [str(warning) for warning in result.warnings] == [WARNING]
    assert result.study.documents.count() == 5


def test_a_bundle_without_identical_outputs_has_no_warning(tmp_path):
    assert study_import_bundle(directory=write_bundle(tmp_path, documents=DOCUMENTS[:2])).warnings == []


def test_import_study_prints_the_warning_and_succeeds(tmp_path, capsys):
    call_command("import_study", str(write_bundle(tmp_path, documents=DOCUMENTS)))  # raises on failure

    output = capsys.readouterr().out
    assert "imported bundle-study: 5 documents" in output
    assert WARNING in output.splitlines()
    assert Study.objects.filter(slug="bundle-study").exists()


def test_admin_upload_shows_the_warning_after_the_import(client, researcher):
    login(client, researcher)
    files = {"study.yaml": STUDY_YAML, "documents.jsonl": jsonl(DOCUMENTS)}

    response = upload_bundle(client, make_zip(files))

    assert response.status_code == 302
    shown = [(message.level_tag, message.message) for message in get_messages(response.wsgi_request)]
    assert shown[0][0] == "success" and shown[1:] == [("warning", WARNING)]
    assert Study.objects.get(slug="uploaded").documents.count() == 5
