"""The crowd app as seen by the core (studies/extensions.py): its policy rows, config option and report part."""

from accounts.policy import ModelRule
from studies.extensions import Extension

from . import workforce
from .mturk import check_mturk
from .pay import check_pay


class CrowdExtension(Extension):
    key = "crowd"
    access_rules = {
        # Listings and the ledger name workers and money: only who manages the study reads them.
        "crowd.listing": ModelRule("study", read="managers", change="nobody", note="made by Create listing"),
        "crowd.ledgerentry": ModelRule(
            "study",
            read="managers",
            change="nobody",
            note="planned, previewed and sent by the study's researchers",
        ),
    }
    researcher_models = ("crowd.listing", "crowd.ledgerentry")
    config_options = {"pay": check_pay, "mturk": check_mturk}
    report_key = "workforce"
    report_template = "crowd/report_section.html"
    console_links = (
        ("run", "List the study on Prolific or Mechanical Turk", "admin:crowd_listing_create", "changelist"),
        ("run", "Crowd listings of the study", "admin:crowd_listing_changelist", "changelist"),
        ("run", "Workforce and pay: time, pay per hour, bonuses", "admin:crowd_workforce", "study"),
        ("pilot", "Workforce and pay of the pilot", "admin:crowd_workforce", "study"),
    )

    def report(self, study, progress):
        return workforce.workforce_report(study)

    def report_context(self, result):
        return workforce.report_context(result)

    def study_summary(self, study, result):
        return workforce.pay_summary(study, (result or {}).get(self.report_key))


EXTENSION = CrowdExtension()
