"""Every page, API answer and error page carries a Content-Security-Policy that
runs no inline script and loads nothing from another origin; and the pages we
serve have no inline script or event-handler attribute that it would block."""

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import include, path, reverse
from rest_framework.authtoken.models import Token

from annotations.models import Assignment
from qualification.services import qualification_result_update
from reports.services import report_request
from tests.factories import AssignmentFactory, make_span_study
from tests.qualification.builders import annotate, make_round, span

pytestmark = pytest.mark.django_db

MTURK_HOSTS = {"https://www.mturk.com", "https://workersandbox.mturk.com"}


def directives(header):
    """{'script-src': ['self'], ...} from a Content-Security-Policy header."""
    parsed = {}
    for part in header.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


class InlineScriptFinder(HTMLParser):
    """Collects what the policy would block: <script> elements that would run
    without a src, on* attributes, and <style> elements."""

    def __init__(self):
        super().__init__()
        self.problems = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        handlers = [name for name in attributes if name.startswith("on")]
        if handlers:
            self.problems.append(f"<{tag} {' '.join(handlers)}>")
        data_block = attributes.get("type") in ("application/json", "application/ld+json")
        if tag == "script" and "src" not in attributes and not data_block:
            self.problems.append("<script> without src")
        if tag == "style":
            self.problems.append("<style>")


def inline_script(html):
    finder = InlineScriptFinder()
    finder.feed(html)
    return finder.problems


@pytest.fixture
def site(researcher, superuser):
    """One of everything a user can open: a study with a report, worker pages, feedback."""
    study = make_span_study(documents=1, segments=2, researcher=researcher, status="open")
    document = study.documents.get()
    assignment = AssignmentFactory(document=document)
    turk = AssignmentFactory(
        document=make_span_study(documents=1, segments=1).documents.get(),
        worker__platform="mturk",
        platform_ids={"assignmentId": "asg9", "turkSubmitTo": "https://workersandbox.mturk.com"},
    )
    Client().post(reverse("task-api-submit", args=[turk.token]), "{}", content_type="application/json")
    assert Assignment.objects.get(pk=turk.pk).status == Assignment.Status.SUBMITTED
    report, _ = report_request(study=study, user=researcher)
    qualification, qualification_document = make_round()
    mine = annotate(
        qualification_document, "cand", "qualification", [span(qualification_document, 1, "Carl", "CharE")]
    )
    result = qualification_result_update(qualification=qualification, worker=mine.worker)
    return {
        "study": study,
        "document": document,
        "assignment": assignment,
        "turk": turk,
        "report": report,
        "feedback": result.feedback_token,
        "token": Token.objects.create(user=superuser).key,
    }


def admin_urls(site):
    study, document, report = site["study"], site["document"], site["report"]
    return [
        reverse("admin:index"),
        reverse("admin:studies_study_changelist"),
        reverse("admin:studies_study_change", args=[study.pk]),
        reverse("admin:studies_study_import"),
        reverse("admin:studies_study_generate_assignments", args=[study.pk]),
        reverse("admin:studies_document_preview", args=[document.pk]),
        reverse("admin:studies_document_changelist"),
        reverse("admin:reports_report_change", args=[report.pk]),
        reverse("admin:reports_report_changelist"),
        reverse("admin:annotations_assignment_changelist"),
        reverse("admin:auth_user_changelist"),
        reverse("admin:password_change"),
    ]


def worker_urls(site):
    token, turk = site["assignment"].token, site["turk"].token
    return [
        reverse("task-instructions", args=[token]),
        reverse("task-annotate", args=[token]),
        reverse("task-done", args=[token]),
        reverse("task-done", args=[turk]),
        reverse("task-api-state", args=[token]),
        reverse("join", args=["no-such-join-key"]),
        reverse("qualification-feedback", args=[site["feedback"]]),
    ]


def api_urls(site):
    study = site["study"]
    return [
        reverse("study-list"),
        reverse("study-detail", args=[study.pk]),
        reverse("annotation-list"),
        reverse("api-schema"),
        reverse("api-docs"),
        reverse("api-docs") + "?script=",
        reverse("export-annotations", args=[study.pk, "csv"]),
    ]


def assert_strict_policy(response, url):
    header = response.get("Content-Security-Policy")
    assert header, f"{url} ({response.status_code}) has no Content-Security-Policy"
    policy = directives(header)
    assert policy["default-src"] == ["'self'"], url
    assert policy["script-src"] == ["'self'"], f"{url}: script-src {policy['script-src']}"
    assert policy["object-src"] == ["'none'"], url
    assert policy["frame-ancestors"] == ["'none'"], url
    assert policy["base-uri"] in (["'none'"], ["'self'"]), url
    assert set(policy["form-action"]) == {"'self'", *MTURK_HOSTS}, url
    for name, values in policy.items():
        assert "'unsafe-eval'" not in values, f"{url}: {name} allows eval"
        if name != "style-src-attr":
            assert "'unsafe-inline'" not in values, f"{url}: {name} allows inline code"
        foreign = [v for v in values if v not in MTURK_HOSTS and (":" in v and not v.startswith("'"))]
        assert foreign in ([], ["data:"]), f"{url}: {name} allows {foreign}"


def test_every_admin_page_has_a_strict_policy_and_no_inline_script(client, site, superuser):
    client.force_login(superuser)
    for url in admin_urls(site):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_policy(response, url)
        assert inline_script(response.content.decode()) == [], url


def test_the_admin_login_and_logout_pages_have_the_policy(client):
    for url in [reverse("admin:login"), reverse("admin:index")]:
        response = client.get(url, follow=True)
        assert_strict_policy(response, url)
        assert inline_script(response.content.decode()) == [], url


def test_every_worker_page_has_a_strict_policy_and_no_inline_script(client, site):
    for url in worker_urls(site):
        response = client.get(url)
        assert response.status_code in (200, 404), url
        assert_strict_policy(response, url)
        assert inline_script(response.content.decode()) == [], url


def test_the_mturk_hand_off_is_an_allowed_form_action(client, site):
    response = client.get(reverse("task-done", args=[site["turk"].token]))
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in response.content.decode()
    assert "https://workersandbox.mturk.com" in directives(response["Content-Security-Policy"])["form-action"]


def test_the_api_and_its_docs_have_a_strict_policy(client, site, superuser):
    auth = {"HTTP_AUTHORIZATION": f"Token {site['token']}"}
    for url in api_urls(site):
        response = client.get(url, **auth)
        assert response.status_code == 200, url
        assert_strict_policy(response, url)
        if response["Content-Type"].startswith("text/html"):
            assert inline_script(response.content.decode()) == [], url
    client.force_login(superuser)
    browsable = client.get(reverse("study-list"), HTTP_ACCEPT="text/html")
    assert browsable["Content-Type"].startswith("text/html")
    assert_strict_policy(browsable, "browsable API")
    assert inline_script(browsable.content.decode()) == []


def test_the_swagger_ui_loads_its_start_script_from_a_url():
    html = Client().get(reverse("api-docs")).content.decode()
    assert f'<script src="{reverse("api-docs")}?script="></script>' in html
    script = Client().get(reverse("api-docs") + "?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()


def test_error_pages_have_the_policy(client, site):
    responses = {
        "404": client.get("/no-such-page/"),
        "api 401": client.get(reverse("study-list"), HTTP_AUTHORIZATION="Token not-a-token"),
        "task 404": client.get(reverse("task-annotate", args=["not-a-token"])),
        "csrf 403": Client(enforce_csrf_checks=True).post(reverse("admin:login"), {"username": "x"}),
    }
    for name, response in responses.items():
        assert response.status_code >= 400, name
        assert_strict_policy(response, name)


def broken_view(request):
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken_view), path("", include("falte_site.urls"))]


@pytest.mark.urls(__name__)
def test_server_errors_have_the_policy():
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    assert_strict_policy(response, "500")


def headers_of(middleware_class, answer, *, path="/", nonce=False):
    """The two policy headers, parsed, that `middleware_class` gives `answer` (a response, or a view
    returning one) for a GET of `path`; with `nonce` the view uses request.csp_nonce."""
    from django.test import RequestFactory

    def view(request):
        if nonce:
            str(request.csp_nonce)
        return answer(request) if callable(answer) else answer

    middleware = middleware_class(view)
    request = RequestFactory().get(path)
    middleware.process_request(request)
    response = middleware.process_response(request, view(request))
    return tuple(
        directives(response[name]) if name in response else None
        for name in ("Content-Security-Policy", "Content-Security-Policy-Report-Only")
    )


def test_the_header_built_once_is_the_librarys_on_a_save(client, site):
    """The site's header is built once (falte_site/csp.py); a save carries what django-csp builds."""
    from csp.utils import build_policy

    save = client.post(
        reverse("task-api-annotations", args=[site["assignment"].token]),
        {"client_id": "c1", "category": "CharE", "segment": 0, "start": 0, "end": 7, "text": "Segment"},
        content_type="application/json",
    )
    assert save.status_code == 201
    assert directives(save["Content-Security-Policy"]) == directives(build_policy())
    assert "Content-Security-Policy-Report-Only" not in save


@pytest.mark.parametrize("case", ["plain", "excluded path", "own policy", "nonce"])
def test_the_header_built_once_follows_the_settings_as_the_library_does(settings, case):
    """Under changed settings (a report-only policy, excluded paths, a nonce in script-src) every
    kind of answer gets from the site's middleware what django-csp's own would give it."""
    from csp.constants import NONCE, SELF
    from csp.decorators import csp_update
    from csp.middleware import CSPMiddleware
    from django.http import HttpResponse

    from falte_site.csp import SitePolicyMiddleware

    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": [SELF], "script-src": [SELF, NONCE]}}
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"img-src": [SELF]}, "EXCLUDE_URL_PREFIXES": ["/static/"],
    }  # fmt: skip
    answer, path = HttpResponse, "/"
    if case == "excluded path":
        path = "/static/site.css"
    if case == "own policy":
        answer = csp_update({"img-src": ["https://example.org"]})(lambda request: HttpResponse())
    site_headers = headers_of(SitePolicyMiddleware, answer, path=path, nonce=case == "nonce")
    library_headers = headers_of(CSPMiddleware, answer, path=path, nonce=case == "nonce")
    if case == "nonce":  # a fresh nonce each time: compare the rest
        assert site_headers[0]["script-src"][-1].startswith("'nonce-")
        site_headers[0]["script-src"].pop()
        library_headers[0]["script-src"].pop()
    assert site_headers == library_headers
    assert site_headers[0]["default-src"] == ["'self'"]
    assert (site_headers[1] is None) == (case == "excluded path")
    if case == "own policy":
        assert site_headers[0]["img-src"] == ["https://example.org"]
