"""The translation protocols (docs/translation-studies.md): a worker reads a translated document
segment by segment, the source beside each segment and the document around it, and

- MQM: marks error spans with a category of the study's taxonomy and a severity;
- ESA: marks error spans with a severity (Minor, Major), then scores the segment 0-100;
- DA: scores each segment (a 0-100 slider, or a 0-6 scale for SQM).

One app serves the three keys, as the rating app serves Likert and BWS."""

from django.shortcuts import render

from accounts.policy import ModelRule
from annotations.services.blocks import block_documents
from qualification.services import assignment_scored
from studies.assistance import arm_design
from studies.protocols import Protocol

from . import bundle, config, exports, publish, report, report_page, selectors, services, setup
from . import documents as document_files
from .assistance.prefill import suggestions_prefill
from .keys import CONTRASTIVE, DA, ESA, MQM, is_contrastive, scheme
from .quality_checks import scoring as quality_checks
from .quality_checks.console_form import QualityCheckForm

LABELS = {
    MQM: "MQM (translation errors)",
    ESA: "ESA (error spans and a score)",
    DA: "DA / SQM (segment scores)",
    "contrastive-mqm": "MQM, translations side by side",
    "contrastive-esa": "ESA, translations side by side",
    "contrastive-da": "DA / SQM, translations side by side",
}


class TranslationProtocol(Protocol):
    access_rules = {
        "translation.translationerror": ModelRule(
            "assignment__study", change="nobody", identity_fields=frozenset({"worker"})
        ),
        "translation.segmentscore": ModelRule("assignment__study", change="nobody"),
        "translation.suggestederror": ModelRule(
            "document__study", change="nobody", note="a judge's errors, copied by the suggestion source"
        ),
        "translation.suggestionprefill": ModelRule("assignment__study", change="nobody"),
    }
    researcher_models = ("translation.translationerror", "translation.segmentscore")
    task_urls = "protocols.translation.urls"
    report_template = "translation/report_section.html"
    bundle = bundle
    document_formats = document_files.FORMATS

    def __init__(self, key):
        self.key = key
        self.label = LABELS[key]
        self.needs_taxonomy = scheme(key) == MQM
        self.config_options = config.OPTIONS[key]
        # A contrastive study is a block study: a block is one source document (its documents'
        # `block` is their input id), and a worker gets every system's translation of it.
        self.works_on = "block" if is_contrastive(key) else "document"

    def page(self, request, assignment):
        suggestions_prefill(assignment=assignment)
        return render(
            request,
            "translation/task.html",
            {
                "assignment": assignment,
                "study": assignment.study,
                "task_data": selectors.translation_page_data(assignment),
            },
        )

    def state(self, assignment):
        suggestions_prefill(assignment=assignment)
        return selectors.translation_state(assignment)

    def arm_design(self, study):
        # Arms are drawn as a worker joins a document; a contrastive study hands out blocks.
        return arm_design(study) if study.protocol in (MQM, ESA) else None

    def missing(self, assignment):
        return services.translation_missing(assignment)

    def submit_ready(self, assignment):
        return services.translation_complete(assignment)

    def allocation_scores(self, study):
        return selectors.document_scores(study)

    def block_items(self, study, block, rng):
        """Every system's translation of the block's source, in this worker's own order: the
        page names them Translation 1, 2, ... and never by system."""
        documents = [pk for pk, _input in block_documents(study, block)]
        rng.shuffle(documents)
        return [{"position": place, "document": pk} for place, pk in enumerate(documents)]

    def score_against_gold(self, assignments):
        # A quality check (a degraded copy) against its injected errors; nothing else has gold.
        return quality_checks.score_checks(assignments)

    def after_submit(self, assignment):
        # An original submitted after its check (task links in any order): judge the check again,
        # now that the worker's two judgments can be compared.
        for check in quality_checks.checks_of_original(assignment):
            assignment_scored(assignment=check)

    def document_texts(self, path, name, fmt):
        return document_files.read_translations(path, name, fmt, contrastive=is_contrastive(self.key))

    def setup_form(self, study, data=None):
        return setup.settings_form(study, data)

    def design_facts(self, study):
        return setup.design_facts(study)

    def quality_check_form(self, study, data=None):
        # Quality checks are made for the one-translation protocols only (quality_checks_make; the
        # contrastive ones are left out, docs/translation-studies.md).
        return None if is_contrastive(self.key) else QualityCheckForm(data, study=study)

    def report(self, study, progress):
        return report.study_report(study, progress)

    def report_context(self, result):
        return report_page.translation_report_context(result)

    def report_headline(self, result):
        return publish.translation_headline(result)

    def publish_tables(self, result):
        return publish.translation_tables(result)

    def export_columns(self, study):
        return exports.COLUMNS

    def export_rows(self, study):
        return exports.translation_rows(study)

    def export_row_count(self, study):
        return exports.translation_row_count(study)

    def export_types(self, study):
        return exports.TYPES


PROTOCOLS = [TranslationProtocol(key) for key in (MQM, ESA, DA, *CONTRASTIVE)]
