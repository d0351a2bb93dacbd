"""The researcher's qualification dashboard and decisions in admin."""

import pytest
from django.urls import reverse

from accounts.models import StudyMembership
from qualification.models import QualificationResult
from qualification.services import qualification_result_update
from tests.qualification.builders import annotate, make_round, span

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_with_candidates(researcher):
    qualification, document = make_round(thresholds={"f1": 0.8})
    StudyMembership.objects.create(study=qualification.study, user=researcher)
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    for worker_id, spans in [("strong", [span(document, 1, "Carl", "CharE")]), ("weak <b>x</b>", [])]:
        assignment = annotate(document, worker_id, "qualification", spans, seconds=120)
        qualification_result_update(qualification=qualification, worker=assignment.worker)
    return qualification


def test_dashboard_lists_candidates_with_scores_and_suggestions(client, researcher, round_with_candidates):
    client.force_login(researcher)
    html = client.get(
        reverse("admin:qualification_qualification_change", args=[round_with_candidates.pk])
    ).content.decode()
    assert 'id="qualification-dashboard"' in html
    assert "<td>strong</td><td>Pending</td><td>pass</td><td>CharE 1.00" in html
    assert "weak &lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html


def test_approve_reject_and_follow_the_suggestion(client, researcher, round_with_candidates):
    client.force_login(researcher)
    url = reverse("admin:qualification_qualificationresult_changelist")
    ids = [str(pk) for pk in QualificationResult.objects.values_list("pk", flat=True)]
    client.post(url, {"action": "follow_suggestion", "_selected_action": ids})
    statuses = dict(QualificationResult.objects.values_list("worker__external_id", "status"))
    assert statuses == {"strong": "approved", "weak <b>x</b>": "rejected"}
    assert QualificationResult.objects.get(worker__external_id="strong").decided_by == researcher


def test_another_researcher_sees_nothing_of_the_round(client, other_researcher, round_with_candidates):
    client.force_login(other_researcher)
    assert (
        client.get(
            reverse("admin:qualification_qualification_change", args=[round_with_candidates.pk])
        ).status_code
        == 404
    )
    listing = client.get(reverse("admin:qualification_qualificationresult_changelist")).content.decode()
    assert '<td class="field-worker">strong' not in listing and "0 qualification results" in listing.lower()
    ids = [str(pk) for pk in QualificationResult.objects.values_list("pk", flat=True)]
    client.post(
        reverse("admin:qualification_qualificationresult_changelist"),
        {"action": "approve", "_selected_action": ids},
    )
    assert set(QualificationResult.objects.values_list("status", flat=True)) == {"pending"}
