"""A study S with a researcher and an analyst, another researcher's study, and API clients."""

from types import SimpleNamespace

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import StudyMembership, Worker
from accounts.services import researcher_create
from reports.models import Report
from studies.models import Category
from tests.factories import AssignmentFactory, ErrorAnnotationFactory, WorkerFactory, make_span_study

PROLIFIC_PID = "5f0c9a1e7d3b2a00123abcde"
ROLES = ["anonymous", "task_token", "analyst", "other_researcher", "researcher", "superuser"]


def study_objects(study, *, worker, platform_ids=None):
    """An assignment (with a completion code), an annotation and a finished report of `study`."""
    document = study.documents.order_by("position").first()
    assignment = AssignmentFactory(
        document=document, worker=worker, platform_ids=platform_ids or {}, completion_code="C0MPL3T10N"
    )
    annotation = ErrorAnnotationFactory(
        assignment=assignment,
        segment=document.segments.get(index=0),
        category=Category.objects.get(taxonomy=study.taxonomy, key="CharE"),
        start=0,
        end=7,
        text="Segment",
    )
    report = Report.objects.create(study=study, status=Report.Status.DONE, result={"study": study.slug})
    return assignment, annotation, report


@pytest.fixture
def analyst(db):
    return researcher_create(username="analyst-a", password="pass-w0rd-for-tests")


@pytest.fixture
def world(researcher, other_researcher, analyst, superuser):
    """S (run by `researcher`, read by `analyst`) and another study run by `other_researcher`."""
    study = make_span_study(
        documents=2, researcher=researcher, config={"prolific_completion_url": "https://x/cc"}
    )
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    worker = WorkerFactory(platform=Worker.Platform.PROLIFIC, external_id=PROLIFIC_PID)
    assignment, annotation, report = study_objects(
        study, worker=worker, platform_ids={"PROLIFIC_PID": PROLIFIC_PID, "SESSION_ID": "sess-42"}
    )
    other = make_span_study(documents=1, researcher=other_researcher)
    other_assignment, other_annotation, other_report = study_objects(other, worker=WorkerFactory())
    return SimpleNamespace(
        study=study, assignment=assignment, annotation=annotation, report=report,
        document=assignment.document, taxonomy=study.taxonomy,
        other=other, other_assignment=other_assignment, other_annotation=other_annotation,
        other_report=other_report, other_document=other_assignment.document, other_taxonomy=other.taxonomy,
        users={"analyst": analyst, "other_researcher": other_researcher, "researcher": researcher,
               "superuser": superuser},
    )  # fmt: skip


@pytest.fixture
def api_client_for(world):
    """api_client_for(role) -> an APIClient sending that role's credentials."""

    def make(role):
        client = APIClient()
        if role == "task_token":  # a worker's secret is not an API token
            client.credentials(HTTP_AUTHORIZATION=f"Token {world.assignment.token}")
            return client
        return client if role == "anonymous" else token_client(world.users[role])

    return make


def token_client(user):
    """An APIClient sending `user`'s API token, as a script would."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
