"""The pairwise task page and admin pages: served with the strict policy, study text only as data."""

import json
import re

import pytest
from django.urls import reverse

from reports.models import Report
from reports.study_report import study_report_data
from tests.pairwise.bundles import QUESTION, import_pairwise, pair_assignment, pairwise_documents
from tests.pairwise.test_bundles import lines
from tests.test_csp import assert_strict_policy, inline_script

pytestmark = pytest.mark.django_db


def task_data(html):
    found = re.search(r'<script id="task-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_the_task_page_has_the_policy_no_inline_script_and_the_pairs_as_data(client, tmp_path):
    documents = pairwise_documents(blocks=("b1",), inputs=1)
    documents[0]["segments"] = ['<script>alert("A")</script> & <b>bold</b>']
    study = import_pairwise(tmp_path, documents=documents, config={"question": QUESTION, "allow_ties": False})
    assignment = pair_assignment(study)
    response = client.get(reverse("task-annotate", args=[assignment.token]))
    assert response.status_code == 200
    html = response.content.decode()
    assert_strict_policy(response, "pairwise page")
    assert inline_script(html) == []
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    data = task_data(html)
    assert data["protocol"] == "pairwise" and data["study"]["question"] == QUESTION
    assert data["study"]["allow_ties"] is False and data["study"]["strength"] is None
    assert [p["position"] for p in data["pairs"]] == [e["position"] for e in assignment.items]
    texts = {side["text"] for pair in data["pairs"] for side in (pair["left"], pair["right"])}
    assert '<script>alert("A")</script> & <b>bold</b>' in texts
    assert 'id="choose-tie"' not in html and 'id="choose-left"' in html and 'id="choose-right"' in html
    assert 'id="submit-dialog"' in html and "pairwise/main.js" in html


def test_the_page_offers_a_tie_and_a_strength_when_the_study_asks(client, tmp_path):
    study = import_pairwise(tmp_path, config={"strength": {"max": 3, "labels": {1: "a bit"}}})
    html = client.get(reverse("task-annotate", args=[pair_assignment(study).token])).content.decode()
    assert 'id="choose-tie"' in html and 'id="strength-scale"' in html
    assert task_data(html)["study"]["strength"] == {"max": 3, "labels": {"1": "a bit"}}


def test_admin_pages_of_a_pairwise_study_have_the_policy(client, tmp_path, superuser):
    study = import_pairwise(tmp_path, assignments=lines(), config={"strength": {"max": 2}})
    report = Report.objects.create(study=study, status="done", result=study_report_data(study), progress=1)
    client.force_login(superuser)
    for url in [reverse("admin:pairwise_pairwisechoice_changelist"),
                reverse("admin:reports_report_change", args=[report.pk]),
                reverse("admin:studies_study_change", args=[study.pk])]:  # fmt: skip
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_policy(response, url)
        assert inline_script(response.content.decode()) == [], url
