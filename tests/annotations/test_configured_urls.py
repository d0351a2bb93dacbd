"""Configured URLs (Prolific's completion URL, Mechanical Turk's turkSubmitTo, SITE_URL) are http(s) only."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from studies.models import Study
from tests.bundles import study_yaml, write_bundle
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db

HOSTILE_URLS = [
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/complete",
    "/relative/path",
    "https://",
    "https:\\\\evil.example",
]


def submitted_done_page(client, assignment):
    client.post(reverse("task-api-submit", args=[assignment.token]), "{}", content_type="application/json")
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    html = client.get(reverse("task-done", args=[assignment.token])).content.decode()
    return html, state["completion"]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_bundle_refuses_a_completion_url_that_is_not_absolute_http(tmp_path, url):
    study = study_yaml(config={"prolific_completion_url": url})

    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_bundle(tmp_path, study=study))

    assert [p.message for p in caught.value.problems] == [
        "config.prolific_completion_url: must be an absolute http:// or https:// URL"
    ]
    assert not Study.objects.exists()


def test_admin_refuses_a_javascript_completion_url(client, researcher):
    study = make_span_study(researcher=researcher)
    client.force_login(researcher)
    data = {
        "title": study.title, "slug": study.slug, "protocol": "span", "status": study.status,
        "taxonomy": str(study.taxonomy_id), "annotators_per_document": "3", "max_documents_per_worker": "",
        "instructions": "", "config": '{"prolific_completion_url": "javascript:alert(1)"}',
        "memberships-TOTAL_FORMS": "0", "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0", "memberships-MAX_NUM_FORMS": "1000",
    }  # fmt: skip

    response = client.post(reverse("admin:studies_study_change", args=[study.pk]), data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["config"] == [
        "config.prolific_completion_url: must be an absolute http:// or https:// URL"
    ]
    study.refresh_from_db()
    assert study.config == {}


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_an_old_row_with_a_hostile_completion_url_never_reaches_the_page(client, url):
    study = make_span_study(documents=1, segments=1)
    # A row from before the check: written directly, as an old database holds it.
    Study.objects.filter(pk=study.pk).update(config={"prolific_completion_url": url})
    prolific = AssignmentFactory(document=study.documents.get(), worker__platform="prolific")

    html, completion = submitted_done_page(client, prolific)

    prolific.refresh_from_db()
    assert prolific.status == Assignment.Status.SUBMITTED
    assert prolific.completion_code in html
    assert 'id="return-to-platform"' not in html
    assert "script:" not in html.lower() and "data:text" not in html and "evil.example" not in html
    assert completion["redirect_url"] is None  # what the page's JS hands off to


def test_a_good_completion_url_is_still_the_hand_off(client):
    url = "https://app.prolific.com/submissions/complete?cc=C0DE"
    study = make_span_study(documents=1, segments=1, config={"prolific_completion_url": url})
    prolific = AssignmentFactory(document=study.documents.get(), worker__platform="prolific")

    html, completion = submitted_done_page(client, prolific)

    assert f'href="{url}"' in html
    assert completion["redirect_url"] == url


@pytest.mark.parametrize(
    "submit_to",
    ["javascript:alert(1)", "https://www.mturk.com.evil.example", "https://evil.example/?https://www.mturk.com",
     "http://www.mturk.com", "//www.mturk.com"],
)  # fmt: skip
def test_join_keeps_only_a_mechanical_turk_host_as_turk_submit_to(client, submit_to):
    study = make_span_study(documents=1, segments=1)
    query = {"workerId": "A1", "assignmentId": "asg1", "hitId": "h1", "turkSubmitTo": submit_to}

    client.get(reverse("join", args=[study.join_key]), query)

    assignment = Assignment.objects.get()
    assert "turkSubmitTo" not in assignment.platform_ids
    html, completion = submitted_done_page(client, assignment)
    assert completion["mturk"] is None
    assert 'id="mturk-submit"' not in html


def test_join_keeps_the_sandbox_as_turk_submit_to_and_the_done_page_posts_there(client):
    study = make_span_study(documents=1, segments=1)
    query = {"workerId": "A1", "assignmentId": "asg1", "hitId": "h1",
             "turkSubmitTo": "https://workersandbox.mturk.com"}  # fmt: skip

    client.get(reverse("join", args=[study.join_key]), query)

    assignment = Assignment.objects.get()
    html, _ = submitted_done_page(client, assignment)
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in html


@pytest.mark.parametrize("site_url", ["javascript:alert(1)", "eval.example.org", "ftp://eval.example.org"])
def test_settings_refuse_a_site_url_that_is_not_absolute_http(site_url):
    root = Path(__file__).resolve().parents[2]
    env = dict(
        os.environ,
        SITE_URL=site_url,
        DEBUG="1",
        READ_DOT_ENV="0",
        DJANGO_SETTINGS_MODULE="falte_site.settings",
    )
    code = "import django; django.setup()"

    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)

    assert result.returncode != 0
    assert "SITE_URL must be an absolute http(s) URL" in result.stderr
