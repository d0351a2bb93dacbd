"""Under the Content-Security-Policy, in a real browser: every page works and no
page breaks a rule (the browser reports each violation as a
`securitypolicyviolation` event and a console error)."""

import pytest
from django.urls import reverse

from accounts.services import researcher_create
from annotations.services.task import assignment_submit
from bundles.services import study_import_bundle
from qualification.services import qualification_result_update
from reports.models import Report
from reports.services import report_compute, report_request
from tests.browser.logins import log_in
from tests.browser.rating_pages import open_rating_page, rating_assignment
from tests.browser.review_page import open_review_page, review_assignment
from tests.browser.task_page import make_task, open_task
from tests.qualification.builders import annotate, make_round, span
from tests.reports.span_bundle import write_span_bundle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Runs before any script of each document (Playwright injects it outside the page's CSP).
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


@pytest.fixture
def watched(page):
    """The page, recording CSP violations reported by events and on the console."""
    page.add_init_script(RECORD_VIOLATIONS)
    page.console_violations = []

    def on_console(message):
        if "Content Security Policy" in message.text:
            page.console_violations.append(message.text)

    page.on("console", on_console)
    return page


def violations(page):
    return page.evaluate("window.__cspViolations") + page.console_violations


def test_the_watch_sees_a_violation(watched, live_server):
    """An injected inline script is blocked and reported: the other tests' silence means something."""
    watched.goto(f"{live_server.url}/admin/login/")
    watched.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
        " document.body.append(s); }"
    )
    watched.wait_for_function("window.__cspViolations.length > 0")
    assert watched.evaluate("window.ran") is None
    assert any("script-src" in violation for violation in violations(watched))


def test_admin_pages_and_a_report_keep_working(watched, live_server, tmp_path):
    researcher = researcher_create(username="ada", password="pass-w0rd-for-tests")
    study = study_import_bundle(
        directory=write_span_bundle(tmp_path, slug="csp-study"), user=researcher
    ).study
    report, _ = report_request(study=study, user=researcher)
    report_compute(report_id=report.pk)
    assert Report.objects.get(pk=report.pk).status == Report.Status.DONE

    log_in(watched, live_server, "ada")  # the login page, and its form
    assert violations(watched) == []
    watched.goto(live_server.url + reverse("admin:studies_study_changelist"))
    watched.locator("#result_list").wait_for()
    assert violations(watched) == []
    watched.goto(live_server.url + reverse("admin:studies_study_change", args=[study.pk]))
    watched.locator("#study_form").wait_for()
    watched.wait_for_load_state("networkidle")
    assert violations(watched) == []

    watched.goto(live_server.url + reverse("admin:reports_report_change", args=[report.pk]))
    watched.locator("#categories-table").wait_for()
    assert violations(watched) == []
    document = study.documents.order_by("position").first()
    watched.goto(live_server.url + reverse("admin:studies_document_preview", args=[document.pk]))
    watched.locator("#segment-0").wait_for()
    assert violations(watched) == []


def test_the_worker_pages_run_their_scripts(watched, live_server, tmp_path):
    assignment = make_task()
    open_task(watched, live_server, assignment)  # waits for what main.js renders
    assert violations(watched) == []

    open_rating_page(watched, live_server, rating_assignment(tmp_path / "rating"))
    assert violations(watched) == []

    open_review_page(watched, live_server, review_assignment(tmp_path / "review"))
    assert violations(watched) == []

    qualification, document = make_round()
    mine = annotate(document, "cand", "qualification", [span(document, 1, "Carl", "CharE")])
    result = qualification_result_update(qualification=qualification, worker=mine.worker)
    watched.goto(live_server.url + reverse("qualification-feedback", args=[result.feedback_token]))
    watched.locator("#scores").wait_for()
    assert violations(watched) == []


def test_the_mturk_hand_off_form_may_post_to_mturk(watched, live_server):
    assignment = make_task(
        ["A single segment. Read at once."],
        worker__platform="mturk",
        platform_ids={"assignmentId": "asg9", "turkSubmitTo": "https://workersandbox.mturk.com"},
    )
    assignment_submit(token=assignment.token)
    posted = []
    watched.route(
        "https://workersandbox.mturk.com/**",
        lambda route: (posted.append(route.request.post_data), route.fulfill(body="ok")),
    )
    watched.goto(live_server.url + reverse("task-done", args=[assignment.token]))
    watched.click("#mturk-submit button")
    watched.wait_for_url("https://workersandbox.mturk.com/mturk/externalSubmit")
    assert posted and "assignmentId=asg9" in posted[0]


def test_the_api_docs_and_the_browsable_api_work(watched, live_server):
    researcher_create(username="ada", password="pass-w0rd-for-tests")
    log_in(watched, live_server, "ada")
    watched.goto(live_server.url + reverse("api-docs"))
    watched.locator(".opblock").first.wait_for()
    assert watched.locator(".opblock").count() > 10
    watched.wait_for_load_state("networkidle")
    assert violations(watched) == []

    watched.goto(live_server.url + reverse("study-list"))
    watched.locator(".response-info").wait_for()
    watched.hover(".js-tooltip >> nth=0")  # Bootstrap's tooltip: the page's jQuery runs
    watched.locator(".tooltip").wait_for()
    assert violations(watched) == []
