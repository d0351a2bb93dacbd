"""An import's spans and segments skip PostgreSQL's row-by-row foreign-key checks, and what those
checks guarded still holds (bundles/references.py): the older rows they refer to are locked until
the commit, a missing one fails the import, the rest of the transaction and every other session
are checked as ever, and a role that may not switch the checks off keeps them."""

import pytest
from django.db import IntegrityError, OperationalError, connection, connections, transaction

from annotations.models import Assignment
from bundles.references import can_skip_row_checks, references_checked_here
from bundles.services import study_import_bundle
from protocols.span.models import ErrorAnnotation
from studies.models import Category, Study
from tests.bundles import annotation, write_bundle
from tests.factories import AssignmentFactory, CategoryFactory, make_span_study

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the triggers and row locks are PostgreSQL's"
    ),
]


def replication_role():
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        return cursor.fetchone()[0]


def other_session_locks(category, lock):
    """Whether another session can take `lock` on `category` at once (NOWAIT: no waiting, no timing)."""
    other = connections.create_connection("default")
    other.set_autocommit(False)
    try:
        with other.cursor() as cursor:
            cursor.execute(f"SELECT id FROM studies_category WHERE id = %s FOR {lock} NOWAIT", [category.pk])  # noqa: S608
        return True
    except OperationalError:
        return False
    finally:
        other.rollback()
        other.close()


def test_an_older_category_is_locked_against_deletion_but_not_against_other_studies_writes():
    category = CategoryFactory(key="Shared")
    assert other_session_locks(category, "UPDATE")
    with transaction.atomic(), references_checked_here(existing=[(Category, [category.pk])]):
        assert replication_role() == "replica"
        # FOR UPDATE is what a DELETE or a key change takes: it must wait for the import's commit.
        assert not other_session_locks(category, "UPDATE")
        # Other studies' spans check the same row with FOR KEY SHARE, and an edit of its label
        # takes FOR NO KEY UPDATE: neither waits for the import.
        assert other_session_locks(category, "KEY SHARE")
        assert other_session_locks(category, "NO KEY UPDATE")
    assert other_session_locks(category, "UPDATE")


def test_a_category_gone_before_the_write_fails_it():
    category = CategoryFactory(key="Gone")
    gone = category.pk
    category.delete()
    missing = pytest.raises(IntegrityError, match=f"{gone} no longer exists")
    with missing, transaction.atomic(), references_checked_here(existing=[(Category, [gone])]):
        pytest.fail("nothing may be written once a referenced row is missing")


def test_the_rest_of_the_transaction_is_checked_again():
    study = make_span_study(documents=1, segments=1)
    assignment = AssignmentFactory(document=study.documents.get())
    category = study.taxonomy.categories.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        with references_checked_here():
            pass
        assert replication_role() == "origin"
        # A span whose segment does not exist: refused at the commit, the constraint being deferred.
        ErrorAnnotation.objects.create(
            assignment=assignment, category=category, segment_id=10**9, start=0, end=1, text="S"
        )
    assert not ErrorAnnotation.objects.exists()


def test_a_role_that_may_not_switch_the_checks_off_keeps_them():
    with connection.cursor() as cursor:
        cursor.execute(
            "DO $$ BEGIN CREATE ROLE falte_test_unprivileged NOLOGIN; "
            "EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL ROLE falte_test_unprivileged")
        assert not can_skip_row_checks()
        with references_checked_here():
            assert replication_role() == "origin"
        transaction.set_rollback(True)
    assert can_skip_row_checks()


def test_an_imported_study_refers_only_to_rows_that_exist(tmp_path):
    """The spans and segments written with the checks off point where the checks would have let them."""
    spans = [annotation(1, "CharE", 0, 13, "Miss Sessions"), annotation(0, "CharE", 28, 29, "😀")]
    assignments = [
        {"document": "d1", "annotator": "w1", "annotations": spans[:1]},
        {"document": "d2", "annotator": "w1", "annotations": spans[1:]},
    ]
    result = study_import_bundle(directory=write_bundle(tmp_path, assignments=assignments))
    study = Study.objects.get(pk=result.study.pk)
    stored = ErrorAnnotation.objects.filter(assignment__study=study)
    assert stored.count() == 2
    for span in stored.select_related("segment__document", "category", "assignment"):
        assert span.segment.document.study_id == study.pk
        assert span.category.taxonomy_id == study.taxonomy_id
        assert span.assignment.study_id == study.pk
        assert span.text == span.segment.text[span.start : span.end]
    assert Assignment.objects.filter(study=study).count() == 2
    # Every foreign key of the two tables holds, as PostgreSQL would check it.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM span_errorannotation s "
            "LEFT JOIN studies_segment g ON g.id = s.segment_id "
            "LEFT JOIN studies_category c ON c.id = s.category_id "
            "LEFT JOIN annotations_assignment a ON a.id = s.assignment_id "
            "WHERE g.id IS NULL OR c.id IS NULL OR a.id IS NULL"
        )
        assert cursor.fetchone()[0] == 0


def test_a_failed_write_inside_keeps_its_own_error_and_a_caught_one_leaves_the_checks_on():
    with transaction.atomic():
        with pytest.raises(ValueError), references_checked_here():
            raise ValueError("a span refused while its rows were read")
        assert replication_role() == "origin"  # the transaction goes on, checked
    study = make_span_study(documents=1, segments=1)
    refused = pytest.raises(IntegrityError, match="span_errorannotation")
    with refused, transaction.atomic(), references_checked_here(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO span_errorannotation (id) VALUES (NULL)")  # NOT NULL fails
    assert study.documents.count() == 1
