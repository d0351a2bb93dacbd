"""An MQM TSV file (interop/formats/mqm_tsv.py) imported as a new MQM study
(docs/translation-studies.md, "An MQM file into a study, and a study out as one").

- one Document per (system, doc): input_id the doc, one Segment per seg_id of the doc, in order
  (numeric order when every seg_id of the file is a number, else the file's order), the target
  text without its markers, Document.meta["sources"] the sources, index by index;
- one worker per rater (platform "import", as every interop import names its annotators) and one
  submitted Assignment per (rater, document), whose `items` are the indices of the segments the
  rater rated: a document's segments are often shared out among several raters;
- a TranslationError per error line: its span in the target, or in the source when the <v> is
  there; a whole-segment category (Non-translation) covers the whole target when nothing is
  marked; an error with no span is a [missing] marker. A No-error line adds no row: the segment is
  rated (it is in the assignment's items) and has no error;
- the taxonomy: one category per category of the file, its label the file's name ("Accuracy/
  Mistranslation"), which the study's weights match; the config: the severities of the file,
  mildest first, and the weights given (the common scheme otherwise).

Segment indices are shared by every system's translation of a doc (the report compares systems
segment by segment), so a system the file has no line for on some seg_id has no segment there.

Two passes over the file, neither holding it whole: the first checks every line and keeps only
what the second needs (which seg_ids, raters and severities there are, a digest of each text to
find two lines disagreeing on one segment's text); the second, in one transaction, writes the
rows in batches (bulk_create). A file with any problem writes nothing, and every problem names
the file, the line and what is wrong.
"""

import hashlib
from dataclasses import dataclass, field

from django.db import transaction

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from bundles.problems import Problems
from bundles.study_checks import SLUG
from bundles.writing import workers_for
from protocols.translation.keys import MISSING, MQM, SOURCE, SOURCES, TARGET
from protocols.translation.models import TranslationError
from reports.metrics.mqm import WeightMissing, Weights, is_no_error
from studies.config import config_problems
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets

from .categories import LABEL_LENGTH, keys_for
from .formats.mqm_tsv import COLUMNS, scan

FORMAT = "mqm-tsv"  # Document.meta["interop"]["format"] of an imported document
PLATFORM = Worker.Platform.IMPORT
BATCH = 5000
MAX_SEVERITIES = 6  # protocols/translation/config.py
NAME_LENGTH = 255  # Document.system, input_id, external_id; Worker.external_id
SEVERITY_LENGTH = 32  # TranslationError.severity
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


def _digest(text):
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).digest()


@dataclass
class _Doc:
    """A doc of the file (the source document): its segments by seg_id, shared by every system."""

    name: str
    seg_ids: dict = field(default_factory=dict)  # seg_id -> [source, doc_id, first line]
    systems: dict = field(default_factory=dict)  # system -> _Translation, in the file's order


@dataclass
class _Translation:
    """One system's translation of a doc: its targets' digests and who rated which segment."""

    system: str
    targets: dict = field(default_factory=dict)  # seg_id -> (digest, first line)
    raters: dict = field(default_factory=dict)  # rater -> {seg_id}, in the file's order


@dataclass
class _Plan:
    """What the first pass learnt of the file."""

    header: list = field(default_factory=list)
    columns: dict = field(default_factory=dict)  # number of columns -> lines
    docs: dict = field(default_factory=dict)  # doc -> _Doc, in the file's order
    categories: dict = field(default_factory=dict)  # label -> first line
    severities: dict = field(default_factory=dict)  # lower-case -> the file's first spelling
    respelled: dict = field(default_factory=dict)  # another spelling -> its first line
    lines: int = 0
    errors: int = 0
    numeric: bool = True  # every seg_id a whole number

    def seg_order(self, doc):
        seg_ids = list(doc.seg_ids)
        return sorted(seg_ids, key=int) if self.numeric else seg_ids


def _check_line(line, plan, weights, name, problems, weight_refused):
    """Check one line against what earlier lines said; keep what the write needs."""
    add = lambda message: problems.add(name, line.number, message)  # noqa: E731
    for what, value in (("system", line.system), ("doc", line.doc), ("rater", line.rater)):
        if len(value) > NAME_LENGTH:
            add(f"the {what} name has {len(value)} characters; at most {NAME_LENGTH}")
            return
    if not line.target.text:
        add("the target is empty: a segment needs a text")
        return
    if any("\x00" in value for value in (line.system, line.doc, line.doc_id, line.seg_id, line.rater,
                                          line.source.text, line.target.text, line.category, *line.rest)):  # fmt: skip
        add("a NUL character (\\x00), which no database text can hold")
        return
    no_error = is_no_error(line.category, line.severity)
    if not no_error:
        if not line.category.strip():
            add("no category: an MQM error has a category and a severity (an ESA file names none)")
            return
        if not line.severity.strip():
            add("no severity")
            return
        if len(line.category) > LABEL_LENGTH:
            add(f"the category has {len(line.category)} characters; at most {LABEL_LENGTH}")
            return
        if len(line.severity.strip()) > SEVERITY_LENGTH:
            add(f"the severity has {len(line.severity.strip())} characters; at most {SEVERITY_LENGTH}")
            return
        spans = len(line.source.spans) + len(line.target.spans)
        if spans > 1:
            add(f"{spans} spans marked; an error line marks one span (or none)")
            return
        severity = line.severity.strip()
        if severity.lower() not in plan.severities:
            plan.severities[severity.lower()] = severity
        elif plan.severities[severity.lower()] != severity:
            plan.respelled.setdefault(severity, line.number)
        try:
            weights.weight(line.category, severity)
        except WeightMissing as missing:
            if severity.lower() not in weight_refused:
                weight_refused.add(severity.lower())
                add(f"{missing}: give its weight (--weights, or the config's weights in study.yaml)")
            return
        plan.categories.setdefault(line.category, line.number)
        plan.errors += 1
    doc = plan.docs.get(line.doc)
    if doc is None:
        doc = plan.docs[line.doc] = _Doc(line.doc)
    known = doc.seg_ids.get(line.seg_id)
    if known is None:
        doc.seg_ids[line.seg_id] = [line.source.text, line.doc_id, line.number]
        if plan.numeric and not line.seg_id.isdecimal():
            plan.numeric = False
    elif known[0] != line.source.text:
        add(f"the source of segment {line.seg_id} of doc {line.doc!r} differs from line {known[2]}'s")
        return
    translation = doc.systems.get(line.system)
    if translation is None:
        translation = doc.systems[line.system] = _Translation(line.system)
    digest = _digest(line.target.text)
    target = translation.targets.get(line.seg_id)
    if target is None:
        translation.targets[line.seg_id] = (digest, line.number)
    elif target[0] != digest:
        add(f"the target of segment {line.seg_id} of doc {line.doc!r} by {line.system} differs from "
            f"line {target[1]}'s")  # fmt: skip
        return
    translation.raters.setdefault(line.rater, set()).add(line.seg_id)


def check_file(path, *, name, weights, problems):
    """The first pass: every line checked (problems added), a _Plan of what to write."""
    plan, weight_refused = _Plan(), set()
    for line in scan(
        path, header=plan.header, problem=lambda number, message: problems.add(name, number, message)
    ):
        plan.lines += 1
        columns = len(COLUMNS) + len(line.rest)
        plan.columns[columns] = plan.columns.get(columns, 0) + 1
        _check_line(line, plan, weights, name, problems, weight_refused)
    if not plan.lines and not problems:
        problems.add(name, 0, "no MQM lines in the file")
    if len(plan.severities) > MAX_SEVERITIES:
        problems.add(name, 0, f"{len(plan.severities)} severities ({', '.join(plan.severities.values())}); "
                              f"a study has at most {MAX_SEVERITIES}")  # fmt: skip
    return plan


def _severities(plan, weights):
    """The file's severities, mildest first (by weight, then as the file first uses them)."""
    found = list(plan.severities.values())
    return sorted(found, key=lambda s: (weights.weighs(s) if weights.weighs(s) is not None else float("inf"),
                                        found.index(s)))  # fmt: skip


def _study_config(plan, weights_config, settings):
    config = dict(settings.get("config") or {})
    config.setdefault(
        "severities", _severities(plan, Weights.from_config(weights_config)) or ["Minor", "Major"]
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
    segment_ids: dict = field(default_factory=dict)  # index -> Segment pk
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
    assignments, assignment_of = [], {}
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
    rated = sum(len(row.items) for row in assignments)
    notes = _notes(name, plan, columns)
    severities = dict(plan.severities)
    del plan, assignments, documents  # the second pass needs none of it but what is written above
    segments, errors = _second_pass(path, written, assignment_of, category_of, severities, weights)
    for place in written.values():
        if place.unclosed:
            place.document.meta["interop"]["unclosed"] = place.unclosed
    Document.objects.bulk_update(
        [p.document for p in written.values() if p.unclosed], ["meta"], batch_size=BATCH
    )
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


def _second_pass(path, written, assignment_of, category_of, severities, weights):
    """Segments and errors, from a second read of the file, in batches; (segments, errors) written."""
    pending_segments, pending_errors = [], []
    counts = [0, 0]

    def flush():
        Segment.objects.bulk_create([segment for _, segment in pending_segments], batch_size=BATCH)
        for place, segment in pending_segments:
            place.segment_ids[segment.index] = segment.pk  # None until now: pending
        TranslationError.objects.bulk_create(
            [TranslationError(segment_id=place.segment_ids[index], **error) for place, index, error in pending_errors],
            batch_size=BATCH,
        )  # fmt: skip
        counts[0] += len(pending_segments)
        counts[1] += len(pending_errors)
        pending_segments.clear()
        pending_errors.clear()

    for line in scan(path, problem=lambda number, message: None):  # checked in the first pass
        place = written[(line.system, line.doc)]
        index = place.indices[line.seg_id]
        if index not in place.segment_ids:
            place.segment_ids[index] = None
            text = line.target.text
            pending_segments.append(
                (
                    place,
                    Segment(
                        document=place.document, index=index, text=text, sentences=sentence_offsets(text)
                    ),
                )
            )
        if not is_no_error(line.category, line.severity):
            category = category_of[line.category]
            side, start, end, text = _placed(line, line.category, weights)
            if line.unclosed and side != MISSING:
                place.unclosed.append([index, line.rater, side, start])
            assignment = assignment_of[(line.system, line.doc, line.rater)]
            pending_errors.append((place, index, {
                "assignment": assignment, "side": side, "start": start, "end": end, "text": text,
                "category": category, "severity": severities[line.severity.strip().lower()], "comment": "\t".join(line.rest),
                "client_id": f"line-{line.number}",
            }))  # fmt: skip
        if len(pending_segments) >= BATCH or len(pending_errors) >= BATCH:
            flush()
    flush()
    return counts[0], counts[1]
