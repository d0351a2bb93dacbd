"""The worker's pages as served: safe text, the right state, bounded queries."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.factories import AssignmentFactory, CategoryFactory, make_span_study

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_instructions_render_markdown_safely_with_the_taxonomy(client):
    study = make_span_study(
        documents=1, instructions=f"# Read\n\nMark **errors**.\n\n{HOSTILE}\n\n[x](javascript:alert(3))"
    )
    CategoryFactory(taxonomy=study.taxonomy, key="Evil", label=HOSTILE, description=HOSTILE)
    assignment = AssignmentFactory(document=study.documents.get())
    html = client.get(reverse("task-instructions", args=[assignment.token])).content.decode()
    assert "<h1>Read</h1>" in html and "<strong>errors</strong>" in html
    assert "<script>alert(1)" not in html
    assert "onerror" not in html.replace("&lt;img src=x onerror=alert(2)&gt;", "")
    assert "javascript:" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the category label, escaped
    assert "paired: also select the earlier span" in html  # RepE's kind is explained


def test_unknown_token_is_404_on_every_page(client):
    for name in ["task-instructions", "task-annotate", "task-done"]:
        assert client.get(reverse(name, args=["nope" * 8])).status_code == 404


def test_annotation_page_carries_its_data_as_json_only(client):
    study = make_span_study(documents=1, segments=2)
    segment = study.documents.get().segments.get(index=0)
    segment.text = f"Anna {HOSTILE} 😀"
    segment.save()
    assignment = AssignmentFactory(document=segment.document)
    html = client.get(reverse("task-annotate", args=[assignment.token])).content.decode()
    assert "<script>alert(1)</script>" not in html
    start = html.index('<script id="task-data" type="application/json">') + len(
        '<script id="task-data" type="application/json">'
    )
    data = json.loads(html[start : html.index("</script>", start)])
    assert data["segments"][0]["text"] == segment.text
    assert data["api"]["annotations"] == f"/api/task/{assignment.token}/annotations/"
    assert [c["key"] for c in data["categories"]] == ["CharE", "RepE", "SceneE"]


def test_done_page_shows_code_and_platform_hand_off(client):
    study = make_span_study(documents=1, segments=1,
                            config={"prolific_completion_url": "https://app.prolific.com/submissions/complete?cc=C0DE"})  # fmt: skip
    prolific = AssignmentFactory(document=study.documents.get(), worker__platform="prolific")
    client.post(reverse("task-api-submit", args=[prolific.token]), "{}", content_type="application/json")
    prolific.refresh_from_db()
    html = client.get(reverse("task-done", args=[prolific.token])).content.decode()
    assert prolific.completion_code in html
    assert 'href="https://app.prolific.com/submissions/complete?cc=C0DE"' in html

    other = make_span_study(documents=1, segments=1).documents.get()
    turk = AssignmentFactory(document=other, worker__platform="mturk",
                             platform_ids={"assignmentId": "asg9", "turkSubmitTo": "https://www.mturk.com"})  # fmt: skip
    client.post(reverse("task-api-submit", args=[turk.token]), "{}", content_type="application/json")
    html = client.get(reverse("task-done", args=[turk.token])).content.decode()
    assert 'action="https://www.mturk.com/mturk/externalSubmit"' in html
    assert 'name="assignmentId" value="asg9"' in html


def test_mturk_hand_off_only_to_mturk_hosts(client):
    study = make_span_study(documents=1, segments=1)
    turk = AssignmentFactory(document=study.documents.get(), worker__platform="mturk",
                             platform_ids={"assignmentId": "a", "turkSubmitTo": "https://evil.example"})  # fmt: skip
    client.post(reverse("task-api-submit", args=[turk.token]), "{}", content_type="application/json")
    assert "evil.example" not in client.get(reverse("task-done", args=[turk.token])).content.decode()


def annotate(assignment, count):
    segments = list(assignment.document.segments.order_by("index"))
    categories = list(assignment.study.taxonomy.categories.all())
    ErrorAnnotation.objects.bulk_create(
        ErrorAnnotation(
            assignment=assignment,
            segment=segments[n % len(segments)],
            category=categories[n % len(categories)],
            start=0,
            end=7,
            text="Segment",
            paired_segment=segments[0] if categories[n % len(categories)].is_paired else None,
            paired_start=0 if categories[n % len(categories)].is_paired else None,
            paired_end=7 if categories[n % len(categories)].is_paired else None,
            client_id=f"c{n}",
        )  # fmt: skip
        for n in range(count)
    )


def test_annotation_page_query_count_does_not_grow_with_annotations(client):
    counts = []
    for annotations in (5, 200):
        study = make_span_study(documents=1, segments=40)
        assignment = AssignmentFactory(document=study.documents.get())
        Assignment.objects.filter(pk=assignment.pk).update(
            current_segment=39, segments_visited=list(range(40))
        )
        annotate(assignment, annotations)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("task-annotate", args=[assignment.token]))
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
