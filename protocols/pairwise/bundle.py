"""The pairwise protocol's part of a bundle: one assignments.jsonl line per worker and block,
with the worker's choices in the pairs they were shown.

    {"annotator": "w3", "block": "3", "kind": "main", "active_seconds": 310,
     "choices": [{"left": "art7-bart", "right": "art7-t5", "choice": "left", "strength": 2}]}

`left` is output A as the worker saw it. Export writes the choices in the
order of the block's pairs; an imported line's pairs are numbered in the
order given, so export -> import -> export gives the same bytes.
"""

from bundles.bulk import insert_rows
from bundles.exporting import external_ids, write_annotations_csv_header, write_assignment_lines
from bundles.importing import DOCUMENT_FILES
from bundles.problems import Problems
from bundles.reading import read_falte_documents, read_jsonl
from bundles.references import references_checked_here
from bundles.writing import batch_document_ids, submitted_assignments, workers_for
from studies.protocols import BundleWork

from .bundle_checks import check_assignments, check_outputs
from .models import PairwiseChoice


class _DocumentLines:
    """The line of a document in the documents file, read only when a problem needs one."""

    def __init__(self, directory):
        self.name = next((name for name in DOCUMENT_FILES if (directory / name).is_file()), DOCUMENT_FILES[0])
        self.path = directory / self.name
        self.lines = None

    def __call__(self, external_id):
        if self.lines is None:
            self.lines = {}
            if self.path.is_file():
                # The core read the file already and reported what is wrong with it.
                read = read_jsonl if self.name.endswith(".jsonl") else read_falte_documents
                for record in read(self.path, self.name, Problems()):
                    value = record.value if isinstance(record.value, dict) else {}
                    key = value.get("id", value.get("__falte_id"))
                    self.lines.setdefault(str(key), record.line)
        return self.lines.get(external_id, 0)


def needs_texts(directory):
    """The work names documents and blocks, never a segment's text: an import keeps no texts."""
    return False


def check_work(directory, spec, documents, broken, locate, problems):
    line_of = _DocumentLines(directory)
    blocks, refused = check_outputs(documents, problems, line_of.name, line_of)
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork()
    records = read_jsonl(path, "assignments.jsonl", problems)
    assignments = check_assignments(
        records, problems, blocks=blocks, broken=set(broken) | refused, study=spec
    )
    return BundleWork(assignments=assignments, annotations=assignments.annotations)


def write_work(study, work):
    """One submitted assignment per line, with its choices (inside the import's transaction), a
    batch at a time as checking spooled them, each batch reading its own documents' ids; the
    choices go in through the bulk path."""
    if not work.assignments:
        return
    workers = workers_for(work.assignments.workers)
    for batch in work.assignments.batches():
        _write_batch(study, batch, workers)


CHOICE_COLUMNS = ("assignment_id", "position", "left_id", "right_id", "choice", "strength")


def _write_batch(study, batch, workers):
    named = {document for spec in batch for c in spec.choices for document in (c.left, c.right)}
    document_ids = batch_document_ids(study, named)
    rows = submitted_assignments(
        study, batch, workers, document_ids,
        items_of=lambda spec: [
            {"position": n, "left": document_ids[c.left], "right": document_ids[c.right]}
            for n, c in enumerate(spec.choices)
        ],
    )  # fmt: skip
    choices = (
        (row.pk, n, document_ids[c.left], document_ids[c.right], c.choice, c.strength)
        for row, spec in zip(rows, batch, strict=True)
        for n, c in enumerate(spec.choices)
    )
    with references_checked_here():  # this import's own assignments and documents (bundles/references.py)
        insert_rows(PairwiseChoice, CHOICE_COLUMNS, choices)


def export_work(study, assignments, directory, who):
    """One line per worker and block, the choices in the order of the block's pairs, each chunk of
    assignments reading its own (bundles/exporting.write_assignment_lines)."""
    write_assignment_lines(directory, assignments, who, "choices", _choices_of)
    write_annotations_csv_header(directory)


def _choices_of(ids):
    """{assignment id: its choices as the bundle gives them, in the order of the block's pairs}. Each
    table read alone by its keys: joined, a plan made on an import's fresh (unanalysed) tables hashed
    the whole document table twice per chunk."""
    rows = list(
        PairwiseChoice.objects.filter(assignment_id__in=ids)
        .order_by("assignment_id", "position")
        .values_list("assignment_id", "left_id", "right_id", "choice", "strength")
    )
    external = external_ids({pk for _, left, right, _, _ in rows for pk in (left, right)})
    found = {}
    for assignment_id, left, right, choice, strength in rows:
        found.setdefault(assignment_id, []).append(
            {"left": external[left], "right": external[right], "choice": choice, "strength": strength}
        )
    return found
