"""Read, check, then write: the import of a whole bundle or of a documents file."""

from dataclasses import dataclass, field
from pathlib import Path

from falte_site.collection import bulk_collection
from studies import protocols
from studies.allocation import allocation_settings, steers_nothing
from studies.models import Document

from .document_checks import check_documents, documents_again
from .problems import Problems
from .reading import read_falte_documents, read_jsonl, read_yaml
from .study_checks import check_study
from .texts import SegmentTexts
from .writing import write_documents, write_study

DOCUMENT_FILES = ("documents.jsonl", "documents.json")


@dataclass
class ImportResult:
    study: object
    documents: int
    segments: int
    assignments: int = 0
    annotations: int = 0
    located: int = 0
    warnings: list = field(default_factory=list)  # Problems that did not stop the import

    def describe(self):
        text = (
            f"{self.study.slug}: {self.documents} documents, {self.segments} segments, "
            f"{self.assignments} assignments, {self.annotations} annotations"
        )
        if self.located:
            text += f" ({self.located} spans located by their text)"
        return text


def document_records(path, name, problems):
    """Records of a documents file, JSON Lines or FALTE's JSON object, by its name, one at a time:
    checking keeps what it needs of each, so the parsed file is never held whole (a 100,000-document
    file would otherwise sit in memory twice)."""
    if name.endswith(".jsonl"):
        return read_jsonl(path, name, problems)
    return read_falte_documents(path, name, problems)


@bulk_collection()
def import_bundle(directory, *, locate=False, user=None):
    """Import a bundle directory as a new study; raise BundleInvalid with every problem.

    `user` is who imports it in admin; None is the server's operator (`import_study`),
    who may share any stored taxonomy with identical categories.
    """
    directory = Path(directory)
    problems = Problems()
    raw = None
    if (directory / "study.yaml").is_file():
        raw = read_yaml(directory / "study.yaml", "study.yaml", problems)
    else:
        problems.add("study.yaml", 0, "missing: a bundle needs study.yaml at its top level")
    spec = check_study(raw, problems, user=user) if raw is not None else None

    # The work files are the protocol's (spans, ratings, answers, choices). When study.yaml
    # is broken or names no installed protocol, they are still checked as the default
    # protocol's, so one run reports every problem.
    known = spec is not None and spec.protocol in protocols.installed_keys()
    protocol = protocols.get(spec.protocol if known else protocols.DEFAULT)

    present = [name for name in DOCUMENT_FILES if (directory / name).is_file()]
    records = ()
    if len(present) != 1:
        problems.add(DOCUMENT_FILES[0], 0, "give exactly one of documents.jsonl or documents.json")
    else:
        records = document_records(directory / present[0], present[0], problems)
    per_segment = spec.config.get("sentences_per_segment") if spec else None
    keep_texts = protocol.bundle_needs_texts(directory)
    # A protocol that looks texts up by document reads them from disk: nothing the size of the
    # study's texts is held while its work files are checked.
    texts = SegmentTexts() if keep_texts and protocol.bundle_texts_by_document() else None
    documents_file = present[0] if len(present) == 1 else DOCUMENT_FILES[0]
    # The protocol's own checks of the documents see each one while it still holds its texts and
    # meta, when the protocol checks one at a time; its problems come after the core's.
    protocol_problems, refused = Problems(), set()
    check_one = (
        protocol.bundle_document_check(protocol_problems, documents_file)
        if known and texts is not None
        else None
    )

    def each(spec):
        if not check_one(spec):
            refused.add(spec.external_id)

    checked = None
    try:
        try:
            checked, broken = check_documents(
                records, problems, sentences_per_segment=per_segment, keep_texts=keep_texts, texts=texts,
                each=each if check_one else None,
            )  # fmt: skip
            if check_one:
                problems.items += protocol_problems.items
                problems.warnings += protocol_problems.warnings
                broken = set(broken) | refused
            elif known:
                broken = set(broken) | protocol.bundle_check_documents(checked, problems, documents_file)
            work = protocol.bundle_check(directory, spec, checked, broken, locate, problems, texts=texts)
            if known and protocol.works_on == "block":
                _warn_of_nothing_to_steer(spec, checked, problems)
        finally:
            if texts is not None:
                texts.close()
        problems.raise_if_any(work.located.summary() if work.located else "")

        # The texts are read again, a batch at a time, as they are written.
        documents = checked
        if not keep_texts or texts is not None:
            records = document_records(directory / present[0], present[0], problems)
            documents = documents_again(records, checked, present[0], sentences_per_segment=per_segment)
        counted = _Counted(documents)
        study = write_study(spec, counted, work, user=user, directory=directory)
    finally:
        if checked is not None:
            checked.close()
    return ImportResult(
        study=study,
        documents=counted.documents,
        segments=counted.segments,
        assignments=len(work.assignments),
        annotations=work.annotations,
        located=work.located.asked if work.located else 0,
        warnings=problems.warnings,
    )


def _warn_of_nothing_to_steer(spec, documents, problems):
    """A block study allocating `uncertain` whose blocks all hold the same systems is allocated as
    uniform: worth a warning, not a refusal (studies/allocation.steers_nothing)."""
    settings = allocation_settings(spec)
    if not settings.adaptive:
        return
    systems_by_block = {}
    for document in documents:
        if document.block and document.kind == Document.Kind.MAIN:
            systems_by_block.setdefault(document.block, set()).add(document.system)
    if (warning := steers_nothing(systems_by_block, settings.policy)) is not None:
        problems.warn("study.yaml", 0, warning)


@bulk_collection()
def import_documents(study, path, name):
    """Add the documents of one file (JSONL or FALTE JSON) to an existing study."""
    problems = Problems()
    records = document_records(path, name, problems)
    existing = set(study.documents.values_list("external_id", flat=True))
    per_segment = study.config.get("sentences_per_segment")
    protocol = protocols.of(study)
    keep_texts = protocol.bundle_needs_texts(None)
    # The protocol's problems of the documents come after the core's, as when it checked the list.
    protocol_problems = Problems()
    each = protocol.bundle_document_check(protocol_problems, name)
    checked, broken = check_documents(records, problems, existing_ids=existing, sentences_per_segment=per_segment,
                                      keep_texts=keep_texts, each=each)  # fmt: skip
    try:
        if each is None:
            protocol.bundle_check_documents(checked, problems, name)
        problems.items += protocol_problems.items
        problems.warnings += protocol_problems.warnings
        if not checked and not broken and not problems:
            problems.add(name, 0, "no documents in the file")
        problems.raise_if_any()
        documents = checked
        if not keep_texts:
            documents = documents_again(document_records(path, name, problems), checked, name,
                                        sentences_per_segment=per_segment)  # fmt: skip
        counted = _Counted(documents)
        write_documents(study, counted)
    finally:
        checked.close()
    return ImportResult(study=study, documents=counted.documents, segments=counted.segments,
                        warnings=problems.warnings)  # fmt: skip


class _Counted:
    """The documents being written, counted as they go by (the summary's figures)."""

    def __init__(self, documents):
        self._documents = documents
        self.documents = self.segments = 0

    def __iter__(self):
        for spec in self._documents:
            self.documents += 1
            self.segments += len(spec.segments)
            yield spec
