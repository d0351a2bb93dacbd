"""Write checked specs to the database. Called only when checking found nothing.

Documents go in with bulk_create a batch at a time, their segments through the bulk path
(bundles/bulk.py: COPY on PostgreSQL), so memory holds one batch of texts at a time.
"""

from datetime import UTC

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from qualification.services import qualification_score_study
from studies import extensions, protocols
from studies.batches import by_index
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets

from .bulk import analyse, insert_rows, reserved_ids, tables_written
from .references import references_checked_here

DOCUMENT_BATCH = 500
ROW_BATCH = 5000


@transaction.atomic
def write_study(spec, documents, work, *, user=None, directory=None):
    taxonomy = _taxonomy_for(spec.taxonomy, user) if spec.taxonomy else None
    study = Study.objects.create(
        slug=spec.slug,
        title=spec.title,
        protocol=spec.protocol,
        taxonomy=taxonomy,
        instructions=spec.instructions,
        status=spec.status,
        annotators_per_document=spec.annotators_per_document,
        max_documents_per_worker=spec.max_documents_per_worker,
        config=spec.config,
    )
    if user is not None and user.is_authenticated:
        StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    write_documents(study, documents)
    # The work's batches look their documents up by external id: planned on a table without
    # statistics, each lookup walked the study's documents (70 ms a batch at 15,000 documents).
    analyse({Document, Segment})
    with tables_written() as written:
        protocols.of(study).bundle_write(study, work)
    for extension in extensions.registered():
        if extension.key in spec.extensions:
            extension.study_yaml_write(study, spec.extensions[extension.key], directory)
    # Before anything reads the study back (its scoring below, then reports and exports).
    analyse({Assignment, *written})
    if work.assignments:
        # Imported work is scored like submitted work (qualification results, attention checks).
        qualification_score_study(study=study)
    return study


def submitted_assignments(study, assignments, workers, document_ids, items_of=None):
    """One submitted assignment per spec: of a document (span, review), or of a block
    (rating, pairwise), whose worker's items `items_of(spec)` gives. Returns the Assignments,
    each with its pk."""
    rows = [
        Assignment(
            study=study,
            document_id=document_ids[spec.document] if getattr(spec, "document", None) else None,
            worker=workers[(spec.platform, spec.annotator)],
            kind=spec.kind,
            block=spec.block,
            status=Assignment.Status.SUBMITTED,
            active_seconds=spec.active_seconds,
            submitted_at=aware(spec.submitted_at),
            items=items_of(spec) if items_of is not None else [],
            arm=getattr(spec, "arm", ""),
            worker_feedback=getattr(spec, "feedback", ""),
        )  # fmt: skip
        for spec in assignments
    ]
    if connection.vendor != "postgresql":
        return Assignment.objects.bulk_create(rows, batch_size=ROW_BATCH)
    # COPY with ids taken from the table's sequence first: the spans and scores that follow need
    # them, and the ORM's INSERT built every row's parameters (docs/benchmarks.md, "Submitted
    # assignments by COPY": 4-9 % of the span import's CPU, 17 % of the pairwise one's).
    now = timezone.now()  # set on the instances too, so that they hold what the rows hold
    for row, pk in zip(rows, reserved_ids(Assignment, len(rows)), strict=True):
        row.pk, row.created_at = pk, now
        row._state.adding = False
        row._state.db = connection.alias
    insert_rows(
        Assignment, SUBMITTED_COLUMNS, ([getattr(row, name) for name in SUBMITTED_COLUMNS] for row in rows)
    )
    return rows


# What submitted_assignments sets; every other field takes its default.
SUBMITTED_COLUMNS = (
    "id", "study_id", "document_id", "worker_id", "kind", "block", "token", "status", "active_seconds",
    "submitted_at", "items", "arm", "worker_feedback", "created_at",
)  # fmt: skip


def _taxonomy_for(spec, user):
    existing = Taxonomy.objects.filter(slug=spec.slug, version=spec.version).first()
    if existing is not None:  # checking made sure its categories are the same
        return existing
    taxonomy = Taxonomy.objects.create(
        slug=spec.slug, name=spec.name, version=spec.version, description=spec.description,
        created_by=user if user is not None and user.is_authenticated else None,
    )  # fmt: skip
    Category.objects.bulk_create(
        Category(taxonomy=taxonomy, **category.as_dict()) for category in spec.categories
    )
    return taxonomy


@transaction.atomic
def write_documents(study, documents):
    """Store documents (DocumentSpecs, from a list or read a second time from their file) and their
    segments, sentences computed when not given, DOCUMENT_BATCH documents at a time. The work's
    batches read their own documents' segment ids back (batch_segment_ids): nothing here holds a
    map of the whole study.
    """
    position = (study.documents.aggregate(last=Max("position"))["last"] or 0) + 1
    batch = []
    for spec in documents:
        batch.append(spec)
        if len(batch) == DOCUMENT_BATCH:
            position = _write_document_batch(study, batch, position)
            batch = []
    if batch:
        _write_document_batch(study, batch, position)


def _write_document_batch(study, batch, position):
    rows = Document.objects.bulk_create(
        Document(
            study=study,
            external_id=spec.external_id,
            input_id=spec.input_id,
            system=spec.system,
            source=spec.source,
            meta=spec.meta,
            kind=spec.kind,
            position=position + offset,
            block=spec.block,
        )  # fmt: skip
        for offset, spec in enumerate(batch)
    )
    with references_checked_here():  # the segments' documents were made just above
        insert_rows(
            Segment,
            ("document_id", "index", "text", "sentences"),
            (
                (row.pk, index, text, spec.sentences[index] if spec.sentences else sentence_offsets(text))
                for row, spec in zip(rows, batch, strict=True)
                for index, text in enumerate(spec.segments)
            ),
        )
    return position + len(batch)


def batch_document_ids(study, names):
    """{external id: id} of the study's documents that one batch of work names (`names`): a batch
    reads its own, so the import never holds a table of every document. By index: the import's
    tables have no statistics yet, and a scan per batch grows with the square of the study."""
    with by_index():
        # No ORDER BY: the model's (study, position, id) order could walk that index whole.
        return dict(study.documents.filter(external_id__in=names).order_by().values_list("external_id", "id"))


def batch_segment_ids(document_ids):
    """{(document external id, segment index): segment id} of the documents of batch_document_ids."""
    return batch_ids_by_document(Segment, document_ids, "index")


def batch_ids_by_document(model, document_ids, key):
    """{(document external id, the row's `key`): row id} of `model`'s rows of the documents of
    batch_document_ids: a document's segments by index, its suggestions by position."""
    external_of = {pk: external_id for external_id, pk in document_ids.items()}
    with by_index():
        return {
            (external_of[document_id], number): pk
            for document_id, number, pk in model.objects.filter(document_id__in=external_of)
            .order_by()
            .values_list("document_id", key, "id")
        }


def workers_for(identities):
    """Find or create one Worker per (platform, external id)."""
    found = {}
    for platform in {platform for platform, _ in identities}:
        ids = sorted(external_id for p, external_id in identities if p == platform)
        for begin in range(0, len(ids), 900):  # SQLite caps the parameters of one query
            chunk = ids[begin : begin + 900]
            for worker in Worker.objects.filter(platform=platform, external_id__in=chunk):
                found[(worker.platform, worker.external_id)] = worker
    missing = [Worker(platform=p, external_id=e) for p, e in identities if (p, e) not in found]
    for worker in Worker.objects.bulk_create(missing, batch_size=ROW_BATCH):
        found[(worker.platform, worker.external_id)] = worker
    return found


def aware(text):
    if not text:
        return None
    moment = parse_datetime(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
