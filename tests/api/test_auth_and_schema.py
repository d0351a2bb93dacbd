"""Token auth for scripts, session auth (with CSRF) for the browser, and the OpenAPI schema."""

import pytest
from django.test import Client
from django.urls import include, path, reverse
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def test_a_script_uses_its_token_and_needs_no_csrf_token(world):
    token = Token.objects.create(user=world.users["researcher"])
    client = Client(enforce_csrf_checks=True)
    auth = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    assert client.get(reverse("study-list"), **auth).json()["count"] == 1
    url = reverse("study-detail", args=[world.study.pk])
    response = client.patch(url, {"status": "closed"}, content_type="application/json", **auth)
    assert response.status_code == 200


@pytest.mark.parametrize("header", ["Token not-a-token", "Token ", "Bearer abc", "Token a b"])
def test_a_bad_authorization_header_is_a_401(world, header):
    response = Client().get(reverse("study-list"), HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token" and response.json()["detail"]


def test_a_task_token_opens_the_task_page_api_but_not_this_api(world):
    token = world.assignment.token
    assert Client().get(reverse("task-api-state", args=[token])).status_code == 200
    response = Client().get(reverse("assignment-list"), HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 401 and response.json() == {"detail": "Invalid token."}


def test_the_browser_session_reads_and_writes_with_a_csrf_token(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["researcher"])
    assert client.get(reverse("study-list")).status_code == 200
    url = reverse("study-detail", args=[world.study.pk])
    refused = client.patch(url, {"status": "closed"}, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    client.get(reverse("admin:index"))  # a page with a form sets the csrftoken cookie
    csrf = client.cookies["csrftoken"].value
    response = client.patch(url, {"status": "closed"}, content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert response.status_code == 200 and response.json()["status"] == "closed"


def test_the_schema_documents_every_endpoint_without_warnings():
    GENERATOR_STATS.reset()
    generator = SchemaGenerator(patterns=[path("api/", include("api.urls"))])
    schema = generator.get_schema(request=None, public=True)
    validate_schema(schema)
    assert not GENERATOR_STATS, "drf-spectacular warned about the API (run manage.py spectacular --validate)"
    paths = schema["paths"]
    for resource in ["studies", "taxonomies", "documents", "assignments", "annotations", "reports"]:
        assert "get" in paths[f"/api/{resource}/"] and "get" in paths[f"/api/{resource}/{{id}}/"]
    assert set(paths["/api/studies/{id}/"]) == {"get", "patch"}
    assert "post" in paths["/api/reports/"] and "post" in paths["/api/assignments/generate/"]
    filters = {p["name"] for p in paths["/api/annotations/"]["get"]["parameters"]}
    assert {"study", "document", "annotator", "category", "kind", "page", "page_size"} <= filters
    assignment = schema["components"]["schemas"]["Assignment"]["properties"]
    assert "token" not in assignment and "completion_code" not in assignment


def test_the_schema_and_its_docs_page_are_served_from_this_site(client):
    assert client.get(reverse("api-schema")).status_code == 200
    page = client.get(reverse("api-docs")).content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn." not in page and "unpkg" not in page


def test_a_logged_in_browser_gets_the_browsable_pages(world):
    client = Client()
    client.force_login(world.users["analyst"])
    for name in ["study", "taxonomy", "document", "assignment", "annotation", "report"]:
        response = client.get(reverse(f"{name}-list"), HTTP_ACCEPT="text/html")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    response = client.get(reverse("document-detail", args=[world.document.pk]), HTTP_ACCEPT="text/html")
    assert response.status_code == 200 and world.document.external_id in response.content.decode()
