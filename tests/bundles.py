"""Write small study bundles for tests."""

import json

import yaml

TAXONOMY = {
    "slug": "snac-test",
    "name": "SNaC (test)",
    "categories": [
        {"key": "CharE", "label": "New character", "group": "coherence", "shortcut": "c"},
        {"key": "SceneE", "label": "Abrupt scene", "group": "coherence", "whole_sentence": True},
        {"key": "InconE", "label": "Inconsistency", "group": "coherence", "kind": "paired"},
        {"key": "RepE", "label": "Repetition", "group": "language", "kind": "paired"},
    ],
}

DOCUMENTS = [
    {"id": "d1", "system": "sysA", "input_id": "book1",
     "segments": ["Anna met Ben at the mill. It rained.", "Miss Sessions arrived. Anna met Ben again."]},
    {"id": "d2", "system": "sysB", "input_id": "book1",
     "segments": ["Tom & Jerry <b>ran</b> home 😀 quickly.", "Then  they   slept.\nÉlodie woke."]},
]  # fmt: skip


def study_yaml(**overrides):
    study = {
        "slug": "bundle-study",
        "title": "A bundle study",
        "protocol": "span",
        "instructions": "Mark the errors.\n\nThen submit.",
        "annotators_per_document": 2,
        "taxonomy": TAXONOMY,
    }
    study.update(overrides)
    return study


def write_bundle(directory, *, study=None, documents=None, assignments=None, raw_documents=None):
    """Write study.yaml, documents.jsonl and (optionally) assignments.jsonl."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(yaml.safe_dump(study or study_yaml(), sort_keys=False))
    if raw_documents is not None:
        (directory / "documents.jsonl").write_text(raw_documents)
    else:
        lines = [json.dumps(d, ensure_ascii=False) for d in (documents or DOCUMENTS)]
        (directory / "documents.jsonl").write_text("\n".join(lines) + "\n")
    if assignments is not None:
        lines = [json.dumps(a, ensure_ascii=False) for a in assignments]
        (directory / "assignments.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def annotation(segment, category, start, end, text, paired=None, **extra):
    item = {"segment": segment, "category": category, "start": start, "end": end, "text": text}
    if paired is not None:
        item["paired"] = paired
    item.update(extra)
    return item


def alive(cls):
    """How many `cls` objects are alive, what an earlier test left in reference cycles aside."""
    import gc

    gc.collect()
    # type(), not isinstance(): isinstance asks a lazy object (a request's csp_nonce) or a weak
    # proxy left by another test for its __class__, which evaluates or dereferences it.
    return sum(type(o) is cls for o in gc.get_objects())


def held_while_checking(monkeypatch, module, function, spec_class):
    """Count, each time `module`.`function` (a check of one line of a work file) is called, how many
    `spec_class` objects are alive beyond those alive now (an earlier test may have left some held):
    the returned list gets one count per call."""
    import importlib

    held, check, before = [], getattr(importlib.import_module(module), function), alive(spec_class)

    def counted(*args, **kwargs):
        held.append(alive(spec_class) - before)
        return check(*args, **kwargs)

    monkeypatch.setattr(f"{module}.{function}", counted)
    return held


def held_while_exporting(monkeypatch, study, directory):
    """Export `study` into directory/whole, then again into directory/chunked a chunk of one
    assignment at a time, counting the Assignments alive (beyond those alive before) as each line
    of assignments.jsonl is made. Returns (the counts, the two files' bytes)."""
    from annotations.models import Assignment
    from bundles import exporting
    from bundles.services import study_export_bundle

    study_export_bundle(study=study, directory=directory / "whole")
    held, record, before = (
        [],
        exporting.assignment_record,
        alive(Assignment),
    )  # an earlier test may have left some
    monkeypatch.setattr(exporting, "ASSIGNMENT_CHUNK", 1)

    def counted(assignment, who):
        held.append(alive(Assignment) - before)
        return record(assignment, who)

    monkeypatch.setattr(exporting, "assignment_record", counted)
    study_export_bundle(study=study, directory=directory / "chunked")
    return held, [(directory / name / "assignments.jsonl").read_bytes() for name in ("whole", "chunked")]


def held_while_writing(monkeypatch, protocol, spec_class, batch):
    """Make protocol `protocol`'s bundle import spool its checked assignments `batch` at a time, and
    count, as each batch is written, how many `spec_class` objects are alive: the returned list gets
    one count per batch written."""
    import importlib

    bundle = importlib.import_module(f"protocols.{protocol}.bundle")
    monkeypatch.setattr(f"protocols.{protocol}.bundle_checks.ASSIGNMENT_BATCH", batch)
    held, write_batch = [], bundle._write_batch

    def counted(study, written, *args):
        held.append(alive(spec_class))
        return write_batch(study, written, *args)

    monkeypatch.setattr(bundle, "_write_batch", counted)
    return held


def whole_and_batched(tmp_path, directory, monkeypatch, protocol, spec_class, batch=1):
    """Import the bundle in `directory` and export it ("whole"), empty the database's studies and
    taxonomies, import that export again `batch` checked assignments at a time and export it
    ("batched"). Returns (the two exports' files by name, the counts of held_while_writing)."""
    from pathlib import Path

    from annotations.models import Assignment
    from bundles.services import study_export_bundle, study_import_bundle
    from studies.models import Category, Study, Taxonomy

    def exported(name):
        study_export_bundle(study=Study.objects.get(), directory=tmp_path / name)
        return {path.name: path.read_bytes() for path in sorted(Path(tmp_path / name).iterdir())}

    study_import_bundle(directory=directory)
    whole = exported("whole")
    for model in (Assignment, Study, Category, Taxonomy):
        model.objects.all().delete()
    held = held_while_writing(monkeypatch, protocol, spec_class, batch)
    study_import_bundle(directory=tmp_path / "whole")
    return (whole, exported("batched")), held
