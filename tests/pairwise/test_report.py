"""The pairwise report: the database read into the metrics gives what the metrics give by hand,
and the admin report page shows its section."""

import json

import pytest
from django.urls import reverse

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from reports.metrics.pairwise import Choice, Output, PairwiseStudy, pairwise_report
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Study
from tests.pairwise.bundles import SYSTEMS, import_pairwise, pair_assignment
from tests.pairwise.test_bundles import STRENGTH, lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path, researcher):
    config = {**STRENGTH, "seed": 5}
    return import_pairwise(tmp_path, config=config, assignments=lines(), user=researcher)


def by_hand(study):
    """The PairwiseStudy of lines(), written out from the bundle rather than read from the database."""
    outputs = [Output(f"{block}-in{n}-{system}", f"{block}-in{n}", system, block)
               for block in ("b1", "b2") for n in range(2) for system in SYSTEMS]  # fmt: skip

    def name(external_id):
        worker = Assignment.objects.filter(study=study, worker__external_id=external_id).first().worker_id
        return annotator_pseudonym(study.pk, worker)

    choices = []
    for line in lines():
        for item in line["choices"]:
            choices.append(Choice(name(line["annotator"]), item["left"], item["right"], item["choice"],
                                  item["strength"], line["block"], line.get("kind", "main")))  # fmt: skip
    return PairwiseStudy(outputs, choices, allow_ties=True, strength_max=2, seed=5)


def test_the_report_is_the_metrics_of_the_submitted_choices(client, study):
    # Work that is not submitted, or not main or retest, stays out.
    open_block = pair_assignment(study, "busy", "b2")
    url = reverse("task-api-pairwise-choices", args=[open_block.token])
    body = {"position": open_block.items[0]["position"], "choice": "left", "strength": 2}
    assert client.post(url, json.dumps(body), content_type="application/json").status_code == 200
    gold = pair_assignment(study, "expert", "b1", kind=Assignment.Kind.GOLD)
    Assignment.objects.filter(pk=gold.pk).update(status=Assignment.Status.SUBMITTED)

    report = study_report_data(study)
    # The crowd extension's part: people only (the expert's gold block is not there), the open block counted.
    workforce = report.pop("workforce")
    assert workforce["study"]["workers"] == 3 and workforce["study"]["open"] == 1
    expected = {"study": study.slug, "protocol": "pairwise", **pairwise_report(by_hand(study))}
    assert report == expected
    assert json.loads(json.dumps(report)) == report  # JSON-ready as it is
    assert report["choices"] == 8 and report["annotators"] == 2 and report["ties"] == 3
    assert report["retest_pairs"] == 1 and report["change_rate_pct"] == 0.0
    assert report["strength_counts"] == {"1": 3, "2": 2}
    assert set(report["system_scores"]) == set(SYSTEMS)


def test_options_changed_after_the_work_widen_the_report_rather_than_break_it(study):
    Study.objects.filter(pk=study.pk).update(config={"allow_ties": False})
    study.refresh_from_db()
    report = study_report_data(study)
    assert report["ties"] == 3 and report["allow_ties"] is True and report["strength_counts"]["2"] == 2


def test_the_report_page_shows_scores_intervals_head_to_head_and_agreement(client, study, researcher):
    result = study_report_data(study)
    report = Report.objects.create(study=study, status="done", result=result, progress=1)
    client.force_login(researcher)
    response = client.get(reverse("admin:reports_report_change", args=[report.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    for marker in ['id="pairwise-systems-table"', 'id="head-to-head-table"', 'id="pairwise-reliability-table"',
                   'id="pairwise-counts"', 'id="strength-counts"', "Win rate: (wins + ties / 2) / comparisons",
                   "95 % bootstrap intervals over inputs", "retest change: % of the 1 pairs",
                   "Krippendorff&#x27;s α (nominal)", "A tie counts as half a win"]:  # fmt: skip
        assert marker in html, marker
    assert html.count("<svg") >= 2
    best = max(result["win_rates"]["systems"].items(), key=lambda item: item[1]["win_rate"])
    assert f"<tr><td>{best[0]}</td><td>{best[1]['win_rate']:.3f}</td>" in html


def test_a_report_without_bradley_terry_scores_says_why(client, tmp_path, researcher):
    only = [{"annotator": "P-1", "block": "b1",
             "choices": [{"left": "b1-in0-sysA", "right": "b1-in0-sysB", "choice": "left", "strength": None}]}]  # fmt: skip
    study = import_pairwise(tmp_path, assignments=only, user=researcher)
    result = study_report_data(study)
    assert result["bradley_terry"]["scores"] is None
    report = Report.objects.create(study=study, status="done", result=result, progress=1)
    client.force_login(researcher)
    html = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert 'id="bt-reason"' in html and "lost every comparison" in html
