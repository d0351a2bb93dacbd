"""A Pearmut campaign file (github.com/zouharvi/pearmut, its README's "Campaign Configuration")
imported as a new translation study: the campaign's items, to be rated on the platform.

The file, as Pearmut documents it: {"info": {"assignment", "protocol", ...}, "campaign_id",
"data"}. A task-based campaign's data is a list of tasks (one per annotator), each a list of
documents; a single-stream or dynamic campaign's data is the list of documents. A document is
a list of items, each {"src", "tgt": {model: translation}, "ref", "item_id", "instructions"}.

- one Document per (document, model): its input id the document's first item_id (else
  "document N"), its system the model, a Segment per item (the model's translation),
  Document.meta["sources"] and ["references"] the items' src and ref; a document given to
  several annotators (the same items in several tasks) is one document, whose
  annotators_per_document counts them;
- the study's protocol is the campaign's: ESA or DA (their 0-100 scale), or MQM when the
  campaign lists its categories (info.mqm_categories: "Main/Sub" labels) and severities
  (info.mqm_severities, default Minor and Major);
- not taken, and said in the notes: tutorial and attention items (data_welcome,
  data_random), items' validation and pre-filled error_spans, custom sliders, the
  textfield. Tasks become no assignments: the platform assigns documents itself.

Pearmut's results (its annotation logs) have no documented format: they are not read,
and the platform's own exports (the annotation table, MQM TSV) carry a study's results.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings as django_settings
from django.db import transaction

from accounts.models import StudyMembership
from bundles.problems import Problems
from bundles.study_checks import SLUG
from falte_site.json_input import JSONInputError, parse_json
from protocols.translation.keys import DA, ESA, MQM, REFERENCES, SOURCES
from reports.metrics.mqm import WeightMissing, Weights
from studies.config import config_problems
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets

from .categories import keys_for

PROTOCOLS = {"DA": DA, "ESA": ESA, "MQM": MQM}
TASK_BASED, POOLED = "task-based", ("single-stream", "dynamic")
MQM_SEVERITIES = ["Minor", "Major"]  # Pearmut's default mqm_severities
NOT_TAKEN = {  # info's options the platform has no counterpart for
    "sliders": "custom sliders (the study scores segments on its protocol's scale)",
    "textfield": "the textfield",
}
NAME_LENGTH = 255
BATCH = 5000


@dataclass
class CampaignImport:
    study: object
    documents: int
    segments: int
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    def describe(self):
        return f"{self.study.slug}: {self.documents:,} documents, {self.segments:,} segments"


@dataclass
class _Document:
    """A document of the campaign, and the tasks that give it to an annotator."""

    items: list
    models: list
    line: int | None
    tasks: set = field(default_factory=set)


def _text_and_lines(path, name, problems):
    size = Path(path).stat().st_size
    limit = django_settings.BUNDLE_MAX_FILE_BYTES
    if size > limit:
        problems.add(name, 0, f"file too large: {size:,} bytes, the limit is {limit:,}")
        return None, None
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
        value = parse_json(text)
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return None, None
    except JSONInputError as error:
        problems.add(name, error.line, f"not JSON we accept: {error.message}")
        return None, None
    return value, text


class _Lines:
    """The line of a position in the text, counted on from the last position asked (a walk
    goes forward), so a large file is counted once."""

    def __init__(self, text):
        self.text, self.position, self.line = text, 0, 1

    def at(self, position):
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line


def _element_lines(text, position, depth, lines_of):
    """The lines where the elements of the array at `position` start, nested `depth` deep
    ([line, ...] at depth 1, [[line, ...], ...] at depth 2...); None where one is no array."""
    decoder, lines = json.JSONDecoder(), []
    position += 1
    while True:
        while text[position] in " \t\r\n,":
            position += 1
        if text[position] == "]":
            return lines
        line = lines_of.at(position)
        if depth > 1 and text[position] == "[":
            lines.append(_element_lines(text, position, depth - 1, lines_of))
        else:
            lines.append(line if depth == 1 else None)
        _, position = decoder.raw_decode(text, position)


def _data_lines(text, depth):
    """The lines of the items of the top-level object's "data" array (see _element_lines)."""
    decoder, lines_of = json.JSONDecoder(), _Lines(text)
    position = text.index("{") + 1
    while True:
        while text[position] in " \t\r\n,":
            position += 1
        if text[position] == "}":
            return None
        key, position = decoder.raw_decode(text, position)
        while text[position] in " \t\r\n:":
            position += 1
        if key == "data" and text[position] == "[":
            return _element_lines(text, position, depth, lines_of)
        _, position = decoder.raw_decode(text, position)


def _line_at(lines, *indices):
    for index in indices:
        if not isinstance(lines, list) or index >= len(lines):
            return None
        lines = lines[index]
    return lines if isinstance(lines, int) else None


def _check_item(item, where, line, name, problems):
    """The item's models ([] after a problem)."""
    if not isinstance(item, dict):
        problems.add(name, line, f'{where}: an item must be an object with "tgt"')
        return []
    tgt = item.get("tgt")
    if not isinstance(tgt, dict) or not tgt:
        problems.add(name, line, f'{where}: "tgt" must map each model to its translation')
        return []
    for model, translation in tgt.items():
        if not model.strip() or len(model) > NAME_LENGTH:
            problems.add(name, line, f"{where}: model name {model!r} must be 1 to {NAME_LENGTH} characters")
            return []
        if not isinstance(translation, str) or not translation:
            problems.add(name, line, f"{where}: the translation of {model} must be text, not empty")
            return []
    for key in ("src", "ref"):
        if key in item and not isinstance(item[key], str):
            problems.add(name, line, f'{where}: "{key}" must be text')
            return []
    if "item_id" in item and not isinstance(item["item_id"], str | int):
        problems.add(name, line, f'{where}: "item_id" must be text or a number')
        return []
    return list(tgt)


def read(path, *, name, problems):
    """The campaign's protocol, info and documents (a list of _Document), checked; problems
    name the file, the item's line and the item."""
    value, text = _text_and_lines(path, name, problems)
    if value is None:
        return None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("info"), dict)
        or not isinstance(value.get("data"), list)
    ):
        problems.add(name, 1, 'a campaign is an object {"info": {...}, "campaign_id": ..., "data": [...]}')
        return None
    info = value["info"]
    protocol = PROTOCOLS.get(str(info.get("protocol", "")).upper())
    if protocol is None:
        problems.add(name, 1, f"protocol {info.get('protocol')!r}: the platform's translation studies are "
                              f"{', '.join(PROTOCOLS)}")  # fmt: skip
    assignment = info.get("assignment", TASK_BASED)
    if assignment != TASK_BASED and assignment not in POOLED:
        problems.add(name, 1, f"assignment {assignment!r}: one of {TASK_BASED}, {', '.join(POOLED)}")
        return None
    tasks = value["data"] if assignment == TASK_BASED else [value["data"]]
    lines = _data_lines(text, 3 if assignment == TASK_BASED else 2)
    lines = lines if assignment == TASK_BASED else [lines]
    documents = {}
    for t, task in enumerate(tasks):
        if not isinstance(task, list):
            problems.add(name, _line_at(lines, t), f"task {t + 1}: a task is a list of documents")
            continue
        for d, items in enumerate(task):
            where = f"task {t + 1}, document {d + 1}" if assignment == TASK_BASED else f"document {d + 1}"
            if not isinstance(items, list) or not items:
                problems.add(
                    name, _line_at(lines, t, d, 0), f"{where}: a document is a non-empty list of items"
                )
                continue
            models = [_check_item(item, f"{where}, item {i + 1}", _line_at(lines, t, d, i), name, problems)
                      for i, item in enumerate(items)]  # fmt: skip
            if not all(models):
                continue
            if any(set(m) != set(models[0]) for m in models):
                problems.add(name, _line_at(lines, t, d, 0),
                             f"{where}: its items translate by different models ({', '.join(sorted({x for m in models for x in m}))}); "
                             "every item of a document has every model's translation")  # fmt: skip
                continue
            key = json.dumps(
                [[i.get("item_id"), i.get("src"), i.get("ref"), sorted(i["tgt"].items())] for i in items]
            )
            document = documents.setdefault(key, _Document(items, models[0], _line_at(lines, t, d, 0)))
            document.tasks.add(t)
    if not documents and not problems:
        problems.add(name, 1, "the campaign has no documents")
    return {"protocol": protocol, "info": info, "campaign_id": value.get("campaign_id"),
            "documents": list(documents.values()), "value": value}  # fmt: skip


def _notes(name, campaign):
    info, value, notes = campaign["info"], campaign["value"], []
    for key, what in (("data_welcome", "tutorial and form items"), ("data_random", "attention-check items")):
        if value.get(key):
            notes.append(f"{name}: {key} ({what}) not imported")
    for key, what in NOT_TAKEN.items():
        if info.get(key) is not None:
            notes.append(f"{name}: info.{key}, {what}, not imported")
    for key in ("validation", "error_spans"):
        count = sum(1 for d in campaign["documents"] for item in d.items if item.get(key))
        if count:
            notes.append(f"{name}: {count} item(s) with {key}, not imported")
    return notes


def _mqm_settings(info, name, problems):
    """(category labels, severities) of an MQM campaign."""
    categories = info.get("mqm_categories")
    if not isinstance(categories, dict) or not any(key for key in categories):
        problems.add(name, 1, "an MQM campaign imports with its info.mqm_categories (Pearmut's default taxonomy "
                              "is not documented, so it is not guessed)")  # fmt: skip
        categories = {}
    labels = []
    for main, subs in categories.items():
        if not main:
            continue  # "": the dropdown's unselected state
        if not isinstance(subs, list) or not all(isinstance(s, str) and s for s in subs):
            problems.add(name, 1, f"mqm_categories[{main!r}] must be a list of subcategory names")
            continue
        labels += [f"{main}/{sub}" for sub in subs] or [main]
    severities = info.get("mqm_severities", MQM_SEVERITIES)
    if not isinstance(severities, list) or not severities or not all(isinstance(s, str) for s in severities):
        problems.add(name, 1, "mqm_severities must be a list of names")
        return labels, list(MQM_SEVERITIES)
    for severity in severities:
        try:
            Weights().weight("", severity)
        except WeightMissing as missing:
            problems.add(
                name, 1, f"mqm_severities: {missing}; import the campaign with the weights in study.yaml"
            )
    return labels, [s.capitalize() if s.islower() else s for s in severities]


def import_campaign(path, *, slug, name=None, title=None, settings=None, user=None):
    """Check the Pearmut campaign `path` and import its items as the new study `slug` (all or
    nothing); BundleInvalid names every problem. `settings`: study.yaml's title, instructions,
    status and config."""
    name = name or Path(path).name
    settings = dict(settings or {})
    problems = Problems()
    if not isinstance(slug, str) or not SLUG.match(slug):
        problems.add(name, 0, f"study slug {slug!r}: letters, digits, - and _")
    elif Study.objects.filter(slug=slug).exists():
        problems.add(name, 0, f"a study with slug '{slug}' already exists")
    campaign = read(path, name=name, problems=problems)
    if campaign is None or campaign["protocol"] is None:
        problems.raise_if_any()
    protocol, info = campaign["protocol"], campaign["info"]
    config = dict(settings.get("config") or {})
    labels = []
    if protocol == MQM:
        labels, severities = _mqm_settings(info, name, problems)
        config.setdefault("severities", severities)
    for problem in config_problems(config, protocol=protocol):
        problems.add(name, 0, f"the study's config: {problem}")
    if settings.get("status", Study.Status.DRAFT) not in Study.Status.values:
        problems.add(
            name, 0, f"unknown status {settings['status']!r} (one of {', '.join(Study.Status.values)})"
        )
    problems.raise_if_any()
    instructions = settings.get("instructions") or (
        info.get("instructions") if isinstance(info.get("instructions"), str) else ""
    )
    fields = {
        "title": str(title or settings.get("title") or campaign["campaign_id"] or f"Pearmut campaign {name}")[:200],
        "instructions": instructions or "", "status": settings.get("status") or Study.Status.DRAFT,
    }  # fmt: skip
    return _write(
        campaign, slug, name, protocol, config, labels, fields, user, _notes(name, campaign), problems
    )


def _input_ids(documents):
    ids, taken = [], set()
    for number, document in enumerate(documents, start=1):
        first = document.items[0].get("item_id")
        base = (str(first) if first is not None else f"document {number}")[: NAME_LENGTH - 8]
        given, suffix = base, 2
        while given in taken:
            given, suffix = f"{base}#{suffix}", suffix + 1
        taken.add(given)
        ids.append(given)
    return ids


@transaction.atomic
def _write(campaign, slug, name, protocol, config, labels, fields, user, notes, problems):
    taxonomy = None
    if protocol == MQM:
        taxonomy = Taxonomy.objects.create(slug=slug, name=f"MQM categories of {name}"[:200],
                                           version=str(1 + Taxonomy.objects.filter(slug=slug).count()))  # fmt: skip
        keys = keys_for(labels)
        Category.objects.bulk_create(
            Category(taxonomy=taxonomy, key=keys[label], label=label, order=position,
                     group=label.split("/")[0][:64], whole_sentence=Weights().is_whole_segment(label))
            for position, label in enumerate(labels, start=1)
        )  # fmt: skip
    documents = campaign["documents"]
    study = Study.objects.create(slug=slug, protocol=protocol, taxonomy=taxonomy, config=config,
                                 annotators_per_document=max(len(d.tasks) for d in documents), **fields)  # fmt: skip
    if user is not None and user.is_authenticated:
        StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    rows, position = [], 0
    for document, input_id in zip(documents, _input_ids(documents), strict=True):
        items = document.items
        meta = {SOURCES: [item.get("src", "") for item in items],
                "interop": {"format": "pearmut", "campaign_id": campaign["campaign_id"],
                            "item_ids": [item.get("item_id") for item in items]}}  # fmt: skip
        if any("ref" in item for item in items):
            meta[REFERENCES] = [item.get("ref", "") for item in items]
        for model in document.models:
            position += 1
            rows.append((Document(study=study, external_id=f"{input_id}/{model}"[:NAME_LENGTH], input_id=input_id,
                                  system=model, meta=meta, position=position), [i["tgt"][model] for i in items]))  # fmt: skip
    Document.objects.bulk_create([row for row, _ in rows], batch_size=BATCH)
    segments = [Segment(document=row, index=index, text=text, sentences=sentence_offsets(text))
                for row, texts in rows for index, text in enumerate(texts)]  # fmt: skip
    Segment.objects.bulk_create(segments, batch_size=BATCH)
    return CampaignImport(study=study, documents=len(rows), segments=len(segments), notes=notes,
                          warnings=problems.warnings)  # fmt: skip
