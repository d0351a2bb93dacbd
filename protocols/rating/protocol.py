"""The rating protocols (Tang et al. 2022): Likert ratings of each output, and Best-Worst
Scaling over tuples of outputs; both hand out blocks, with test-retest."""

from django.shortcuts import render

from accounts.policy import ModelRule
from reports.metrics.ratings import rating_report
from studies.protocols import Protocol

from . import blocks, bundle, config, exports, publish, report, report_page, selectors, services
from .keys import BWS, LIKERT


class RatingProtocol(Protocol):
    works_on = "block"
    access_rules = {
        "rating.rating": ModelRule("assignment__study", change="nobody"),
        "rating.bestworstjudgment": ModelRule("assignment__study", change="nobody"),
    }
    task_urls = "protocols.rating.urls"
    bundle = bundle
    report_template = "rating/report_section.html"

    def page(self, request, assignment):
        return render(
            request,
            "rating/task.html",
            {
                "assignment": assignment,
                "study": assignment.study,
                "task_data": selectors.rating_page_data(assignment),
            },
        )

    def state(self, assignment):
        return selectors.rating_state(assignment)

    def missing(self, assignment):
        return services.block_missing(assignment)

    def submit_ready(self, assignment):
        return services.block_complete(assignment)

    def report(self, study, progress):
        data = report.rating_study_for(study)
        progress(0.3)
        return rating_report(data)

    def report_context(self, result):
        return report_page.rating_report_context(result)

    def report_headline(self, result):
        return publish.rating_headline(result)

    def publish_tables(self, result):
        return publish.rating_tables(result)


class LikertProtocol(RatingProtocol):
    key = LIKERT
    label = "Likert rating"
    config_options = config.LIKERT_OPTIONS

    def block_items(self, study, block, rng):
        return blocks.likert_items(study, block, rng)

    def allocation_scores(self, study):
        return selectors.likert_document_scores(study)

    def export_columns(self, study):
        return exports.LIKERT_COLUMNS

    def export_rows(self, study):
        return exports.likert_rows(study)

    def export_row_count(self, study):
        return exports.likert_row_count(study)

    def export_types(self, study):
        return dict.fromkeys(["score", "assignment", "active_seconds"], "int")


class BestWorstProtocol(RatingProtocol):
    key = BWS
    label = "Best-Worst Scaling"
    config_options = config.BWS_OPTIONS

    def block_items(self, study, block, rng):
        return blocks.bws_items(study, block, rng)

    def allocation_scores(self, study):
        return selectors.bws_document_scores(study)

    # Best and worst of a tuple say nothing of an output judged in another tuple.
    allocation_judged_together = True

    def export_columns(self, study):
        return exports.BWS_COLUMNS

    def export_rows(self, study):
        return exports.bws_rows(study)

    def export_row_count(self, study):
        return exports.bws_row_count(study)

    def export_types(self, study):
        return dict.fromkeys(["tuple", "value", "assignment", "active_seconds"], "int")


PROTOCOLS = [LikertProtocol(), BestWorstProtocol()]
