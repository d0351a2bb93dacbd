"""A database filled by the release before the protocol apps migrates without losing a row.

The test winds the schema back to that release (judgments in the annotations
app), fills it through the historical models, migrates forward, and reads
everything back through the protocol apps' models: rows, ids, foreign keys,
content types and the permissions attached to them.
"""

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from protocols.rating.models import BestWorstJudgment, Rating
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.span.models import ErrorAnnotation

# The release before the move: the last migrations of the apps that held the judgments.
BEFORE_THE_MOVE = [
    ("annotations", "0006_assignment_activity_credited_to"),
    ("studies", "0003_category_snap_to_words"),
]
PROTOCOL_APPS = ("span", "rating", "review", "pairwise")


def _executor():
    return MigrationExecutor(connection)


def _wind_back():
    executor = _executor()
    apps_present = {app for app, _ in executor.loader.graph.leaf_nodes()}
    targets = [*BEFORE_THE_MOVE, *((app, None) for app in PROTOCOL_APPS if app in apps_present)]
    executor.migrate(targets)
    return _executor().loader.project_state(BEFORE_THE_MOVE).apps


def _migrate_to_latest():
    executor = _executor()
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def _fill(old):
    """One study of each kind, written with the models as the earlier release had them."""
    Taxonomy, Category = old.get_model("studies", "Taxonomy"), old.get_model("studies", "Category")
    Study, Document = old.get_model("studies", "Study"), old.get_model("studies", "Document")
    Segment, Worker = old.get_model("studies", "Segment"), old.get_model("accounts", "Worker")
    Assignment = old.get_model("annotations", "Assignment")
    taxonomy = Taxonomy.objects.create(slug="t", name="T", version="1")
    repetition = Category.objects.create(taxonomy=taxonomy, key="RepE", label="Repetition", kind="paired")
    worker = Worker.objects.create(platform="import", external_id="w1")

    span = Study.objects.create(slug="span-study", title="S", protocol="span", taxonomy=taxonomy)
    document = Document.objects.create(study=span, external_id="d1", position=1)
    first = Segment.objects.create(
        document=document, index=0, text="It rained. It rained.", sentences=[[0, 10]]
    )
    second = Segment.objects.create(document=document, index=1, text="It rained again.", sentences=[[0, 16]])
    assignment = Assignment.objects.create(study=span, document=document, worker=worker, status="submitted")
    spans = old.get_model("annotations", "ErrorAnnotation").objects
    spans.create(
        assignment=assignment, segment=second, category=repetition, start=0, end=9, text="It rained",
        paired_segment=first, paired_start=0, paired_end=9, paired_text="It rained", client_id="c1",
    )  # fmt: skip

    likert = Study.objects.create(slug="likert-study", title="L", protocol="likert")
    outputs = [
        Document.objects.create(study=likert, external_id=f"o{n}", block="1", position=n) for n in range(3)
    ]
    block = Assignment.objects.create(study=likert, worker=worker, block="1", status="submitted")
    old.get_model("annotations", "Rating").objects.create(assignment=block, document=outputs[0], score=4)
    old.get_model("annotations", "BestWorstJudgment").objects.create(
        assignment=block,
        position=0,
        documents=[o.pk for o in outputs],
        best=outputs[0],
        worst=outputs[2],
        value=2,
    )

    review = Study.objects.create(slug="review-study", title="R", protocol="review")
    reviewed = Document.objects.create(study=review, external_id="r1", position=1)
    Segment.objects.create(document=reviewed, index=0, text="A text.", sentences=[[0, 7]])
    reviewer = Assignment.objects.create(study=review, document=reviewed, worker=worker, status="submitted")
    item = old.get_model("annotations", "ReviewItem").objects.create(
        document=reviewed, position=0, evaluator="gpt", label="Evaluator A", span_text="A text",
        span_status="found", locations=[[0, 0, 6]],
    )  # fmt: skip
    old.get_model("annotations", "ReviewAnswer").objects.create(
        assignment=reviewer, item=item, answers={"is_error": "Error"}
    )
    return {"segments": (first.pk, second.pk), "category": repetition.pk, "outputs": [o.pk for o in outputs]}


@pytest.mark.django_db(transaction=True)
def test_a_database_of_the_earlier_release_keeps_every_judgment_and_permission():
    old = _wind_back()
    try:
        made = _fill(old)
        # Content types and permissions as the earlier release had them: a group holds one.
        error_type, _ = ContentType.objects.get_or_create(app_label="annotations", model="errorannotation")
        permission, _ = Permission.objects.get_or_create(
            content_type=error_type, codename="view_errorannotation", defaults={"name": "Can view"}
        )
        group = Group.objects.create(name="readers of spans")
        group.permissions.add(permission)
    finally:
        _migrate_to_latest()

    annotation = ErrorAnnotation.objects.get()
    assert (annotation.segment_id, annotation.paired_segment_id) == (made["segments"][1], made["segments"][0])
    assert annotation.category_id == made["category"]
    assert (annotation.start, annotation.end, annotation.text, annotation.client_id) == (
        0,
        9,
        "It rained",
        "c1",
    )
    assert annotation.assignment.study.slug == "span-study"

    rating = Rating.objects.get()
    assert (rating.score, rating.document_id) == (4, made["outputs"][0])
    judgment = BestWorstJudgment.objects.get()
    assert (judgment.documents, judgment.best_id, judgment.worst_id, judgment.value) == (
        made["outputs"], made["outputs"][0], made["outputs"][2], 2,
    )  # fmt: skip

    answer = ReviewAnswer.objects.get()
    assert answer.answers == {"is_error": "Error"}
    assert answer.item == ReviewItem.objects.get() and answer.item.label == "Evaluator A"

    # The content type moved with its model, so the group's permission still names it.
    moved = ContentType.objects.get_for_model(ErrorAnnotation)
    assert moved.pk == error_type.pk and moved.app_label == "span"
    assert Group.objects.get(name="readers of spans").permissions.get().codename == "view_errorannotation"
    assert not ContentType.objects.filter(app_label="annotations", model="errorannotation").exists()
