"""The database itself refuses rows that break the data model's invariants."""

import pytest
from django.db import IntegrityError, transaction

from annotations.models import Assignment
from studies.models import Document, Segment
from tests.factories import (
    AssignmentFactory,
    CategoryFactory,
    DocumentFactory,
    ErrorAnnotationFactory,
    SegmentFactory,
)

pytestmark = pytest.mark.django_db


def refused(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_document_external_id_is_unique_per_study_only():
    document = DocumentFactory(external_id="same")
    refused(lambda: Document.objects.create(study=document.study, external_id="same"))
    DocumentFactory(external_id="same")  # another study may reuse it


def test_segment_index_is_unique_per_document_and_text_not_empty():
    segment = SegmentFactory(index=0)
    refused(lambda: Segment.objects.create(document=segment.document, index=0, text="x"))
    refused(lambda: Segment.objects.create(document=segment.document, index=1, text=""))


@pytest.mark.parametrize(("start", "end"), [(4, 4), (5, 2)])
def test_span_needs_start_before_end(start, end):
    refused(lambda: ErrorAnnotationFactory(start=start, end=end))


def test_paired_fields_are_all_or_none():
    segment = SegmentFactory()
    refused(lambda: ErrorAnnotationFactory(paired_segment=segment))
    refused(lambda: ErrorAnnotationFactory(paired_segment=segment, paired_start=0))
    refused(lambda: ErrorAnnotationFactory(paired_start=0, paired_end=3))
    refused(lambda: ErrorAnnotationFactory(paired_segment=segment, paired_start=3, paired_end=3))
    ErrorAnnotationFactory(paired_segment=segment, paired_start=0, paired_end=3, paired_text="Ann")


def test_client_id_is_unique_per_assignment():
    first = ErrorAnnotationFactory(client_id="c-1")
    refused(lambda: ErrorAnnotationFactory(assignment=first.assignment, client_id="c-1"))
    ErrorAnnotationFactory(client_id="c-1")  # another assignment may use it


def test_one_token_per_assignment_and_tokens_are_long_and_distinct():
    first, second = AssignmentFactory(), AssignmentFactory()
    assert first.token != second.token
    assert len(first.token) >= 22  # 128 bits as url-safe base64
    refused(lambda: Assignment.objects.filter(pk=second.pk).update(token=first.token))


def test_a_worker_gets_a_document_once_per_kind_and_retests_may_be_several():
    assignment = AssignmentFactory()
    refused(lambda: AssignmentFactory(document=assignment.document, worker=assignment.worker))
    AssignmentFactory(document=assignment.document, worker=assignment.worker, kind="gold")
    refused(lambda: AssignmentFactory(document=assignment.document, worker=assignment.worker, kind="gold"))
    # Several retests: a person's repeated annotations of one item in an imported file.
    AssignmentFactory(document=assignment.document, worker=assignment.worker, kind="retest")
    AssignmentFactory(document=assignment.document, worker=assignment.worker, kind="retest")


def test_category_keys_and_shortcuts_are_unique_per_taxonomy():
    category = CategoryFactory(key="CharE", shortcut="c")
    refused(lambda: CategoryFactory(taxonomy=category.taxonomy, key="CharE"))
    refused(lambda: CategoryFactory(taxonomy=category.taxonomy, key="Other", shortcut="c"))
    CategoryFactory(taxonomy=category.taxonomy, key="NoKey1", shortcut="")
    CategoryFactory(taxonomy=category.taxonomy, key="NoKey2", shortcut="")
