"""The pairwise comparison protocol (Tang et al. 2022, section 2.3): a worker sees two outputs of
the same input by different systems, A on the left and B on the right, and picks the better one
or, when the study allows it, "about the same"; optionally how clearly. Blocks, as in the rating
studies, with test-retest."""

from django.shortcuts import render

from accounts.policy import ModelRule
from studies.protocols import Protocol

from . import blocks, bundle, config, exports, publish, report, report_page, selectors, services
from .keys import PAIRWISE


class PairwiseProtocol(Protocol):
    key = PAIRWISE
    label = "Pairwise comparison"
    works_on = "block"
    config_options = config.OPTIONS
    access_rules = {
        "pairwise.pairwisechoice": ModelRule("assignment__study", change="nobody"),
    }
    researcher_models = ("pairwise.pairwisechoice",)
    task_urls = "protocols.pairwise.urls"
    bundle = bundle
    report_template = "pairwise/report_section.html"

    def page(self, request, assignment):
        return render(
            request,
            "pairwise/task.html",
            {
                "assignment": assignment,
                "study": assignment.study,
                "allow_ties": config.allow_ties(assignment.study),
                "strength_max": config.strength_max(assignment.study),
                "task_data": selectors.pairwise_page_data(assignment),
            },
        )

    def state(self, assignment):
        return selectors.pairwise_state(assignment)

    def missing(self, assignment):
        return services.block_missing(assignment)

    def submit_ready(self, assignment):
        return services.block_complete(assignment)

    def block_items(self, study, block, rng):
        return blocks.pairwise_items(study, block, rng)

    def allocation_scores(self, study):
        return selectors.document_win_shares(study)

    # A win is against the pair's other output only.
    allocation_judged_together = True

    def report(self, study, progress):
        return report.study_report(study, progress)

    def report_context(self, result):
        return report_page.pairwise_report_context(result)

    def report_headline(self, result):
        return publish.pairwise_headline(result)

    def publish_tables(self, result):
        return publish.pairwise_tables(result)

    def export_columns(self, study):
        return exports.COLUMNS

    def export_rows(self, study):
        return exports.pairwise_rows(study)

    def export_row_count(self, study):
        return exports.pairwise_row_count(study)

    def export_types(self, study):
        return dict.fromkeys(["position", "strength", "assignment", "active_seconds"], "int")


PROTOCOLS = [PairwiseProtocol()]
