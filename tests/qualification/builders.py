"""A qualification round in the database: documents of kind qualification, expert gold."""

from accounts.models import Worker
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from qualification.models import Qualification
from tests.factories import CategoryFactory, DocumentFactory, SegmentFactory, StudyFactory

# Two segments of two sentences each.
TEXTS = ["Anna met Ben at the mill. Ben left early.", "Anna met Ben at the mill again. Then Carl sang."]


def make_round(slug="qual-round", **qualification_fields):
    study = StudyFactory(slug=slug, title="Qualification round")
    CategoryFactory(taxonomy=study.taxonomy, key="CharE", label="New character", group="coherence")
    CategoryFactory(taxonomy=study.taxonomy, key="RepE", label="Repetition", group="language", kind="paired")
    CategoryFactory(taxonomy=study.taxonomy, key="GramE", label="Grammar", group="language")
    document = DocumentFactory(study=study, external_id="q1", kind="qualification")
    for index, text in enumerate(TEXTS):
        SegmentFactory(document=document, index=index, text=text)
    qualification = Qualification.objects.create(slug=f"{slug}-q", title="SNaC qualification", study=study,
                                                 **qualification_fields)  # fmt: skip
    return qualification, document


def span(document, segment, text, category, paired=None, *, occurrence=0):
    """An annotation dict for `text` in `segment` (the `occurrence`-th time it appears)."""
    segment_text = TEXTS[segment]
    start = -1
    for _ in range(occurrence + 1):
        start = segment_text.index(text, start + 1)
    return {"segment": segment, "start": start, "end": start + len(text), "text": text, "category": category,
            "paired": paired}  # fmt: skip


def annotate(document, worker_id, kind, spans, *, platform="prolific", status="submitted", seconds=0):
    worker, _ = Worker.objects.get_or_create(platform=platform, external_id=worker_id)
    assignment = Assignment.objects.create(study=document.study, document=document, worker=worker, kind=kind,
                                           status=status, active_seconds=seconds)  # fmt: skip
    categories = {c.key: c for c in document.study.taxonomy.categories.all()}
    segments = {s.index: s for s in document.segments.all()}
    for number, item in enumerate(spans):
        paired = item.get("paired")
        ErrorAnnotation.objects.create(
            assignment=assignment, segment=segments[item["segment"]], category=categories[item["category"]],
            start=item["start"], end=item["end"], text=item["text"], client_id=f"c{number}",
            paired_segment=segments[paired["segment"]] if paired else None,
            paired_start=paired["start"] if paired else None, paired_end=paired["end"] if paired else None,
            paired_text=paired["text"] if paired else "",
        )  # fmt: skip
    return assignment
