"""The second pass of an MQM import: the study, its taxonomy, documents, workers and assignments,
then the segments and errors from a second read of the file, in batches, in one transaction."""

from dataclasses import dataclass, field

from django.db import transaction

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from bundles.bulk import analyse, insert_rows
from bundles.problems import Problems
from bundles.references import references_checked_here
from bundles.study_checks import SLUG
from bundles.writing import workers_for
from protocols.translation.keys import MISSING, MQM, SOURCE, SOURCES, TARGET
from protocols.translation.models import TranslationError
from reports.metrics.mqm import Weights, is_no_error
from studies.config import config_problems
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets

from ..categories import keys_for
from ..formats.mqm_tsv import COLUMNS, scan
from .checking import NAME_LENGTH, check_file, mildest_first

FORMAT = "mqm-tsv"  # Document.meta["interop"]["format"] of an imported document
PLATFORM = Worker.Platform.IMPORT
BATCH = 5000
STUDY_FIELDS = ("title", "instructions", "status", "config")


@dataclass
class MQMImport:
    """What the import made, and what it noticed without refusing (`notes`)."""

    study: object
    documents: int
    segments: int
    assignments: int
    errors: int
    rated: int  # (segment, rater) pairs
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)  # interop's AnnotationsImport gives the same

    def describe(self):
        return (
            f"{self.study.slug}: {self.documents:,} documents, {self.segments:,} segments, "
            f"{self.assignments:,} assignments, {self.errors:,} errors, {self.rated:,} rated segments"
        )


def _study_config(plan, weights_config, settings):
    config = dict(settings.get("config") or {})
    config.setdefault(
        "severities", mildest_first(plan, Weights.from_config(weights_config)) or ["Minor", "Major"]
    )
    if weights_config is not None:
        config["weights"] = weights_config
    return config


def _taxonomy(slug, name, plan, weights, user):
    version = 1
    taken = set(Taxonomy.objects.filter(slug=slug).values_list("version", flat=True))
    while str(version) in taken:
        version += 1
    taxonomy = Taxonomy.objects.create(
        slug=slug, name=f"MQM categories of {name}"[:200], version=str(version),
        description="The error categories of an imported MQM TSV file.",
        created_by=user if user is not None and user.is_authenticated else None,
    )  # fmt: skip
    labels = list(plan.categories)
    keys = keys_for(labels)
    categories = Category.objects.bulk_create(
        Category(taxonomy=taxonomy, key=keys[label], label=label, order=position,
                 group=label.split("/")[0].strip()[:64], whole_sentence=weights.is_whole_segment(label))
        for position, label in enumerate(labels, start=1)
    )  # fmt: skip
    return taxonomy, {category.label: category for category in categories}


def _external_ids(pairs):
    """{(system, doc): a document id unique in the study}: "system/doc", numbered when two agree."""
    ids, taken = {}, set()
    for system, doc in pairs:
        base = f"{system}/{doc}"[: NAME_LENGTH - 8]
        external, number = base, 2
        while external in taken:
            external, number = f"{base}#{number}", number + 1
        taken.add(external)
        ids[(system, doc)] = external
    return ids


@dataclass
class _Written:
    """The second pass's place for one (system, doc): its Document row and its segments."""

    document: object
    indices: dict  # seg_id -> segment index
    segment_ids: dict = field(default_factory=dict)  # index -> Segment pk (None: in the batch being written)
    unclosed: list = field(default_factory=list)  # [index, rater, side, start] of each <v> never closed


def _placed(line, category, weights):
    """(side, start, end, text) of an error line's span."""
    if line.target.spans:
        (start, end), side, text = line.target.spans[0], TARGET, line.target.text
    elif line.source.spans:
        (start, end), side, text = line.source.spans[0], SOURCE, line.source.text
    elif weights.is_whole_segment(category):
        return TARGET, 0, len(line.target.text), line.target.text
    else:
        return MISSING, 0, 0, ""
    if start == end:  # "<v></v>": a place, no text; as the page's [missing] marker
        return MISSING, 0, 0, ""
    return side, start, end, text[start:end]


def import_mqm(path, *, slug, name=None, title=None, weights=None, settings=None, user=None):
    """Check the MQM TSV file `path` and import it as the new MQM study `slug` (all or nothing).

    `weights`: the MQM weights ({severities, categories, whole_segment}, as
    reports/metrics/mqm.Weights.from_config reads them), None for the common scheme;
    `settings`: study.yaml's fields (title, instructions, status, config), optional. Raises
    BundleInvalid with every problem as `file:line: message`; nothing is written then."""
    name = name or str(path)
    settings = dict(settings or {})
    problems = Problems()
    if not isinstance(slug, str) or not SLUG.match(slug):
        problems.add(name, 0, f"study slug {slug!r}: letters, digits, - and _")
    elif Study.objects.filter(slug=slug).exists():
        problems.add(name, 0, f"a study with slug '{slug}' already exists")
    if weights is None and isinstance(settings.get("config"), dict) and "weights" in settings["config"]:
        weights = settings["config"]["weights"]
    try:
        scheme = Weights.from_config(weights)
    except (AttributeError, TypeError, ValueError) as error:
        problems.add(name, 0, f"the weights cannot be read ({error})")
        problems.raise_if_any()
    plan = check_file(path, name=name, weights=scheme, problems=problems)
    for spelling, number in plan.respelled.items():
        problems.warn(
            name, number, f"severity {spelling!r} is taken as {plan.severities[spelling.lower()]!r}"
        )
    config = _study_config(plan, weights, settings)
    for problem in config_problems(config, protocol=MQM):
        problems.add(name, 0, f"the study's config: {problem}")
    if isinstance(config.get("severities"), list):
        offered = {str(s).strip().lower() for s in config["severities"]}
        unoffered = [s for key, s in plan.severities.items() if key not in offered]
        if unoffered:
            problems.add(name, 0, f"the file's severities {', '.join(unoffered)} are not among the config's "
                                  f"severities ({', '.join(map(str, config['severities']))})")  # fmt: skip
    for key, value in settings.items():
        if key in ("title", "instructions") and not isinstance(value, str):
            problems.add(name, 0, f"the study's {key} must be text")
    if settings.get("status", Study.Status.DRAFT) not in Study.Status.values:
        problems.add(
            name, 0, f"unknown status {settings['status']!r} (one of {', '.join(Study.Status.values)})"
        )
    problems.raise_if_any()
    study_title = title or settings.get("title") or f"MQM ratings of {name}"
    return _write(path, name, plan, scheme, config, problems, user=user, slug=slug,
                  fields={"title": str(study_title)[:200], "instructions": settings.get("instructions") or "",
                          "status": settings.get("status") or Study.Status.DRAFT})  # fmt: skip


@transaction.atomic
def _write(path, name, plan, weights, config, problems, *, user, slug, fields):
    taxonomy, category_of = _taxonomy(slug, name, plan, weights, user)
    raters = max((len(t.raters) for d in plan.docs.values() for t in d.systems.values()), default=1)
    study = Study.objects.create(slug=slug, protocol=MQM, taxonomy=taxonomy, config=config,
                                 annotators_per_document=max(1, raters), **fields)  # fmt: skip
    if user is not None and user.is_authenticated:
        StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    header = plan.header or None
    columns = max(plan.columns, key=plan.columns.get) if plan.columns else len(COLUMNS) + 1
    pairs = [(system, doc.name) for doc in plan.docs.values() for system in doc.systems]
    external = _external_ids(pairs)
    written, documents, position = {}, [], 0
    for doc in plan.docs.values():
        order = plan.seg_order(doc)
        indices = {seg_id: index for index, seg_id in enumerate(order)}
        shared = {
            SOURCES: [doc.seg_ids[seg_id][0] for seg_id in order],
            "interop": {"format": FORMAT, "seg_ids": order, "doc_ids": [doc.seg_ids[s][1] for s in order],
                        "header": header, "columns": columns},
        }  # fmt: skip
        for system in doc.systems:
            position += 1
            meta = {SOURCES: shared[SOURCES], "interop": dict(shared["interop"])}
            row = Document(study=study, external_id=external[(system, doc.name)], input_id=doc.name[:NAME_LENGTH],
                           system=system, meta=meta, position=position)  # fmt: skip
            documents.append(row)
            written[(system, doc.name)] = _Written(row, indices)
    Document.objects.bulk_create(documents, batch_size=BATCH)
    workers = workers_for({(PLATFORM, rater) for d in plan.docs.values() for t in d.systems.values()
                           for rater in t.raters})  # fmt: skip
    assignments, assignment_of = [], {}  # (system, doc, rater) -> the assignment's id, once written
    for doc in plan.docs.values():
        for system, translation in doc.systems.items():
            place = written[(system, doc.name)]
            for rater, seg_ids in translation.raters.items():
                row = Assignment(study=study, document=place.document, worker=workers[(PLATFORM, rater)],
                                 kind=Assignment.Kind.MAIN, status=Assignment.Status.SUBMITTED,
                                 items=sorted(place.indices[s] for s in seg_ids))  # fmt: skip
                assignments.append(row)
                assignment_of[(system, doc.name, rater)] = row
    Assignment.objects.bulk_create(assignments, batch_size=BATCH)
    assignment_of = {key: row.pk for key, row in assignment_of.items()}
    rated = sum(len(row.items) for row in assignments)
    notes = _notes(name, plan, columns)
    severities = dict(plan.severities)
    del plan, assignments, documents  # the second pass needs none of it but what is written above
    categories = {label: category.pk for label, category in category_of.items()}
    segments, errors = _second_pass(study, path, written, assignment_of, categories, severities, weights)
    for place in written.values():
        if place.unclosed:
            place.document.meta["interop"]["unclosed"] = place.unclosed
    Document.objects.bulk_update(
        [p.document for p in written.values() if p.unclosed], ["meta"], batch_size=BATCH
    )
    analyse([Document, Assignment, Segment, TranslationError])  # before reports read the campaign back
    return MQMImport(study=study, documents=len(written), segments=segments, assignments=len(assignment_of),
                     errors=errors, rated=rated, notes=notes, warnings=problems.warnings)  # fmt: skip


def _notes(name, plan, columns):
    """What the import noticed and the study shows differently: a translation without a line on
    some of its doc's segments, lines of another number of columns than the file's."""
    notes = []
    for doc in plan.docs.values():
        for system, translation in doc.systems.items():
            lacking = len(doc.seg_ids) - len(translation.targets)
            if lacking:
                notes.append(f"{name}: {system} has no line on {lacking} of the {len(doc.seg_ids)} segments of "
                             f"doc {doc.name!r}; its document has no segment there")  # fmt: skip
    others = {count: lines for count, lines in plan.columns.items() if count != columns}
    if others:
        said = ", ".join(f"{lines:,} of {count}" for count, lines in sorted(others.items()))
        notes.append(f"{name}: most lines have {columns} columns, {said}; an export writes {columns}")
    return notes


# Columns by attname, for bundles/bulk.insert_rows (which sets created_at, one time for the write).
SEGMENT_FIELDS = ("document_id", "index", "text", "sentences")
ERROR_FIELDS = ("assignment_id", "segment_id", "side", "start", "end", "text", "category_id", "severity", "comment",
                "client_id")  # fmt: skip


def _second_pass(study, path, written, assignment_of, category_of, severities, weights):
    """Segments and errors, from a second read of the file, a batch at a time; (segments, errors)."""
    segments, errors, counts = [], [], [0, 0]
    by_document = {place.document.pk: place for place in written.values()}
    last = [0]  # the highest segment id this import has seen: the next batch's are above it

    def flush():
        # The taxonomy, study, documents and assignments the rows refer to were all made by this
        # import's transaction: PostgreSQL need not check each row's keys (bundles/references.py).
        with references_checked_here():
            insert_rows(Segment, SEGMENT_FIELDS, segments)
        for pk, document, index in Segment.objects.filter(document__study=study, pk__gt=last[0]).values_list(
            "pk", "document_id", "index"
        ):
            by_document[document].segment_ids[index] = pk
            last[0] = max(last[0], pk)
        with references_checked_here():
            insert_rows(TranslationError, ERROR_FIELDS,
                        ((assignment, place.segment_ids[index], *rest) for assignment, place, index, rest in errors))  # fmt: skip
        counts[0] += len(segments)
        counts[1] += len(errors)
        segments.clear()
        errors.clear()

    for line in scan(path, problem=lambda number, message: None):  # checked in the first pass
        place = written[(line.system, line.doc)]
        index = place.indices[line.seg_id]
        if index not in place.segment_ids:
            place.segment_ids[index] = None  # its id once its batch is written
            text = line.target.text
            segments.append((place.document.pk, index, text, sentence_offsets(text)))
        if not is_no_error(line.category, line.severity):
            side, start, end, text = _placed(line, line.category, weights)
            if line.unclosed and side != MISSING:
                place.unclosed.append([index, line.rater, side, start])
            errors.append((assignment_of[(line.system, line.doc, line.rater)], place, index, (
                side, start, end, text, category_of[line.category], severities[line.severity.strip().lower()],
                "\t".join(line.rest), f"line-{line.number}",
            )))  # fmt: skip
        if len(segments) >= BATCH or len(errors) >= BATCH:
            flush()
    flush()
    return counts[0], counts[1]
