"""Make quality checks: degraded copies of a share of a study's main documents (kind attention)."""

import random
from array import array
from dataclasses import dataclass, field

import numpy as np
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


class _TakenIds:
    """The study's document ids, asked one at a time (a study's ids are not all read), and the
    ones given in this call."""

    def __init__(self, study):
        self.study, self.given = study, set()

    def __contains__(self, external_id):
        return external_id in self.given or self.study.documents.filter(external_id=external_id).exists()

    def add(self, external_id):
        self.given.add(external_id)


class DonorPool:
    """Every main segment of the study, as segment ids grouped by source document (input_id, or
    the document itself without one), each group's rows in the study's order: ids only, so the
    pool is a few bytes a segment whatever the texts; a donor's text is read when a check tries it.

    `ranges` maps a source key to the slice of rows that are its own segments."""

    def __init__(self, segment_ids, indexes, ranges):
        self.segment_ids, self.indexes, self.ranges = segment_ids, indexes, ranges

    def __len__(self):
        return len(self.segment_ids)

    def text(self, row):
        return Segment.objects.values_list("text", flat=True).get(pk=int(self.segment_ids[row]))

    def origin(self, row):
        """{"document": external_id, "segment": index} of a row."""
        external_id, index = Segment.objects.values_list("document__external_id", "index").get(
            pk=int(self.segment_ids[row])
        )
        return {"document": external_id, "segment": index}


class _Donors:
    """Rows of the pool as a sequence of texts: every row outside one range (the source
    document's own segments), or the rows listed."""

    def __init__(self, pool, skip=(0, 0), rows=None):
        self.pool, (self.start, self.stop), self.rows = pool, skip, rows

    def _row(self, i):
        if self.rows is not None:
            return self.rows[i]
        return i if i < self.start else i + self.stop - self.start

    def __len__(self):
        return len(self.rows) if self.rows is not None else len(self.pool) - (self.stop - self.start)

    def __getitem__(self, i):
        return self.pool.text(self._row(i))

    def origin(self, i):
        """{"document": external_id, "segment": index} of the i-th text."""
        return self.pool.origin(self._row(i))


def source_key(input_id, external_id):
    """The group a document's segments donate from: its source document, or itself without one."""
    return input_id or f"\0{external_id}"


def _donor_pool(study, keys):
    """The DonorPool of the study's main segments whose documents are in `keys` ({document pk:
    source key}), grouped by key (in the keys' string order) and otherwise in the study's order."""
    ids, indexes, ranks = array("q"), array("l"), array("l")
    rank = {key: n for n, key in enumerate(sorted(set(keys.values())))}
    segments = (
        Segment.objects.filter(document__study=study, document__kind=Document.Kind.MAIN)
        .order_by("document__position", "document_id", "index")
        .values_list("pk", "document_id", "index")
    )
    for pk, document_id, index in segments.iterator(chunk_size=10_000):
        if document_id in keys:
            ids.append(pk)
            indexes.append(index)
            ranks.append(rank[keys[document_id]])
    ranks = np.asarray(ranks, dtype=np.int64)
    order = np.argsort(ranks, kind="stable")  # stable: within a source, the study's order
    present, firsts, counts = np.unique(ranks[order], return_index=True, return_counts=True)
    by_rank = {n: key for key, n in rank.items()}
    ranges = {by_rank[int(n)]: (int(f), int(f + c)) for n, f, c in zip(present, firsts, counts, strict=True)}
    return DonorPool(
        np.asarray(ids, dtype=np.int64)[order], np.asarray(indexes, dtype=np.int64)[order], ranges
    )


def _donors_for(pool, key, index):
    """Phrases come from other source documents; in a study of one source, from its other segments."""
    first, stop = pool.ranges.get(key, (0, 0))
    if len(pool) - (stop - first) > 0:
        return _Donors(pool, (first, stop))
    own = [row for row in range(first, stop) if pool.indexes[row] != index]
    return _Donors(pool, rows=own)


def _degraded_segments(document, texts, count, mode, pool, rng):
    """{index: (Degraded, donor origin or None)} of up to `count` segments, drawn by `rng`."""
    key = source_key(document.input_id, document.external_id)
    order = list(range(len(texts)))
    rng.shuffle(order)
    made = {}
    for index in order:
        if len(made) == count:
            break
        donors = _donors_for(pool, key, index)
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
    # (pk, external_id, input_id, position) of the documents a check may copy: their texts and
    # meta are read only for the ones chosen.
    main = list(
        study.documents.filter(kind=Document.Kind.MAIN)
        .with_text()
        .order_by("position", "id")
        .values_list("pk", "external_id", "input_id", "position")
    )
    copies = study.documents.filter(kind=Document.Kind.ATTENTION).values_list(
        f"meta__{Document.COPY_OF}", flat=True
    )
    have = {original for original in copies if original}
    made = MadeChecks(wanted=max(1, round(share * len(main))) if main else 0)
    made.existing = sum(1 for _, external_id, _, _ in main if external_id in have)
    rng = random.Random(seed)
    free = [d for d in main if d[1] not in have]
    chosen = rng.sample(free, min(max(0, made.wanted - made.existing), len(free)))
    chosen.sort(key=lambda d: (d[3], d[0]))
    pool = _donor_pool(
        study, {pk: source_key(input_id, external_id) for pk, external_id, input_id, _ in main}
    )
    del main, free
    taken = _TakenIds(study)
    position = study.documents.aggregate(last=Max("position"))["last"] or 0
    for pk, *_ in chosen:
        original = Document.objects.get(pk=pk)
        rows = list(original.segments.order_by("index").values_list("index", "text", "sentences"))
        texts = [text for _, text, _ in rows]
        degraded = _degraded_segments(original, texts, segments, mode, pool, rng)
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
