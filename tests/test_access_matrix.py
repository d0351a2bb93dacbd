"""Every role x every surface, generated from the URLconf (admin registry and API router included).

Nobody lists the surfaces here: every URL pattern of the site is sent every
role, so a view added later is covered without anyone remembering to. A URL
argument this file cannot fill fails the test (give it a value below).

Two studies hold submitted work: S (run by `researcher`, read by `analyst`)
and T (run by `other_researcher`). Per role and surface:
- reads: never a 5xx; S's worker identities and secrets (PROLIFIC_PID,
  SESSION_ID, task tokens, completion codes, the completion URL, the join
  key, feedback links) appear only for those who manage S; S's data appears
  to none outside S (the other researcher, anonymous, a worker's token);
- writes: every POST a read-only role can send (the form the researcher sees
  on that page, every admin action on S's rows, list_editable saves, API
  writes naming S, and every console form S's researcher sees, posted to its
  action) changes nothing in the database.
"""

import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import StudyMembership, Worker
from accounts.services import researcher_create
from annotations.models import Assignment
from crowd.models import LedgerEntry, Listing
from evaluators.models import CachedResponse, Evaluator, EvaluatorResult, EvaluatorRun
from exports.models import Export
from outbound.models import StudyCredential
from outbound.services import study_credential_store
from protocols.pairwise.models import PairwiseChoice
from protocols.span.models import Suggestion, SuggestionDecision
from qualification.models import Qualification, QualificationResult
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Category
from tests.factories import ErrorAnnotationFactory, make_span_study

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "task_token", "analyst", "other_researcher", "researcher", "superuser"]
MANAGERS_OF_S = {"researcher", "superuser"}
READERS_OF_S = {"analyst"} | MANAGERS_OF_S
READERS_OF_T = {"other_researcher", "superuser"}

PID_S = ["5f0c9a1e7d3b2a00123abcde", "5f0c9a1e7d3b2a00999fedcb"]
COMPLETION_URL = "https://app.prolific.example/submissions/complete?cc=CC4SECRET"
S_TITLE, T_TITLE = "Study Sierra", "Rival Tango"
T_MARK = "tango-doc"  # T's document ids: what T's data looks like on a page
# Keys stored for S and T: no role, not even S's researcher, ever reads one back.
STORED_KEYS = {"S": "sk-sierra-stored-key-0123456789abcdef", "T": "sk-tango-stored-key-fedcba9876543210"}


def _submitted(study, document, worker, platform_ids, marker):
    assignment = Assignment.objects.create(
        study=study, document=document, worker=worker, kind=Assignment.Kind.MAIN,
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(), completion_code=f"CODE{marker}",
        platform_ids=platform_ids, segments_visited=[0, 1, 2], current_segment=2,
    )  # fmt: skip
    ErrorAnnotationFactory(
        assignment=assignment, segment=document.segments.get(index=0),
        category=Category.objects.get(taxonomy=study.taxonomy, key="CharE"), start=0, end=7, text="Segment",
    )  # fmt: skip
    return assignment


def _study_with_work(title, researcher, pids, *, doc_prefix, **fields):
    study = make_span_study(documents=2, researcher=researcher, title=title, **fields)
    for document in study.documents.all():
        document.external_id = f"{doc_prefix}{document.position}"
        document.save()
    assignments = []
    for number, pid in enumerate(pids):
        worker = Worker.objects.create(platform=Worker.Platform.PROLIFIC, external_id=pid)
        for document in study.documents.order_by("position"):
            ids = {"STUDY_ID": "st-1", "SESSION_ID": f"sess-{doc_prefix}{document.position}-{number}"}
            assignments.append(_submitted(study, document, worker, ids, f"{doc_prefix}{number}{document.pk}"))
    Report.objects.create(
        study=study, status=Report.Status.DONE, result=study_report_data(study), finished_at=timezone.now()
    )
    qualification = Qualification.objects.create(study=study, slug=f"{study.slug}-q", title=f"{title} round")
    QualificationResult.objects.create(
        qualification=qualification, worker=assignments[0].worker, message="Well done", suggested="pass"
    )
    Export.objects.create(study=study, requested_by=researcher)
    return study, assignments


@pytest.fixture
def world(researcher, other_researcher, superuser):
    analyst = researcher_create(username="analyst-a", password="pass-w0rd-for-tests")
    s, s_assignments = _study_with_work(
        S_TITLE,
        researcher,
        PID_S,
        doc_prefix="sierra-doc",
        config={"prolific_completion_url": COMPLETION_URL},
    )
    StudyMembership.objects.create(study=s, user=analyst, role=StudyMembership.Role.ANALYST)
    t, t_assignments = _study_with_work(
        T_TITLE, other_researcher, ["6a1b2c3d4e5f60718293a4b5"], doc_prefix=T_MARK
    )
    study_credential_store(study=s, name="openai", secret=STORED_KEYS["S"], user=researcher)
    study_credential_store(study=t, name="openai", secret=STORED_KEYS["T"], user=other_researcher)
    s.refresh_from_db()
    result = QualificationResult.objects.get(qualification__study=s)
    secrets = [*PID_S, "CC4SECRET", s.join_key, result.feedback_token]
    for assignment in s_assignments:
        secrets += [assignment.token, assignment.completion_code, assignment.platform_ids["SESSION_ID"]]
    return SimpleNamespace(
        s=s, t=t, s_assignment=s_assignments[0], t_assignment=t_assignments[0], secrets=secrets,
        users={"analyst": analyst, "other_researcher": other_researcher, "researcher": researcher,
               "superuser": superuser},
    )  # fmt: skip


def client_for(world, role):
    client = Client()
    if role == "task_token":  # the other study's worker, sending their task token as credentials
        client.defaults["HTTP_AUTHORIZATION"] = f"Token {world.t_assignment.token}"
    elif role != "anonymous":
        client.force_login(world.users[role])
    return client


# --- the surfaces, from the URLconf ---


def _patterns(resolvers, prefix="", namespace=""):
    for entry in resolvers:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _patterns(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern) and entry.name:
            yield namespace + entry.name, prefix + str(entry.pattern)


def all_url_names():
    return sorted({name for name, _ in _patterns(get_resolver().url_patterns)})


def _model_of_admin_url(name):
    """admin:<app>_<model>_<view> -> the model, for admin URLs of registered models."""
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}_"
        if name.startswith(prefix):
            return model
    return None


def _pairwise_choice(world):
    """A choice on S's work, so the pairwise admin's change page is sent every role too."""
    left, right = world.s.documents.order_by("position")[:2]
    choice, _ = PairwiseChoice.objects.get_or_create(
        assignment=world.s_assignment, position=0, defaults={"left": left, "right": right, "choice": "left"}
    )
    return choice


def _evaluator_run(world):
    """An evaluator of S with a finished run and one result, for the evaluators' admin and API pages."""
    evaluator, _ = Evaluator.objects.get_or_create(
        study=world.s, key="repeats", defaults={"kind": "builtin", "detector": "repetition"}
    )
    run = evaluator.runs.first() or EvaluatorRun.objects.create(evaluator=evaluator, status="done", total=1)
    EvaluatorResult.objects.get_or_create(
        run=run, document=world.s_assignment.document, defaults={"status": "ok"}
    )
    return run


def _suggestion_decision(world):
    """A suggestion on S's document and S's worker's decision on it, for their admin pages."""
    assignment = world.s_assignment
    segment = assignment.document.segments.get(index=0)
    suggestion, _ = Suggestion.objects.get_or_create(
        document=assignment.document, position=1,
        defaults={"segment": segment, "category": world.s.taxonomy.categories.first(), "start": 0, "end": 7,
                  "text": segment.text[:7], "source": "test"},
    )  # fmt: skip
    decision, _ = SuggestionDecision.objects.get_or_create(
        assignment=assignment, suggestion=suggestion, defaults={"action": "reject", "seconds": 1.0}
    )
    return decision


def _ledger_entry(world):
    """A Prolific listing of S and a bonus planned for S's worker, for the crowd admin pages."""
    listing, _ = Listing.objects.get_or_create(
        study=world.s, platform="prolific", external_id="prolific-study-of-s", defaults={"places": 2}
    )
    entry, _ = LedgerEntry.objects.get_or_create(
        key="prolific:bonus:s", defaults={
            "study": world.s, "listing": listing, "platform": "prolific", "action": "bonus",
            "worker": world.s_assignment.worker, "target": world.s_assignment.worker.external_id,
            "amount": "1.50", "currency": "GBP",
        },
    )  # fmt: skip
    return entry


def s_object(world, model):
    """S's row of `model` (the object an admin or API detail URL is sent)."""
    label = model._meta.label_lower
    user_model = world.users["researcher"].__class__
    by_label = {
        "studies.study": world.s,
        "studies.taxonomy": world.s.taxonomy,
        "studies.category": world.s.taxonomy.categories.first(),
        "studies.document": world.s_assignment.document,
        "studies.segment": world.s_assignment.document.segments.first(),
        "accounts.worker": world.s_assignment.worker,
        "accounts.studymembership": world.s.memberships.first(),
        "annotations.assignment": world.s_assignment,
        "span.errorannotation": world.s_assignment.annotations.first(),
        "pairwise.pairwisechoice": _pairwise_choice(world),
        "span.suggestion": _suggestion_decision(world).suggestion,
        "span.suggestiondecision": _suggestion_decision(world),
        "evaluators.evaluator": _evaluator_run(world).evaluator,
        "evaluators.evaluatorrun": _evaluator_run(world),
        "evaluators.evaluatorresult": _evaluator_run(world).results.first(),
        "evaluators.cachedresponse": CachedResponse.objects.get_or_create(key="0" * 64)[0],
        "crowd.listing": _ledger_entry(world).listing,
        "crowd.ledgerentry": _ledger_entry(world),
        "qualification.qualification": Qualification.objects.get(study=world.s),
        "qualification.qualificationresult": QualificationResult.objects.get(qualification__study=world.s),
        "reports.report": Report.objects.get(study=world.s),
        "exports.export": Export.objects.get(study=world.s),
        "outbound.studycredential": StudyCredential.objects.get(study=world.s),
        "auth.group": None,  # None: no row; the model's list and add pages are still sent every role
        "axes.accessattempt": None,
        "axes.accesslog": None,
        "axes.accessfailurelog": None,
        "authtoken.tokenproxy": Token.objects.get_or_create(user=world.users["researcher"])[0],
        "authtoken.token": Token.objects.get_or_create(user=world.users["researcher"])[0],
    }
    if model is user_model:
        return world.users["researcher"]
    if label not in by_label:
        pytest.fail(f"no object of S for {label}: add one to s_object()")
    return by_label[label]


API_BASENAMES = {
    "study": "studies.study", "taxonomy": "studies.taxonomy", "document": "studies.document",
    "assignment": "annotations.assignment", "annotation": "span.errorannotation", "report": "reports.report",
    "evaluatorrun": "evaluators.evaluatorrun", "studycredential": "outbound.studycredential",
}  # fmt: skip


def url_kwargs(world, name, pattern):
    """Values for the URL's arguments: S's objects, or the other study's worker's own secrets."""
    arguments = re.findall(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>", pattern)
    names = [a or b for a, b in arguments]
    model = _model_of_admin_url(name)
    values = {}
    for argument in names:
        if argument == "object_id" and model is not None:
            obj = s_object(world, model)
            if obj is None:
                return None
            values[argument] = str(obj.pk)
        elif argument == "id" and model is not None:
            values[argument] = str(s_object(world, model).pk)
        elif argument == "app_label":
            values[argument] = "annotations"
        elif argument in ("study_id",):
            values[argument] = world.s.pk
        elif argument == "run_id":
            values[argument] = _evaluator_run(world).pk
        elif argument == "listing_id":
            values[argument] = _ledger_entry(world).listing.pk
        elif argument == "report_id":
            values[argument] = Report.objects.get(study=world.s).pk
        elif argument == "export_id":
            values[argument] = Export.objects.get(study=world.s).pk
        elif argument == "token":  # a worker's own pages: the bearer of the token is that worker
            values[argument] = world.t_assignment.token
        elif argument == "join_key":
            values[argument] = world.t.join_key
        elif argument == "client_id":
            values[argument] = "client-1"
        elif argument == "suggestion_id":  # S's suggestion, sent with T's worker's token
            values[argument] = _suggestion_decision(world).suggestion_id
        elif argument == "file_format":
            values[argument] = "csv"
        elif argument == "format":
            values[argument] = "json"
        elif argument == "pk" and name.split("-")[0] in API_BASENAMES:
            values[argument] = s_object(world, apps.get_model(API_BASENAMES[name.split("-")[0]])).pk
        elif argument in ("content_type_id",):
            return None  # admin's "view on site" redirect: no model here has a page of its own
        elif argument == "url" and name == "admin:catch_all_view":
            values[argument] = "nothing-here/"
        else:
            pytest.fail(f"{name} ({pattern}) takes {argument!r}: give it a value in url_kwargs()")
    return values


def surfaces(world):
    found = []
    for name, pattern in _patterns(get_resolver().url_patterns):
        kwargs = url_kwargs(world, name, pattern)
        if kwargs is None:
            continue
        if "format" in kwargs and "<" not in pattern.split("(?P<format>")[0][-3:]:
            pass
        try:
            found.append((name, reverse(name, kwargs=kwargs)))
        except Exception as error:  # a pattern the kwargs cannot fill is a test to fix, not to skip
            pytest.fail(f"cannot reverse {name} with {kwargs}: {error}")
    return found


def _body(response):
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode("utf-8", "replace")
    return response.content.decode("utf-8", "replace")


def _bundle_text(response):
    """A zip download's files, as text (identities could hide inside it)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(response.getvalue())) as archive:
        return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


# One test per role, so that the suite's processes (pytest-xdist) share the matrix out.
@pytest.mark.parametrize("role", ROLES)
def test_every_role_on_every_surface_reads_only_what_the_policy_allows(world, role):
    checked = 0
    pages = surfaces(world)
    assert len(pages) > 80, "the URLconf walk found too few surfaces"
    worker_pages = {name for name, pattern in _patterns(get_resolver().url_patterns)
                    if re.search(r"<(?:\w+:)?(token|join_key)>", pattern)}  # fmt: skip
    assert len(worker_pages) > 10
    client = client_for(world, role)
    for name, url in pages:
        if name in ("admin:logout", "logout"):
            continue
        response = client.get(url)
        checked += 1
        assert response.status_code < 500, f"{role} GET {url}: {response.status_code}"
        text = (
            _bundle_text(response) if response.get("Content-Type") == "application/zip" else _body(response)
        )
        if role not in MANAGERS_OF_S:
            leaked = [secret for secret in world.secrets if secret in text]
            assert not leaked, f"{role} GET {url} ({name}) shows S's secrets {leaked}"
        stored = [study for study, key in STORED_KEYS.items() if key in text]
        assert not stored, f"{role} GET {url} ({name}) shows the stored key of {stored}"
        if role not in READERS_OF_S:
            assert S_TITLE not in text and "sierra-doc" not in text, f"{role} GET {url} shows S's data"
        # (A URL holding T's worker secrets shows T's task to its bearer, whoever sends it.)
        if role not in READERS_OF_T and name not in worker_pages:  # e.g. S's export holding T's rows
            assert T_TITLE not in text and T_MARK not in text, f"{role} GET {url} shows T's data"
    skipped = sum(1 for name, _ in pages if name in ("admin:logout", "logout"))
    assert checked == len(pages) - skipped
    print(f"read matrix: {role} x {len(pages)} surfaces = {checked} requests")


# --- writes ---


class _FormFields(HTMLParser):
    """The fields of the page's forms that post, as a browser would send them: all of them
    together (`data`) and each form apart (`forms`, [(action, fields)])."""

    def __init__(self):
        super().__init__()
        self.data, self._textarea, self._select = {}, None, None
        self.forms, self._form = [], None

    def _targets(self):
        return [self.data] if self._form is None else [self.data, self._form]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "form" and attrs.get("method", "").lower() == "post":
            self._form = {}
            self.forms.append((attrs.get("action", ""), self._form))
        elif tag == "input" and name and attrs.get("type") not in ("submit", "button", "file", "image"):
            if attrs.get("type") in ("checkbox", "radio") and "checked" not in attrs:
                return
            for fields in self._targets():
                fields.setdefault(name, attrs.get("value", "on" if attrs.get("type") == "checkbox" else ""))
        elif tag == "textarea" and name:
            self._textarea = name
            for fields in self._targets():
                fields[name] = ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            # The selected option, else the first that is not empty ("---------"): a valid choice.
            value = attrs.get("value", "")
            for fields in self._targets():
                if "selected" in attrs or not fields.get(self._select):
                    fields[self._select] = value

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self._form = None

    def handle_data(self, data):
        if self._textarea:
            for fields in self._targets():
                fields[self._textarea] += data


def _marked(fields):
    """A form's fields as a POST sends them, with a change a save would write: every text field
    gets a mark."""
    data = {key: value for key, value in fields.items() if key != "csrfmiddlewaretoken"}
    for key, value in list(data.items()):
        if re.search(r"(message|title|description|instructions|name|label)$", key) and isinstance(value, str):
            data[key] = value + " (changed)"
    return data


def form_data(html):
    parser = _FormFields()
    parser.feed(html)
    return _marked(parser.data)


# Any researcher (an analyst of S is one elsewhere) may make a study of their own there: not a
# write on S.
CONSOLE_NOT_ON_S = "console:new"


def console_forms(world, researcher_client):
    """{action: [fields]}: the forms that post on S's console pages as its researcher sees them
    (each tab of the study page too), with the values the page gives them, marked (`_marked`)."""
    found = {}
    pages = [
        (name, url)
        for name, url in surfaces(world)
        if name.startswith("console:") and name != CONSOLE_NOT_ON_S
    ]
    for name, url in pages:
        for page_url in [url] + (
            [f"{url}?tab={tab}" for tab in CONSOLE_TABS] if name == "console:study" else []
        ):
            page = researcher_client.get(page_url)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            parser = _FormFields()
            parser.feed(page.content.decode())
            for action, fields in parser.forms:
                found.setdefault(action or url, []).append(_marked(fields))
    return found


CONSOLE_TABS = ("design", "pilot", "run", "analyse", "publish")


# Every app whose rows a write could reach: the core's, Django's, and every installed
# protocol's (the protocols' app labels come from the apps, so a new one is watched too).
WATCHED_APPS = (
    "accounts",
    "studies",
    "annotations",
    "reports",
    "qualification",
    "exports",
    "authtoken",
    "auth",
    "evaluators",
    "crowd",
    "outbound",
    *(config.label for config in apps.get_app_configs() if config.name.startswith("protocols.")),
)


def database_state():
    """Every row of the platform's own tables (and logins and tokens): what a write would change."""
    state = {}
    for model in apps.get_models():
        if model._meta.app_label in WATCHED_APPS:
            fields = [f.attname for f in model._meta.concrete_fields if f.attname not in ("last_login",)]
            state[model._meta.label] = list(model.objects.order_by("pk").values_list(*fields))
    return state


def admin_writes(world, name, url, researcher_client):
    """The POSTs a read-only role could send to an admin page: its form, its actions, list_editable."""
    page = researcher_client.get(url)
    bodies = []
    if page.status_code == 200 and "text/html" in page.get("Content-Type", ""):
        html = page.content.decode()
        data = form_data(html)
        if data:
            bodies.append(data)
        model = _model_of_admin_url(name)
        if name.endswith("_changelist") and model is not None:
            obj = s_object(world, model)
            if obj is not None:
                for action in re.findall(r'<option value="([\w-]+)">', html):
                    bodies.append({"action": action, ACTION_CHECKBOX_NAME: [str(obj.pk)], "index": "0",
                                   "post": "yes"})  # fmt: skip
                if "_save" in html:  # list_editable
                    bodies.append({**data, "_save": "Save"})
    bodies.append({})
    return bodies


# One test per role, so that the suite's processes (pytest-xdist) share the matrix out.
@pytest.mark.parametrize("role", ["analyst", "other_researcher", "anonymous", "task_token"])
def test_read_only_roles_change_nothing_through_any_surface(world, role):
    researcher = client_for(world, "researcher")
    pages = [(name, url) for name, url in surfaces(world) if "logout" not in name and "login" not in name]
    forms = console_forms(world, researcher)  # the console's writes on S, as its researcher sees them
    posts = 0
    client = client_for(world, role)
    for name, url in pages:
        if name == CONSOLE_NOT_ON_S or not (
            name.startswith(("admin:", "console:"))
            or url.startswith("/api/")
            and not url.startswith("/api/task/")
        ):
            continue  # worker pages: the token's bearer is the worker, who may write their own work
        if name.startswith("admin:"):
            bodies = admin_writes(world, name, url, researcher)
        elif name.startswith("console:"):
            bodies = [*forms.get(url, []), {}]
        else:
            bodies = [{"study": world.s.pk, "status": "closed", "worker_ids": ["w-new"], "per_document": 1}]
        for body in bodies:
            before = database_state()
            if name.startswith(("admin:", "console:")):
                response = client.post(url, body)
            else:
                response = client.generic("POST", url, __import__("json").dumps(body),
                                          content_type="application/json")  # fmt: skip
                client.patch(url, body, content_type="application/json")
                client.delete(url)
            posts += 1
            assert response.status_code < 500, f"{role} POST {url} {body}: {response.status_code}"
            assert database_state() == before, f"{role} changed the database through POST {url} {body}"
            # What a POST answers (e.g. admin's Export, a file) holds no identity either.
            text = (
                _bundle_text(response)
                if response.get("Content-Type") == "application/zip"
                else _body(response)
            )
            leaked = [secret for secret in world.secrets if secret in text]
            assert not leaked, f"{role} POST {url} {body} answers S's secrets {leaked}"
    assert posts > 80, "the write matrix sent too few POSTs to mean anything"
    print(f"write matrix: {posts} POSTs by {role}")


def test_the_write_matrix_can_fail_a_researcher_saving_the_same_forms_changes_things(world):
    """The bodies the matrix sends are real writes: S's researcher sending them changes the database."""
    researcher = client_for(world, "researcher")
    url = reverse("admin:qualification_qualificationresult_changelist")
    body = next(b for b in admin_writes(world, "admin:qualification_qualificationresult_changelist", url,
                                         researcher) if "_save" in b)  # fmt: skip
    before = database_state()
    researcher.post(url, body)
    assert database_state() != before
    assert QualificationResult.objects.get(qualification__study=world.s).message == "Well done (changed)"


def test_the_console_forms_the_matrix_sends_are_real_writes(world):
    """S's researcher sending the console's forms the matrix sends (the stage and the report) changes
    the database: the matrix's console POSTs would see a read-only role's write."""
    researcher = client_for(world, "researcher")
    forms = console_forms(world, researcher)
    for name in ("console:stage", "console:report"):
        url = reverse(name, args=[world.s.pk])
        assert forms.get(url), f"no form of {name} on S's console pages"
        before = database_state()
        for body in forms[url]:
            researcher.post(url, body)
        assert database_state() != before, f"S's researcher sending {name}'s forms changed nothing"


def test_a_studys_report_annotation_table_and_bundle_hold_that_study_only(world):
    """Both studies hold submitted work: each figure and file of S is computed from S alone."""
    from accounts.pseudonyms import annotator_pseudonym

    s_workers = set(world.s.assignments.values_list("worker_id", flat=True))
    report = study_report_data(world.s)
    assert set(report["annotators"]) == {annotator_pseudonym(world.s.pk, pk) for pk in s_workers}
    assert sum(values["spans"] for values in report["categories"].values()) == 4  # 2 workers x 2 documents

    researcher = client_for(world, "researcher")
    table = _body(researcher.get(reverse("export-annotations", args=[world.s.pk, "csv"])))
    rows = table.strip().splitlines()[1:]
    assert len(rows) == 4 and all(row.startswith(world.s.slug + ",") for row in rows)
    bundle = _bundle_text(researcher.get(reverse("export-bundle", args=[world.s.pk])))
    assert "sierra-doc0" in bundle and T_MARK not in bundle and "6a1b2c3d4e5f60718293a4b5" not in bundle


def test_the_admin_export_button_gives_an_analyst_pseudonyms_only(world):
    """The write matrix posts admin's Export forms too; here one is read back in full."""
    from accounts.pseudonyms import annotator_pseudonym

    url = reverse("admin:annotations_assignment_export")
    body = form_data(client_for(world, "researcher").get(url).content.decode())
    body["format"] = "0"  # CSV, the first format offered
    response = client_for(world, "analyst").post(url, body)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    table = response.getvalue().decode()
    assert annotator_pseudonym(world.s.pk, world.s_assignment.worker_id) in table
    assert not [secret for secret in world.secrets if secret in table]
    assert T_MARK not in table


@pytest.mark.parametrize(
    "changelist", ["admin:annotations_assignment_changelist", "admin:span_errorannotation_changelist"]
)
def test_searching_by_a_platform_id_finds_rows_only_for_who_manages_the_study(world, changelist):
    """Otherwise an analyst could tell which pseudonym is which PROLIFIC_PID by searching for it."""
    url = reverse(changelist) + f"?q={PID_S[0]}"
    found = client_for(world, "researcher").get(url).content.decode()
    assert "sierra-doc0" in found and "sierra-doc1" in found
    assert "2 results" in found or "result_list" in found
    hidden = client_for(world, "analyst").get(url).content.decode()
    assert "sierra-doc" not in hidden and "0 results" in hidden
    # Searching by what the analyst does see still works.
    assert (
        "sierra-doc1"
        in client_for(world, "analyst").get(reverse(changelist) + "?q=sierra-doc1").content.decode()
    )
