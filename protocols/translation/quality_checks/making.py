"""Make quality checks: degraded copies of a share of a study's main documents (kind attention)."""

import random
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max

from studies.models import Document, Segment, Study
from studies.sentences import sentence_offsets

from ..degrade import MODES, REPLACE, degrade
from ..keys import KEYS, QUALITY_CHECK

EXPECTED_SEVERITY = "Major"
SUFFIX = "#qc"  # a check's external_id: its original's and this (a number after it when taken)
MAX_EXTERNAL_ID = 255


class QualityCheckError(ValueError):
    """The study or the options do not allow quality checks (the command's message)."""


@dataclass
class MadeChecks:
    created: list = field(default_factory=list)  # the new check documents
    skipped: list = field(default_factory=list)  # (original external_id, why)
    wanted: int = 0  # checks the share asks for, over the study's main documents
    existing: int = 0  # main documents that already had a check
    every: int | None = None  # the study's attention_every after the call
    announced: bool = False


def _check_external_id(original, taken):
    base = original[: MAX_EXTERNAL_ID - len(SUFFIX) - 6] + SUFFIX
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}{n}"
    return candidate


class _Donors:
    """Segments of the pool, as a sequence of texts (no copy made): every row outside one range
    (the source document's own segments), or the rows listed."""

    def __init__(self, pool, skip=(0, 0), rows=None):
        self.pool, (self.start, self.stop), self.rows = pool, skip, rows

    def _row(self, i):
        if self.rows is not None:
            return self.pool[self.rows[i]]
        return self.pool[i if i < self.start else i + self.stop - self.start]

    def __len__(self):
        return len(self.rows) if self.rows is not None else len(self.pool) - (self.stop - self.start)

    def __getitem__(self, i):
        return self._row(i)[2]

    def origin(self, i):
        """{"document": external_id, "segment": index} of the i-th text."""
        external_id, index = self._row(i)[1]
        return {"document": external_id, "segment": index}


def _donor_pool(study, main_documents):
    """[(input key, (document external_id, index), text)] of every main segment, grouped by
    source document (input_id, or the document itself without one), and each group's range."""
    of = {d.pk: d for d in main_documents}
    segments = (
        Segment.objects.filter(document__study=study, document__kind=Document.Kind.MAIN)
        .order_by("document__position", "document_id", "index")
        .values_list("document_id", "index", "text")
    )
    segments = [(d, i, t) for d, i, t in segments if d in of]
    rows = [((of[d].input_id or f"\0{of[d].external_id}"), (of[d].external_id, i), t) for d, i, t in segments]
    rows.sort(key=lambda row: row[0])  # stable: within a source, documents and segments keep their order
    ranges = {}
    for position, (key, _, _) in enumerate(rows):
        first, _ = ranges.get(key, (position, position))
        ranges[key] = (first, position + 1)
    return rows, ranges


def _donors_for(pool, ranges, key, index):
    """Phrases come from other source documents; in a study of one source, from its other segments."""
    skip = ranges.get(key, (0, 0))
    if len(pool) - (skip[1] - skip[0]) > 0:
        return _Donors(pool, skip)
    return _Donors(pool, rows=[n for n, (k, (_, i), _) in enumerate(pool) if k == key and i != index])


def _degraded_segments(document, texts, count, mode, pool, ranges, rng):
    """{index: (Degraded, donor origin or None)} of up to `count` segments, drawn by `rng`."""
    key = document.input_id or f"\0{document.external_id}"
    order = list(range(len(texts)))
    rng.shuffle(order)
    made = {}
    for index in order:
        if len(made) == count:
            break
        donors = _donors_for(pool, ranges, key, index)
        result = degrade(texts[index], mode, donors, rng)
        if result is not None:
            made[index] = (result, donors.origin(result.donor) if result.donor is not None else None)
    return made


@transaction.atomic
def quality_checks_make(*, study, share=0.1, seed=0, mode=REPLACE, segments=1, announced=None, every=None):
    """Make degraded copies (kind attention) of a share of the study's main documents.

    `share` of the main documents (rounded, at least one) get a check; documents that already
    have one count, so running it again with the same share makes none. In each copy `segments`
    segments (or as many as can be) have a phrase replaced by one of as many words from another
    source document's segment (`mode` replace) or dropped (`mode` drop). The same seed on the same
    study makes the same checks. `announced` (True/False) tells workers that checks exist, or
    not; None leaves the study's choice. `every` sets `attention_every`; a study without one gets
    round(1 / share). Returns a MadeChecks."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.protocol not in KEYS:
        raise QualityCheckError(
            f"quality checks are for translation studies (mqm, esa, da), not {study.protocol}"
        )
    if not isinstance(share, int | float) or not 0 < share <= 1:
        raise QualityCheckError("share must be a number above 0 and at most 1")
    if mode not in MODES:
        raise QualityCheckError(f"mode must be one of {', '.join(MODES)}")
    if not isinstance(segments, int) or segments < 1:
        raise QualityCheckError("segments must be a whole number of at least 1")
    if every is not None and (not isinstance(every, int) or not 1 <= every <= 10_000):
        raise QualityCheckError("every must be a whole number from 1 to 10,000")
    main = list(study.documents.filter(kind=Document.Kind.MAIN).with_text().order_by("position", "id"))
    copies = study.documents.filter(kind=Document.Kind.ATTENTION).values_list(
        f"meta__{Document.COPY_OF}", flat=True
    )
    have = {original for original in copies if original}
    made = MadeChecks(wanted=max(1, round(share * len(main))) if main else 0)
    made.existing = sum(1 for d in main if d.external_id in have)
    rng = random.Random(seed)
    free = [d for d in main if d.external_id not in have]
    chosen = rng.sample(free, min(max(0, made.wanted - made.existing), len(free)))
    chosen.sort(key=lambda d: (d.position, d.pk))
    pool, ranges = _donor_pool(study, main)
    taken = set(study.documents.values_list("external_id", flat=True))
    position = study.documents.aggregate(last=Max("position"))["last"] or 0
    for original in chosen:
        rows = list(original.segments.order_by("index").values_list("index", "text", "sentences"))
        texts = [text for _, text, _ in rows]
        degraded = _degraded_segments(original, texts, segments, mode, pool, ranges, rng)
        if not degraded:
            why = (
                "no segment has two words to drop"
                if mode != REPLACE
                else "no other segment to take a phrase from"
            )
            made.skipped.append((original.external_id, why))
            continue
        gold = [
            {
                "index": index,
                "start": d.start,
                "end": d.end,
                "window": [d.window_start, d.window_end],
                "removed": d.removed,
                "inserted": d.inserted,
                "donor": donor,
                "severity": EXPECTED_SEVERITY,
            }
            for index, (d, donor) in sorted(degraded.items())
        ]
        external_id = _check_external_id(original.external_id, taken)
        taken.add(external_id)
        position += 1
        meta = {**(original.meta if isinstance(original.meta, dict) else {}), Document.COPY_OF: original.external_id,
                QUALITY_CHECK: {"mode": mode, "seed": seed, "segments": gold}}  # fmt: skip
        check = Document.objects.create(
            study=study, external_id=external_id, input_id=original.input_id, system=original.system,
            source=original.source, meta=meta, kind=Document.Kind.ATTENTION, position=position,
        )  # fmt: skip
        Segment.objects.bulk_create(
            Segment(
                document=check,
                index=index,
                text=degraded[index][0].text if index in degraded else text,
                sentences=sentence_offsets(degraded[index][0].text) if index in degraded else sentences,
            )  # fmt: skip
            for index, text, sentences in rows
        )
        made.created.append(check)
    study_config = dict(study.config or {})
    if every is not None:
        study_config["attention_every"] = every
    elif not study_config.get("attention_every"):
        study_config["attention_every"] = min(10_000, max(1, round(1 / share)))
    if announced is not None:
        study_config["attention_announced"] = bool(announced)
    if study_config != study.config:
        study.config = study_config
        study.save(update_fields=["config"])
    made.every = study_config["attention_every"]
    made.announced = bool(study_config.get("attention_announced", False))
    return made


# --- reading the checks and the work on them ---------------------------------------------------
