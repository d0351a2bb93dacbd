"""Generating assignments: K annotators per document, spread evenly."""

from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import Assignment
from annotations.services import AssignmentPlanError, assignments_generate
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def test_each_document_gets_k_distinct_workers_evenly():
    study = make_span_study(documents=5)
    plan = assignments_generate(study=study, worker_ids=["a", "b", "c", "d"], per_document=2)
    assert len(plan.created) == 10
    per_document = Counter(a.document_id for a in plan.created)
    assert set(per_document.values()) == {2}
    for document_id in per_document:
        workers = [a.worker_id for a in plan.created if a.document_id == document_id]
        assert len(set(workers)) == 2
    assert set(Counter(a.worker.external_id for a in plan.created).values()) <= {2, 3}


def test_running_again_only_fills_gaps_and_skips_released():
    study = make_span_study(documents=2, annotators_per_document=2)
    assignments_generate(study=study, worker_ids=["a", "b"])
    assert assignments_generate(study=study, worker_ids=["a", "b", "c"]).created == []
    released = Assignment.objects.filter(study=study).first()
    released.status = Assignment.Status.RELEASED
    released.save()
    plan = assignments_generate(study=study, worker_ids=["a", "b", "c"])
    assert [a.worker.external_id for a in plan.created] == ["c"]
    assert plan.created[0].document == released.document


def test_max_documents_per_worker_leaves_documents_short():
    study = make_span_study(documents=3, max_documents_per_worker=1, annotators_per_document=1)
    plan = assignments_generate(study=study, worker_ids=["a", "b"])
    assert len(plan.created) == 2
    assert plan.short == {f"{study.slug}-doc2": 1}


def test_more_annotators_than_workers_is_refused():
    study = make_span_study(documents=1)
    with pytest.raises(AssignmentPlanError, match="needs at least 3 workers; 2 given"):
        assignments_generate(study=study, worker_ids=["a", "b"], per_document=3)
    assert Assignment.objects.count() == 0


def test_assign_command_prints_worker_document_and_task_path(capsys):
    study = make_span_study(documents=2)
    call_command("assign", study.slug, "--workers", "w1,w2", "--per-document", "1")
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        worker, document, path = line.split("\t")
        assignment = Assignment.objects.get(worker__external_id=worker, document__external_id=document)
        assert path == f"/task/{assignment.token}/"


def test_assign_command_unknown_study():
    with pytest.raises(CommandError, match="no study with slug 'nope'"):
        call_command("assign", "nope", "--workers", "a")
