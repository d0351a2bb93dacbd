"""Read a span study out of the database into the metrics' plain dataclasses.

A few flat queries (values_list, iterated in chunks) rather than model
instances: a 270,000-span study loads in seconds and little memory.
"""

from django.db.models import Count

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from protocols.span.models import DocumentAnswer, ErrorAnnotation
from reports.metrics.spans.annotators import PairSums, agreement_pairs
from reports.metrics.spans.data import MAIN, Annotation, Span, SpanCategory, SpanDocument, SpanStudy
from reports.metrics.spans.holistic import DocumentAnswers, DocumentQuestion, document_questions_report
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.report import span_figures
from reports.metrics.spans.tallies import (
    GOLD_REFERENCE,
    MERGED_KEYS,
    OTHERS_REFERENCE,
    merge_tallies,
    span_tallies,
)
from studies.models import Segment

CHUNK = 20_000


def span_study_for(study):
    """The study's documents, categories and submitted assignments as a SpanStudy.

    Loaded once per report: the parts of one report share it (study.report_cache,
    reports/study_report.py); none of them changes it.
    """
    cache = getattr(study, "report_cache", None)
    if cache is not None and "span_study" in cache:
        return cache["span_study"]
    loaded = _load_span_study(study)
    if cache is not None:
        cache["span_study"] = loaded
    return loaded


def span_layout_for(study, span_study):
    """The StudyLayout of `span_study`, built once per report like the span study itself."""
    cache = getattr(study, "report_cache", None)
    if cache is not None and "span_layout" in cache:
        return cache["span_layout"]
    layout = StudyLayout(span_study.documents)
    if cache is not None:
        cache["span_layout"] = layout
    return layout


def report_parts(study, documents_per_part):
    """The report in parts of `documents_per_part` documents (in study order), or None for one part.

    Each part names its documents and the reference every part scores
    annotators against (gold when the study has any submitted gold work),
    which one part alone could not tell.
    """
    ids = list(study.documents.order_by("position", "id").values_list("id", flat=True))
    if len(ids) <= documents_per_part:
        return None
    gold = Assignment.objects.filter(
        study=study, kind=Assignment.Kind.GOLD, status=Assignment.Status.SUBMITTED
    )
    reference = GOLD_REFERENCE if gold.exists() else OTHERS_REFERENCE
    return [
        {"documents": ids[start : start + documents_per_part], "reference_kind": reference}
        for start in range(0, len(ids), documents_per_part)
    ]


def part_study(study, part):
    """The SpanStudy of one part's documents and their work (what every tally of the part reads:
    loaded once per part, study.report_cache in reports/parts.py)."""
    cache = getattr(study, "report_cache", None)
    if cache is not None and "part_study" in cache:
        return cache["part_study"]
    loaded = _load_span_study(study, document_ids=part["documents"])
    if cache is not None:
        cache["part_study"] = loaded
    return loaded


def part_tallies(study, part, data=None):
    """The span report's tallies of one part's documents, and the workforce agreement's pairs."""
    data = part_study(study, part) if data is None else data
    tallies = span_tallies(data, reference_kind=part["reference_kind"])
    tallies["agreement_pairs"] = agreement_pairs(data)
    return tallies


def figures_from_parts(study, parts):
    """The span report's figures from every part's tallies (reports/parts.py PartTallies), as one
    pass over the study gives them.

    The workforce part's agreement (annotator_agreement) is left in the
    report cache, so it is not read from the database again.
    """
    pairs = PairSums()

    def with_pairs_summed():  # one read of the parts for both, of these keys alone
        for part in parts.sections(*MERGED_KEYS, "agreement_pairs"):
            pairs.add(part.pop("agreement_pairs") or {})
            yield part

    merged = merge_tallies(with_pairs_summed())
    cache = getattr(study, "report_cache", None)
    if cache is not None:
        cache["annotator_agreement"] = pairs.agreement()
    return span_figures(span_categories(study), merged)


def span_categories(study):
    if not study.taxonomy_id:
        return []
    return [
        SpanCategory(key=key, group=group or key, paired=kind == "paired")
        for key, group, kind in study.taxonomy.categories.order_by("order", "key").values_list(
            "key", "group", "kind"
        )
    ]


def _load_span_study(study, document_ids=None):
    """The study as a SpanStudy; with `document_ids`, only those documents and their work."""
    categories = span_categories(study)
    documents = {}
    chosen = study.documents.all() if document_ids is None else study.documents.filter(id__in=document_ids)
    for pk, external_id, system, input_id in chosen.order_by("position", "id").values_list(
        "id", "external_id", "system", "input_id"
    ):
        documents[pk] = SpanDocument(
            id=external_id, system=system, segments=[], sentences=[], input_id=input_id
        )
    # A part's documents by their ids alone: joined to the study as well, PostgreSQL scans every
    # segment of the study for each part (the parts' reads would grow with the square of its size).
    segments = (
        Segment.objects.filter(document_id__in=list(documents))
        if document_ids is not None
        else (Segment.objects.filter(document__study=study))
    )
    segments = segments.order_by("document_id", "index")
    for document_id, text, sentences in segments.values_list("document_id", "text", "sentences").iterator(
        chunk_size=CHUNK
    ):
        documents[document_id].segments.append(text)
        documents[document_id].sentences.append([tuple(pair) for pair in sentences])

    annotator_of = pseudonyms_of(study.pk)  # reports name annotators by pseudonym only
    assignments = {}
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    if document_ids is not None:
        submitted = submitted.filter(document_id__in=document_ids)
    for pk, document_id, worker, kind, seconds, visited, arm in submitted.values_list(
        "id", "document_id", "worker_id", "kind", "active_seconds", "segments_visited", "arm"
    ).iterator(chunk_size=CHUNK):
        assignments[pk] = Annotation(
            annotator=annotator_of(worker), document=documents[document_id].id, kind=kind, spans=[],
            active_seconds=seconds, segments_visited=list(visited or []), arm=arm,
        )  # fmt: skip
    rows = ErrorAnnotation.objects.filter(assignment__in=submitted).values_list(
        "assignment_id", "category__key", "segment__index", "start", "end"
    )
    for assignment_id, category, segment, start, end in rows.iterator(chunk_size=CHUNK):
        assignments[assignment_id].spans.append(
            Span(category=category, segment=segment, start=start, end=end)
        )
    return SpanStudy(
        documents=list(documents.values()), categories=categories, annotations=list(assignments.values())
    )


def document_questions_for(study, questions):
    """The report's `document_questions`: answers of the submitted main assignments, and
    their error counts per category (reports/metrics/spans/holistic.py)."""
    categories = (
        list(study.taxonomy.categories.order_by("order", "key").values_list("key", flat=True))
        if study.taxonomy_id
        else []
    )
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED, kind=MAIN)
    annotator_of = pseudonyms_of(study.pk)
    assignments = {
        pk: DocumentAnswers(annotator=annotator_of(worker), document=document, answers={})
        for pk, worker, document in submitted.values_list(
            "id", "worker_id", "document__external_id"
        ).iterator(chunk_size=CHUNK)
    }
    answers = DocumentAnswer.objects.filter(assignment__in=submitted).values_list("assignment_id", "answers")
    for assignment_id, given in answers.iterator(chunk_size=CHUNK):
        assignments[assignment_id].answers = given or {}
    counts = (
        ErrorAnnotation.objects.filter(assignment__in=submitted)
        .values_list("assignment_id", "category__key")
        .annotate(spans=Count("id"))
        .order_by()
    )
    for assignment_id, category, spans in counts:
        assignments[assignment_id].errors[category] = spans
    return document_questions_report(
        [_metric_question(question) for question in questions], list(assignments.values()), categories
    )


def _metric_question(question):
    scale = question.get("scale") or {}
    return DocumentQuestion(
        key=question["key"], kind=question["kind"], label=question["label"],
        options=tuple(question.get("options", ())), low=scale.get("min", 1), high=scale.get("max", 5),
    )  # fmt: skip
