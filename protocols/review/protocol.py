"""The review protocol (meta-evaluation): people judge error spans that someone else,
often an LLM evaluator, produced."""

from django.shortcuts import render

from accounts.policy import ModelRule
from studies.protocols import Protocol

from . import bundle, config, exports, publish, report, report_page, selectors, services


class ReviewProtocol(Protocol):
    key = "review"
    label = "Review of error annotations"
    works_on = "document"
    config_options = config.OPTIONS
    access_rules = {
        "review.reviewitem": ModelRule("document__study", change="nobody"),
        "review.reviewanswer": ModelRule("assignment__study", change="nobody"),
    }
    task_urls = "protocols.review.urls"
    bundle = bundle
    report_template = "review/report_section.html"

    def page(self, request, assignment):
        return render(
            request,
            "review/task.html",
            {
                "assignment": assignment,
                "study": assignment.study,
                "task_data": selectors.review_page_data(assignment),
            },
        )

    def state(self, assignment):
        return selectors.review_state(assignment)

    def missing(self, assignment):
        return services.review_missing(assignment)

    def submit_ready(self, assignment):
        return services.review_complete(assignment)

    def report(self, study, progress):
        return report.review_report_for(study)

    def report_context(self, result):
        return report_page.review_report_context(result)

    def report_headline(self, result):
        return publish.review_headline(result)

    def publish_tables(self, result):
        return publish.review_tables(result)

    def export_columns(self, study):
        return exports.review_columns(study)

    def export_rows(self, study):
        return exports.review_rows(study)

    def export_row_count(self, study):
        return exports.review_row_count(study)

    def export_types(self, study):
        return dict.fromkeys(["item", "assignment"], "int")


PROTOCOLS = [ReviewProtocol()]
