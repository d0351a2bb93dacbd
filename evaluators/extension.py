"""The evaluators app as seen by the core (studies/extensions.py): its policy rows, admin models,
study.yaml key and report part."""

from accounts.policy import ModelRule
from studies.extensions import Extension

from . import bundle, report


class EvaluatorsExtension(Extension):
    key = "evaluators"
    access_rules = {
        "evaluators.evaluator": ModelRule("study"),
        "evaluators.evaluatorrun": ModelRule(
            "evaluator__study", change="nobody", note="requested and cancelled by who manages the study"
        ),
        "evaluators.evaluatorresult": ModelRule(
            "run__evaluator__study", change="nobody", note="each document's exchange, kept for audit"
        ),
        "evaluators.evaluatorreview": ModelRule("source", change="nobody", note="made by the review action"),
        "evaluators.cachedresponse": ModelRule(
            None, read="superusers", change="nobody", note="answers shared by identical requests"
        ),
    }
    researcher_models = ("evaluators.evaluator", "evaluators.evaluatorrun", "evaluators.evaluatorresult")
    api_routes = (("evaluator-runs", "evaluators.api.EvaluatorRunViewSet", "evaluatorrun"),)
    console_links = (
        ("design", "Automatic evaluators (LLM endpoints, detectors, imported predictions)",
         "admin:evaluators_evaluator_changelist", "changelist"),
        ("analyse", "Evaluator runs and their cost", "admin:evaluators_evaluatorrun_changelist", "changelist"),
    )  # fmt: skip
    study_yaml_key = "evaluators"
    report_key = "evaluator_comparison"
    report_template = "evaluators/report_section.html"

    def study_yaml_check(self, value, spec, problems, name, line):
        return bundle.check_evaluators(value, spec, problems, name, line)

    def study_yaml_write(self, study, checked, directory):
        bundle.write_evaluators(study, checked, directory)

    def study_yaml_export(self, study):
        return bundle.export_evaluators(study)

    def report(self, study, progress):
        return report.evaluator_comparison_for(study)

    def report_part(self, study, part):
        return report.evaluator_comparison_part(study, part)

    def report_from_parts(self, study, tallies, progress):
        return report.evaluator_comparison_from_parts(study, tallies)

    def report_context(self, result):
        return report.comparison_context(result)


EXTENSION = EvaluatorsExtension()
