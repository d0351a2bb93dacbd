"""The span protocol: workers read a document segment by segment and mark error spans
with a category of the study's taxonomy (FALTE, SNaC)."""

from django.shortcuts import render

from accounts.policy import ModelRule
from annotations.services.task import furthest_segment
from qualification.selectors import qualification_report
from reports.metrics.spans import annotators, span_report
from studies.assistance import arm_design
from studies.models import Segment
from studies.protocols import Protocol

from . import (
    bundle,
    config,
    document_questions,
    exports,
    feedback,
    publish,
    report,
    report_page,
    scoring,
    selectors,
)
from .assistance.report import assistance_for, assistance_from_parts, assistance_part, is_assisted
from .assistance.suggestions import shows_suggestions, undecided_before
from .export_copy import span_arrow_batches, span_csv_copy


class SpanProtocol(Protocol):
    key = "span"
    label = "Span annotation"
    works_on = "document"
    needs_taxonomy = True
    config_options = config.OPTIONS
    access_rules = {
        "span.errorannotation": ModelRule(
            "assignment__study", change="nobody", identity_fields=frozenset({"worker"})
        ),
        "span.documentanswer": ModelRule("assignment__study", change="nobody"),
        "span.suggestion": ModelRule(
            "document__study", change="nobody", note="taken from an evaluator run or a bundle"
        ),
        "span.suggestiondecision": ModelRule(
            "assignment__study", change="nobody", note="made on the task page by the suggestion arm"
        ),
    }
    researcher_models = ("span.errorannotation", "span.suggestion", "span.suggestiondecision")
    task_urls = "protocols.span.urls"
    bundle = bundle
    api_routes = (("annotations", "protocols.span.api.ErrorAnnotationViewSet", "annotation"),)
    report_template = "span/report_section.html"
    feedback_template = "span/feedback_documents.html"

    def arm_design(self, study):
        return arm_design(study)

    def page(self, request, assignment):
        return render(
            request,
            "span/task.html",
            {
                "assignment": assignment,
                "study": assignment.study,
                "task_data": selectors.task_page_data(assignment),
                # The suggestion arm's page loads its own script, style and panel; the control's none.
                "suggestion_arm": shows_suggestions(assignment),
            },
        )

    def state(self, assignment):
        return selectors.task_state(assignment)

    def missing(self, assignment):
        segments = getattr(assignment, "document_segments", None)  # read with the submit's lock
        if segments is None:
            segments = Segment.objects.filter(document_id=assignment.document_id).count()
        if furthest_segment(assignment) < segments - 1:
            return "read every segment before submitting"
        if undecided_before(assignment, furthest_segment(assignment) + 1):
            return "decide on every suggestion before submitting: accept, change, adjust or reject it"
        questions = document_questions.study_questions(assignment.study)
        if questions:
            answers = selectors.document_answers_of(assignment, questions)
            return document_questions.missing_message(questions, answers)
        return ""

    def score_against_gold(self, assignments):
        study = assignments[0].study if assignments else None
        if study is None or not study.taxonomy_id:
            return scoring.score_assignments(assignments, [])
        categories = [
            (key, kind == "paired") for key, kind in study.taxonomy.categories.values_list("key", "kind")
        ]
        return scoring.score_assignments(assignments, categories)

    def feedback_documents(self, assignments):
        return feedback.feedback_documents(assignments)

    def report(self, study, progress):
        data = report.span_study_for(study)
        progress(0.2)
        layout = report.span_layout_for(study, data)
        result = span_report(data, progress=lambda fraction: progress(0.2 + 0.8 * fraction), layout=layout)
        return self._report_parts_beside_spans(study, result)

    def report_parts(self, study, documents_per_part):
        return report.report_parts(study, documents_per_part)

    def report_part(self, study, part):
        data = report.part_study(study, part)
        tallies = report.part_tallies(study, part, data)
        if is_assisted(study):
            tallies["assistance"] = assistance_part(study, data, part["documents"])
        return tallies

    def report_from_parts(self, study, tallies, progress):
        result = report.figures_from_parts(study, tallies)
        progress(0.5)
        assisted = tallies.section("assistance")
        assistance = assistance_from_parts(study, assisted) if assisted.in_any_part() else None
        return self._report_parts_beside_spans(study, result, assistance=assistance)

    def _report_parts_beside_spans(self, study, result, assistance=None):
        """Document questions and qualification: read whole, in one pass; assistance from the
        parts' tallies when the report was computed in parts (`assistance`), else from the study."""
        questions = document_questions.study_questions(study)
        if questions:
            result["document_questions"] = report.document_questions_for(study, questions)
        qualification = qualification_report(study)
        if qualification is not None:
            result["qualification"] = qualification
        assistance = assistance if assistance is not None else assistance_for(study)
        if assistance is not None:
            result["assistance"] = assistance
        return result

    def report_context(self, result):
        return report_page.span_report_context(result)

    def report_headline(self, result):
        return publish.span_headline(result)

    def publish_tables(self, result):
        return publish.span_tables(result)

    annotator_agreement_rule = annotators.RULE

    def annotator_agreement(self, study):
        cache = getattr(study, "report_cache", None)
        if cache is not None and "annotator_agreement" in cache:  # a report merged from parts left it
            return cache["annotator_agreement"]
        return annotators.annotator_agreement(report.span_study_for(study))

    def export_columns(self, study):
        return exports.span_columns(study)

    def export_rows(self, study):
        return exports.span_rows(study)

    def export_row_count(self, study):
        return exports.span_row_count(study)

    def export_types(self, study):
        return exports.span_types(study)

    def export_csv_copy(self, study, *, with_platform_ids=False):
        return span_csv_copy(study, with_platform_ids=with_platform_ids)

    def export_arrow_batches(self, study, *, schema, with_platform_ids=False):
        return span_arrow_batches(study, schema=schema, with_platform_ids=with_platform_ids)


PROTOCOLS = [SpanProtocol()]
