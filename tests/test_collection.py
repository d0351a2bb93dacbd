"""The garbage collector's thresholds during bulk jobs (falte_site/collection.py): raised while
an import or the bundle export runs, put back afterwards, also when two jobs overlap in threads;
and those jobs leave no reference cycles for the rarer passes to find."""

import gc
import json
import threading
from collections import Counter
from functools import partial

import pytest
from django.db import models

import bundles.exporting
import bundles.importing
from bundles.exporting import export_study
from bundles.importing import import_bundle, import_documents
from falte_site.collection import YOUNG, bulk_collection
from tests.bundles import DOCUMENTS, write_bundle
from tests.exports.test_worker_feedback_exports import STUDIES
from tests.translation.test_bundles import translation_bundle

OTHER = (900, 11, 12)  # not Python's default, so that "put back" cannot pass by chance
RAISED = (YOUNG, 11, 12)


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    gc.set_threshold(*OTHER)
    yield
    gc.set_threshold(*before)


def test_raised_within_and_put_back_after(thresholds):
    with bulk_collection():
        assert gc.get_threshold() == RAISED
    assert gc.get_threshold() == OTHER


def test_put_back_after_a_failure(thresholds):
    with pytest.raises(RuntimeError), bulk_collection():
        raise RuntimeError("the import failed")
    assert gc.get_threshold() == OTHER


def test_overlapping_jobs_put_back_once_the_last_ends(thresholds):
    first_in, second_in, first_out, second_out = (threading.Event() for _ in range(4))
    seen = {}

    def first():
        with bulk_collection():
            first_in.set()
            second_in.wait()
        seen["after first"] = gc.get_threshold()
        first_out.set()

    def second():
        first_in.wait()
        with bulk_collection():
            second_in.set()
            first_out.wait()
        second_out.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert second_out.is_set()
    assert seen["after first"] == RAISED  # the second job still runs
    assert gc.get_threshold() == OTHER


def _recording(monkeypatch, module, name, seen):
    real = getattr(module, name)

    def recorded(*args, **kwargs):
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, recorded)


@pytest.mark.django_db
def test_bundle_import_and_documents_import_run_with_the_raised_thresholds(thresholds, tmp_path, monkeypatch):
    seen = []
    _recording(monkeypatch, bundles.importing, "write_study", seen)
    _recording(monkeypatch, bundles.importing, "write_documents", seen)
    study = import_bundle(write_bundle(tmp_path / "bundle")).study
    more = tmp_path / "more.jsonl"
    more.write_text(
        "".join(json.dumps({"id": f"{d['id']}-2", "segments": d["segments"]}) + "\n" for d in DOCUMENTS)
    )
    import_documents(study, more, "more.jsonl")
    assert seen == [RAISED] * 2
    assert gc.get_threshold() == OTHER
    assert study.documents.count() == 4


def _left_in_cycles(job):
    """What `job()` returned, and the model instances it left in reference cycles (found by the
    collector alone) by class name. A job run with the raised thresholds must leave none: each
    chunk's cycles would wait for a rarer pass, and memory grow by what waits."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a pass finds unreachable is kept in gc.garbage to look at
    try:
        result = job()
        gc.collect()
        # type(), not isinstance(): see tests.bundles.alive.
        return result, Counter(type(o).__name__ for o in gc.garbage if issubclass(type(o), models.Model))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


BUNDLES = {
    **STUDIES,
    **{
        protocol: partial(translation_bundle, protocol=protocol)
        for protocol in ("mqm", "esa", "contrastive-esa")
    },
}


@pytest.mark.django_db
@pytest.mark.parametrize("protocol", list(BUNDLES))
def test_the_import_and_the_export_of_every_protocol_leave_no_cycles(protocol, tmp_path):
    directory = BUNDLES[protocol](tmp_path / "in")
    study, left = _left_in_cycles(lambda: import_bundle(directory).study)
    assert left == {}
    _, left = _left_in_cycles(lambda: export_study(study, tmp_path / "out"))
    assert left == {}
    assert (tmp_path / "out" / "assignments.jsonl").stat().st_size > 0  # the work went out too


@pytest.mark.django_db
def test_the_export_runs_with_the_raised_thresholds(thresholds, tmp_path, monkeypatch):
    seen = []
    _recording(monkeypatch, bundles.exporting, "_study_yaml", seen)
    study = import_bundle(write_bundle(tmp_path / "bundle")).study
    export_study(study, tmp_path / "out")
    assert seen == [RAISED]
    assert gc.get_threshold() == OTHER
