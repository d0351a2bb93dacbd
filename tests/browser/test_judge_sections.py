"""The report page of an ESA study with an LLM judge and a suggestion arm, at 1280 x 800 and
390 x 844: the judge's and the arms' sections shown, no sideways scroll, no serious axe finding,
the pairs the judge orders otherwise opened by keyboard."""

import json

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from accounts.services import researcher_create
from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator
from evaluators.services import evaluator_run_request
from evaluators.suggesting import latest_finished_run, use_run_as_suggestions
from protocols.translation.assistance.prefill import suggestions_prefill
from protocols.translation.models import SegmentScore
from reports.models import Report
from reports.study_report import study_report_data
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in_to_the_console
from tests.factories import AssignmentFactory, WorkerFactory
from tests.translation.studies import make_translation_study

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_celery")]


def esa_study(researcher, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    study = make_translation_study("esa", systems=("sysA", "sysB", "sysC"), taxonomy=None,
                                   config={"assistance": {"share": 0.5, "seed": 1}})  # fmt: skip
    study.memberships.create(user=researcher, role="researcher")
    judged = {"sysA": 70, "sysB": 90, "sysC": 20}  # the people put sysA first
    with FakeChatServer() as server:
        for document in study.documents.order_by("position"):
            score = judged[document.system]
            segments = [{"segment": 1, "errors": [{"span": document.segments.get(index=0).text[:3], "side": "target",
                                                   "severity": "Minor", "explanation": ""}], "score": score}]  # fmt: skip
            server.add(Reply(json.dumps({"segments": segments})))
        evaluator = Evaluator.objects.create(study=study, key="gpt-judge-with-a-long-name", kind="llm",
                                             base_url=server.base_url, model="m", concurrency=1)  # fmt: skip
        evaluator_run_request(evaluator=evaluator, here=True)
    use_run_as_suggestions(latest_finished_run(evaluator))
    given = {"sysA": 95, "sysB": 60, "sysC": 10}
    for arm in ("control", "suggestions"):
        worker = WorkerFactory()
        for system, score in given.items():
            assignment = AssignmentFactory(study=study, document=study.documents.get(system=system), worker=worker,
                                           arm=arm)  # fmt: skip
            suggestions_prefill(assignment=assignment)
            for segment in assignment.document.segments.all():
                SegmentScore.objects.create(assignment=assignment, segment=segment, score=score)
            Assignment.objects.filter(pk=assignment.pk).update(
                status="submitted", submitted_at=timezone.now()
            )
    return study


def test_the_judge_and_the_arms_fit_both_widths_and_open_by_keyboard(browser, live_server, settings):
    researcher = researcher_create(username="jude", password="pass-w0rd-for-tests")
    study = esa_study(researcher, settings)
    result = study_report_data(study)
    assert result["evaluator_comparison"]["by_evaluator"]["gpt-judge-with-a-long-name"]["systems"][
        "disagreeing"
    ]
    Report.objects.create(study=study, status=Report.Status.DONE, result=result, finished_at=timezone.now())
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    log_in_to_the_console(page, live_server, "jude")
    page.goto(live_server.url + reverse("console:study", args=[study.pk]) + "?tab=analyse")
    expect(page.locator("#judge-systems-table-1")).to_be_visible()
    expect(page.locator("#assistance-kept-table")).to_be_visible()

    summary = page.locator("#judge-disagreeing-1 summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#judge-disagreeing-1 table")).to_be_visible()
    for size in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        assert_no_overflow(page)
        assert_accessible(page)
