"""An evaluator of an MQM or ESA translation study: a judge on the people's scale.

Its prompt shows each segment's source and translation; its answer is read
(answers.py) and placed (placing.py) under the rules the study gives its people
(severities, categories, sides, the cap per segment, the score's scale); what it
found is stored as the rows a person's page stores, TranslationError and (ESA)
SegmentScore, of the evaluator's model assignment of the document. The translation
report and the comparison read them like a rater's, kept apart from the people by
the assignment's kind (docs/evaluators.md, "Translation studies: a judge on the
people's scale").
"""

from protocols.translation import config
from protocols.translation.keys import ESA, MISSING, MQM, REFERENCES, SOURCE, SOURCES, TARGET, scheme
from protocols.translation.models import SegmentScore, TranslationError

from .. import prompts
from ..annotator import ModelAssignments
from ..answers import FOUND
from ..documents import segment_texts
from .answers import judgment_schema, read_judgment
from .placing import Category, Rules, placed_errors, placed_scores

TEMPLATES = {MQM: "mqm_prompt.txt", ESA: "esa_prompt.txt"}
SYSTEM_MESSAGE = (
    "You are an expert annotator of translation quality, trained in MQM and ESA. "
    "You answer with JSON only, exactly in the shape asked for."
)
# What each severity means, in the prompt (the study's own instructions come first).
SEVERITY_WORDS = {
    "neutral": "not an error as such: a preference, or something worth a note",
    "minor": "a real error that neither changes the meaning nor gets in the reader's way",
    "major": "an error that changes or hides the meaning, or that a reader stumbles over",
    "critical": "an error that makes the translation unusable or dangerously misleading",
}
# The default anchors of the score's scale, at its ends and thirds, when the study names none.
SCALE_WORDS = (
    "none of the meaning is kept, or the text is not a translation at all",
    "some of the meaning is kept, but much is lost or wrong",
    "most of the meaning is kept; a few errors of meaning or language",
    "the meaning is kept in full and the language is correct",
)


def judge_rules(study):
    """The study's rules for its people, as the judge keeps to them."""
    categories = None
    if scheme(study.protocol) == MQM:
        categories = tuple(
            Category(c.key, c.label or c.key, c.whole_sentence)
            for c in study.taxonomy.categories.order_by("order", "key")
        )
    return Rules(
        categories=categories,
        severities=tuple(config.severities(study)),
        source_spans=config.source_spans(study),
        missing_marker=config.missing_marker(study),
        cap=config.max_errors(study),
        scale=config.scale(study) if scheme(study.protocol) == ESA else None,
    )


def aligned(meta, key, count):
    """Document.meta[key] as `count` texts, one per segment ("" where it has none)."""
    values = meta.get(key) if isinstance(meta, dict) else None
    values = values if isinstance(values, list) else []
    return [value if isinstance(value, str) else "" for value in values[:count]] + [""] * max(
        0, count - len(values)
    )


def _anchors(study, low, high):
    labels = config.scale_labels(study)
    if labels:
        return [
            {"point": int(point), "text": text}
            for point, text in sorted(labels.items(), key=lambda p: int(p[0]))
        ]
    points = [low + round((high - low) * step / 3) for step in range(4)]
    return [{"point": point, "text": text} for point, text in zip(points, SCALE_WORDS, strict=True)]


def judge_context(study, rules, document, targets, sources, references):
    """What a translation prompt template sees (docs/evaluators.md lists every variable)."""
    meta = document.meta if isinstance(document.meta, dict) else {}
    scale = None
    if rules.scale is not None:
        low, high = rules.scale
        scale = {"min": low, "max": high, "middle": (low + high) // 2, "anchors": _anchors(study, low, high)}
    return {
        "study": {"slug": study.slug, "title": study.title},
        "instructions": study.instructions,
        "protocol": scheme(study.protocol),
        "source_lang": meta.get("source_lang", ""),
        "target_lang": meta.get("target_lang", ""),
        "categories": [
            {"key": c.key, "label": c.label, "whole_segment": c.whole_segment, **descriptions}
            for c, descriptions in zip(rules.categories or (), _category_texts(study, rules), strict=True)
        ],
        "severities": [
            {"name": name, "description": SEVERITY_WORDS.get(name.lower(), "")} for name in rules.severities
        ],
        "scale": scale,
        "max_errors": rules.cap,
        "source_spans": rules.source_spans,
        "missing_marker": rules.missing_marker,
        "show_reference": any(references),
        "document": {"id": document.external_id, "system": document.system, "meta": meta},
        "segments": [
            {"number": index + 1, "index": index, "source": sources[index], "target": target,
             "reference": references[index]}
            for index, target in enumerate(targets)
        ],
    }  # fmt: skip


def _category_texts(study, rules):
    if rules.categories is None:
        return []
    described = {c.key: (c.description, c.group) for c in study.taxonomy.categories.all()}
    return [{"description": described[c.key][0], "group": described[c.key][1]} for c in rules.categories]


class TranslationMode:
    """What a run does on an MQM or ESA study, for RunWork (its interface is SpanMode's)."""

    schema_name = "translation_errors"

    def __init__(self, evaluator, documents):
        self.evaluator = evaluator
        self.study = evaluator.study
        self.rules = judge_rules(self.study)
        self.category_ids = (
            dict(self.study.taxonomy.categories.values_list("key", "id")) if self.rules.categories else {}
        )
        self.targets, self.segment_ids = segment_texts([d.pk for d in documents])
        self.sources = {d.pk: aligned(d.meta, SOURCES, len(self.targets[d.pk])) for d in documents}
        shows = config.show_reference(self.study)
        self.references = {
            d.pk: aligned(d.meta if shows else {}, REFERENCES, len(self.targets[d.pk])) for d in documents
        }
        self.assignments = ModelAssignments(evaluator, [d.pk for d in documents])

    def messages(self, document):
        context = judge_context(
            self.study, self.rules, document, self.targets[document.pk], self.sources[document.pk],
            self.references[document.pk],
        )  # fmt: skip
        return prompts.render_messages(
            self.evaluator.prompt_template, context,
            default=prompts.default_template(TEMPLATES[scheme(self.study.protocol)]), system=SYSTEM_MESSAGE,
        )  # fmt: skip

    def schema(self):
        sides = [TARGET] + [SOURCE] * self.rules.source_spans + [MISSING] * self.rules.missing_marker
        return judgment_schema(
            categories=[c.label for c in self.rules.categories] if self.rules.categories else None,
            severities=self.rules.severities, sides=sides, scale=self.rules.scale,
        )  # fmt: skip

    def read(self, content):
        return read_judgment(content)

    def place(self, document, judgment):
        """The result's fields: every error with its status and place, and (ESA) every score."""
        targets = self.targets[document.pk]
        errors = placed_errors(
            judgment.errors if judgment else [], targets, self.sources[document.pk], self.rules
        )
        scores = []
        if self.rules.scale is not None and judgment:
            scores = placed_scores(judgment.scores, len(targets), self.rules.scale)
        found = sum(1 for error in errors if error.get("status") == FOUND)
        return {"items": errors, "scores": scores, "listed": len(errors), "placed": found}

    def write(self, document, fields, *, tag):
        """The judge's errors and scores as its assignment's rows, replacing an earlier run's."""
        assignment_id = self.assignments.fresh(document.pk, clear=_clear)
        segment_ids = self.segment_ids[document.pk]
        errors = [
            TranslationError(
                assignment_id=assignment_id,
                segment_id=segment_ids[segment],
                side=error["side"],
                start=start,
                end=end,
                text=error["span"],
                category_id=self.category_ids.get(error["category"]),
                severity=error["severity"],
                comment=error.get("explanation") or "",
                client_id=f"{tag}-{number}",
            )  # fmt: skip
            for number, error in enumerate(fields["items"])
            if error.get("status") == FOUND
            for segment, start, end in error["locations"]
        ]
        TranslationError.objects.bulk_create(errors)
        SegmentScore.objects.bulk_create(
            [
                SegmentScore(
                    assignment_id=assignment_id,
                    segment_id=segment_ids[entry["segment"]],
                    score=entry["score"],
                )
                for entry in fields.get("scores") or ()
                if entry.get("status") == FOUND
            ]
        )


def _clear(assignment_id):
    TranslationError.objects.filter(assignment_id=assignment_id).delete()
    SegmentScore.objects.filter(assignment_id=assignment_id).delete()
