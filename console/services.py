"""Writes of the researcher console's new-study flow: a draft study, its documents, its taxonomy or
scale, who annotates it, a preview as a worker, and the launch. Each is one transaction."""

import io
import tempfile
from pathlib import Path

from django.db import transaction
from django.utils.text import slugify

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from annotations.services.planning import assignments_generate
from bundles.problems import BundleInvalid, Problem
from bundles.services import study_add_documents
from studies import protocols
from studies.config import config_problems
from studies.models import Category, Document, Study, Taxonomy

from . import documents as document_files
from .documents import DocumentsFile
from .taxonomies import assign_looks, library
from .uploads import upload_copied

PREVIEW_PREFIX = "preview-"


class SetupRefused(ValueError):
    """A step of the flow cannot be done as asked; the message says why."""


def _free_slug(title):
    base = slugify(title)[:56] or "study"
    slug, number = base, 2
    while Study.objects.filter(slug=slug).exists():
        slug, number = f"{base}-{number}", number + 1
    return slug


@transaction.atomic
def study_create(*, title, protocol, user):
    """A draft study of `protocol` run by `user` (its researcher)."""
    study = Study.objects.create(
        title=title, slug=_free_slug(title), protocol=protocol, status=Study.Status.DRAFT,
        config={"setup": {"step": "documents"}},
    )  # fmt: skip
    StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    return study


def _step_done(study, step):
    setup = dict(study.config.get("setup") or {})
    done = [*setup.get("done", [])]
    if step not in done:
        done.append(step)
    study.config = {**study.config, "setup": {**setup, "done": done}}
    study.save(update_fields=["config"])


def setup_done(study):
    """The flow's steps this study has done ("documents", "categories", "annotators", "preview")."""
    return list((study.config.get("setup") or {}).get("done", []))


def study_add_document_text(*, study, text="", uploads=(), file_format=""):
    """Add documents from pasted text and/or uploaded files (Django UploadedFiles); all or nothing.

    `file_format`: the uploads are another tool's exports (console.documents.document_formats),
    whose texts become the documents.

    Each upload is copied to a temporary directory a chunk at a time and its documents written
    to a documents.jsonl there one by one, before the bundle import reads that: memory does not
    grow with the files (another tool's exports and a translation study's files are gathered on a
    shelf on disk first, then given one document at a time).

    BundleInvalid names file, line and problem; returns the number of documents and segments added.
    """
    protocol = protocols.of(study)
    # A rating study hands out blocks: without one, every document is in block 1.
    defaults = {"block": "1"} if protocol.works_on == "block" else None
    added_documents = added_segments = 0
    with transaction.atomic(), tempfile.TemporaryDirectory(prefix="console-documents-") as directory:
        if protocol.document_formats:
            pieces = _protocol_documents(protocol, text, uploads, Path(directory), defaults)
        else:
            pieces = _documents(text, uploads, file_format, Path(directory), defaults)
        if not pieces:
            raise BundleInvalid([Problem("documents", 0, "paste the texts or choose a file")])
        for name, found in pieces:
            if isinstance(found, Path):
                result = study_add_documents(study=study, path=found, name=name)
            else:
                if not found.count:
                    raise BundleInvalid([Problem(name, 0, "no text in it")])
                try:
                    result = study_add_documents(study=study, path=found.path, name="documents.jsonl")
                except BundleInvalid as invalid:
                    raise found.placed(invalid, name) from None
            added_documents, added_segments = (
                added_documents + result.documents,
                added_segments + result.segments,
            )
        _step_done(study, "documents")
    return added_documents, added_segments


def _documents(text, uploads, file_format, directory, defaults):
    """[(name, the DocumentsFile written, or the path of a file in the bundle's own format)] of pasted
    text, .txt, .csv, .jsonl and .json files, or another tool's exports (`file_format`). Every file
    is read (and its documents written) before any is imported, so a file's problems come first."""
    pieces = []

    def written(name, documents):
        pieces.append((name, _written(directory, len(pieces), documents, defaults)))

    if text.strip():
        pasted = io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n"))
        written("pasted text", document_files.documents_from_lines(pasted, prefix="text"))
    for upload in uploads:
        name, suffix = upload.name, Path(upload.name).suffix.lower()
        if file_format:
            path = upload_copied(upload, directory / f"export{len(pieces)}{suffix}")
            written(name, document_files.documents_from_tool(path, name, file_format))
            continue
        document_files.refuse_unknown_suffix(name)
        if suffix in document_files.BUNDLE_SUFFIXES:  # the bundle's own format: read by the bundle import
            pieces.append((name, upload_copied(upload, directory / f"upload{len(pieces)}{suffix}")))
            continue
        path = upload_copied(upload, directory / f"upload{len(pieces)}{suffix}", text=True)
        written(name, document_files.uploaded_documents(path, name))
    return pieces


def _protocol_documents(protocol, text, uploads, directory, defaults):
    """[(name, DocumentsFile)] of uploads in the protocol's own formats (Protocol.document_formats),
    known by their ending; its documents need more than a pasted text gives."""
    endings = " or ".join(f".{key}" for key in protocol.document_formats)
    if text.strip():
        raise BundleInvalid([Problem("pasted text", 0, f"a {protocol.label} study's documents come as a "
                                                       f"{endings} file: upload one")])  # fmt: skip
    pieces = []
    for upload in uploads:
        name = upload.name
        fmt = Path(name).suffix.lower().lstrip(".")
        if fmt not in protocol.document_formats:
            raise BundleInvalid(
                [Problem(name, 0, f"give a {endings} file (a {protocol.label} study reads these)")]
            )
        path = upload_copied(upload, directory / f"upload{len(pieces)}.{fmt}")
        pieces.append(
            (name, _written(directory, len(pieces), protocol.document_texts(path, name, fmt), defaults))
        )
    return pieces


def _written(directory, number, documents, defaults):
    """The DocumentsFile `documents{number}.jsonl` of `directory`, with `documents` written to it."""
    return DocumentsFile(directory / f"documents{number}.jsonl").write(documents, defaults=defaults)


def _taxonomy_with(spec, *, slug, user):
    taxonomy = Taxonomy.objects.create(
        slug=slug, name=spec["name"], version=str(spec.get("version", "1")),
        description=spec.get("description", ""), created_by=user,
    )  # fmt: skip
    specs = assign_looks([dict(category) for category in spec["categories"]])
    Category.objects.bulk_create(
        Category(
            taxonomy=taxonomy, key=c["key"], label=c["label"], description=c.get("description", ""),
            kind=c.get("kind", Category.Kind.SINGLETON), group=c.get("group", ""), color=c["color"],
            shortcut=c.get("shortcut", ""), whole_sentence=bool(c.get("whole_sentence")), order=number,
        )
        for number, c in enumerate(specs, start=1)
    )  # fmt: skip
    return taxonomy


@transaction.atomic
def study_set_taxonomy(*, study, user, library_slug=None, categories=None, name=None):
    """Give `study` a taxonomy: a shipped one (shared by the studies that use it, never changed), or
    the categories written in place (a taxonomy of the study's own)."""
    if library_slug:
        spec = library().get(library_slug)
        if spec is None:
            raise SetupRefused(f"no taxonomy '{library_slug}' in the library")
        version = str(spec.get("version", "1"))
        taxonomy = Taxonomy.objects.filter(slug=spec["slug"], version=version).first()
        if taxonomy is None:
            taxonomy = _taxonomy_with(spec, slug=spec["slug"], user=user)
    else:
        if not categories:
            raise SetupRefused("write at least one category, one a line")
        spec = {"name": name or f"Categories of {study.title}", "categories": categories}
        slug, number = f"{study.slug}-categories"[:60], 2
        while Taxonomy.objects.filter(slug=slug).exists():
            slug, number = f"{study.slug}-categories-{number}"[:64], number + 1
        taxonomy = _taxonomy_with(spec, slug=slug, user=user)
    study.taxonomy = taxonomy
    study.save(update_fields=["taxonomy"])
    _step_done(study, "categories")
    return taxonomy


@transaction.atomic
def study_set_settings(*, study, config):
    """Merge the protocol's own settings (Protocol.setup_form's config(); None removes an option)
    into `study`'s config, checked as study.yaml and admin check it: SetupRefused names a problem."""
    merged = {key: value for key, value in {**study.config, **config}.items() if value is not None}
    problems = config_problems(merged, protocol=study.protocol)
    if problems:
        raise SetupRefused("; ".join(str(problem) for problem in problems))
    study.config = merged
    study.save(update_fields=["config"])
    _step_done(study, "categories")


@transaction.atomic
def study_set_scale(*, study, config):
    """A rating study's scale (Likert), tuple size (BWS) or nothing (pairwise), merged into its config."""
    study.config = {**study.config, **config}
    study.save(update_fields=["config"])
    _step_done(study, "categories")


@transaction.atomic
def study_set_work(*, study, annotators_per_document, max_documents_per_worker, instructions, qualification):
    study.annotators_per_document = annotators_per_document
    study.max_documents_per_worker = max_documents_per_worker
    study.instructions = instructions
    setup = dict(study.config.get("setup") or {})
    study.config = {**study.config, "setup": {**setup, "qualification": bool(qualification)}}
    study.save(
        update_fields=["annotators_per_document", "max_documents_per_worker", "instructions", "config"]
    )
    _step_done(study, "annotators")


def preview_worker(user):
    worker, _ = Worker.objects.get_or_create(
        platform=Worker.Platform.LINK, external_id=f"{PREVIEW_PREFIX}{user.get_username()}"[:255]
    )
    return worker


@transaction.atomic
def study_preview(*, study, user):
    """The researcher's own task on the study's first main document, to see the page as a worker does.

    Only a draft is previewed: the preview's work is deleted when the study is launched."""
    if study.status != Study.Status.DRAFT:
        raise SetupRefused("only a draft is previewed; a launched study is tried with a task link of its own")
    document = (
        Document.objects.with_text()
        .filter(study=study, kind=Document.Kind.MAIN)
        .order_by("position", "pk")
        .first()
    )
    if document is None:
        raise SetupRefused("add documents first: there is nothing to preview")
    assignment, _ = Assignment.objects.get_or_create(
        study=study, document=document, worker=preview_worker(user), kind=Assignment.Kind.MAIN
    )
    _step_done(study, "preview")
    return assignment


def setup_problems(study):
    """What the study still needs before it can be launched, in words (empty: ready)."""
    problems = []
    if not study.documents.filter(kind=Document.Kind.MAIN).exists():
        problems.append("add documents")
    if protocols.of(study).needs_taxonomy and not study.taxonomy_id:
        problems.append("choose its categories")
    return problems


@transaction.atomic
def study_launch(*, study, user, workers=(), pilot=True):
    """Open the study, for a pilot or the main run: the preview tasks go, and named workers (if any)
    get their task links.

    Returns the AssignmentPlan of the named workers' assignments, or None for none."""
    problems = setup_problems(study)
    if problems:
        raise SetupRefused("before launching, " + " and ".join(problems))
    Assignment.objects.filter(study=study, worker__external_id__startswith=PREVIEW_PREFIX).delete()
    study.status = Study.Status.OPEN
    setup = dict(study.config.get("setup") or {})
    study.config = {
        **study.config,
        "setup": {**setup, "launched": True},
        "stage": "pilot" if pilot else "main",
    }
    study.save(update_fields=["status", "config"])
    if workers:
        return assignments_generate(study=study, worker_ids=list(workers))
    return None


@transaction.atomic
def study_set_stage(*, study, stage):
    """Mark a running study as piloting or running (its config's `stage`), or close it (finished)."""
    if stage == "finished":
        study.status = Study.Status.CLOSED
    elif stage in ("piloting", "running"):
        study.status = Study.Status.OPEN
        study.config = {**study.config, "stage": "pilot" if stage == "piloting" else "main"}
    else:
        raise SetupRefused(f"no stage '{stage}'")
    study.save(update_fields=["status", "config"])
