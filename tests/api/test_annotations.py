"""Reading error annotations: filters, pagination and a bounded number of queries."""

import pytest
from django.test import override_settings
from django.urls import reverse

from annotations.models import Assignment
from studies.models import Category
from tests.factories import AssignmentFactory, ErrorAnnotationFactory, WorkerFactory, make_span_study

from .conftest import token_client

pytestmark = pytest.mark.django_db

# The budgets below are the lists' own statements. On the embedded default the rate limits
# add theirs to every API request (the database cache: docs/decisions.md), the same for any
# list; bench/api_requests.py measures them. Here they count in memory.
RATE_LIMITS_IN_MEMORY = override_settings(
    CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
)


def annotate(study, *, rows, worker=None, kind=Assignment.Kind.MAIN, category="CharE", paired_every=3):
    """`rows` annotations by one worker, spread over the study's documents; every
    `paired_every`-th is a repetition, whose second span also needs its segment."""
    worker = worker or WorkerFactory()
    category = Category.objects.get(taxonomy=study.taxonomy, key=category)
    repetition = Category.objects.get(taxonomy=study.taxonomy, key="RepE")
    assignments = [
        AssignmentFactory(document=document, worker=worker, kind=kind) for document in study.documents.all()
    ]
    for n in range(rows):
        assignment = assignments[n % len(assignments)]
        segments = list(assignment.document.segments.order_by("index"))
        paired = bool(paired_every) and n % paired_every == 0
        ErrorAnnotationFactory(
            assignment=assignment, segment=segments[-1], start=n % 5, end=n % 5 + 3, text="egm",
            category=repetition if paired else category,
            **({"paired_segment": segments[0], "paired_start": 0, "paired_end": 4, "paired_text": "Segm"}
               if paired else {}),
        )  # fmt: skip
    return assignments


@RATE_LIMITS_IN_MEMORY
@pytest.mark.parametrize("rows", [5, 50])
def test_the_list_takes_the_same_few_queries_for_5_or_50_rows(
    researcher, django_assert_max_num_queries, rows
):
    study = make_span_study(documents=3, researcher=researcher)
    annotate(study, rows=rows)
    api_client = token_client(researcher)
    # The token and its user, the count, the page: the same for 5 rows as for 50.
    with django_assert_max_num_queries(3):
        response = api_client.get(reverse("annotation-list"))
    assert response.json()["count"] == rows
    assert len(response.json()["results"]) == rows


@RATE_LIMITS_IN_MEMORY
@pytest.mark.parametrize("rows", [5, 50])
def test_assignments_and_studies_lists_take_a_bounded_number_of_queries(
    researcher, django_assert_max_num_queries, rows
):
    for _ in range(rows // 5):
        study = make_span_study(documents=5, researcher=researcher)
        annotate(study, rows=1)
    api_client = token_client(researcher)
    # Token, count, page, and the user's roles in their studies (who sees platform ids).
    with django_assert_max_num_queries(4):
        assert api_client.get(reverse("assignment-list")).json()["count"] == rows
    with django_assert_max_num_queries(4):
        assert api_client.get(reverse("study-list")).json()["count"] == rows // 5
    with django_assert_max_num_queries(3):
        assert api_client.get(reverse("document-list")).json()["count"] == rows


@pytest.fixture
def two_studies(researcher):
    first = make_span_study(documents=2, researcher=researcher)
    second = make_span_study(documents=1, researcher=researcher)
    alice, bob = WorkerFactory(external_id="alice"), WorkerFactory(external_id="bob")
    annotate(first, rows=4, worker=alice)
    annotate(first, rows=2, worker=bob, category="SceneE", paired_every=None)
    annotate(first, rows=3, worker=WorkerFactory(), kind=Assignment.Kind.GOLD, paired_every=None)
    annotate(second, rows=1, worker=alice)
    return first, second, alice, bob


def listed(client, **params):
    response = client.get(reverse("annotation-list"), params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_filters_by_study_document_category_and_kind(two_studies, researcher):
    first, second, *_ = two_studies
    api_client = token_client(researcher)
    assert len(listed(api_client, study=first.pk)) == 9
    assert {row["study"] for row in listed(api_client, study=second.pk)} == {second.pk}
    doc = f"{first.slug}-doc1"
    assert {row["document"] for row in listed(api_client, document=doc)} == {doc}
    assert len(listed(api_client, document=doc)) == 4  # alice 2, bob 1, gold 1
    scene = listed(api_client, category="SceneE")
    assert len(scene) == 2 and {row["category"] for row in scene} == {"SceneE"}
    gold = listed(api_client, kind="gold")
    assert len(gold) == 3 and {row["kind"] for row in gold} == {"gold"}
    assert listed(api_client, study=first.pk, category="SceneE", kind="gold") == []


def test_filters_by_pseudonymous_annotator_within_a_study(two_studies, researcher):
    first, second, alice, bob = two_studies
    api_client = token_client(researcher)
    bob_rows = [row for row in listed(api_client, study=first.pk) if row["category"] == "SceneE"]
    bob_pseudonym = bob_rows[0]["annotator"]
    assert bob_pseudonym.startswith("A") and len(bob_pseudonym) == 11
    assert {row["id"] for row in listed(api_client, annotator=bob_pseudonym)} == {r["id"] for r in bob_rows}
    # Alice has another pseudonym in each study: the filter finds her rows of that study only.
    alice_second = listed(api_client, study=second.pk)[0]["annotator"]
    assert len(listed(api_client, annotator=alice_second)) == 1
    assert listed(api_client, annotator=alice_second, study=first.pk) == []
    assert listed(api_client, annotator="alice") == []  # platform ids are not pseudonyms


def test_another_researcher_cannot_find_rows_by_pseudonym(two_studies, other_researcher):
    api_client = token_client(other_researcher)
    assert api_client.get(reverse("annotation-list")).json()["count"] == 0


def test_pages_of_annotations(two_studies, researcher):
    api_client = token_client(researcher)
    first = api_client.get(reverse("annotation-list"), {"page_size": 4}).json()
    assert first["count"] == 10 and len(first["results"]) == 4 and first["previous"] is None
    second = api_client.get(first["next"]).json()
    third = api_client.get(second["next"]).json()
    assert len(third["results"]) == 2 and third["next"] is None
    ids = [row["id"] for page in (first, second, third) for row in page["results"]]
    assert len(set(ids)) == 10  # a stable order: no row twice, none missed
    assert api_client.get(reverse("annotation-list"), {"page": 99}).status_code == 404


def test_paired_annotations_carry_their_second_span(two_studies, researcher):
    api_client = token_client(researcher)
    paired = [row for row in listed(api_client) if row["category"] == "RepE"]
    assert paired
    row = paired[0]
    assert (row["paired_segment"], row["paired_start"], row["paired_end"], row["paired_text"]) == (
        0,
        0,
        4,
        "Segm",
    )
    assert row["segment"] == 2 and row["end"] - row["start"] == 3
