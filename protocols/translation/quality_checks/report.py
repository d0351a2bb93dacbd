"""The report's `quality_control`: each rater's reliability on the study's quality checks."""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports.metrics.quality_checks import ALPHA, CheckedSegment, rater_reliability
from studies.models import Document

from .. import config
from ..keys import MQM
from .scoring import RULE_WORDS, RULES, checked_work, injected_errors


def quality_control(study):
    """The report's `quality_control`: each rater's reliability on the study's checks, or None
    when the study has no check."""
    checks = [
        d for d in study.documents.filter(kind=Document.Kind.ATTENTION).only("id", "kind", "meta")
        if injected_errors(d)
    ]  # fmt: skip
    if not checks:
        return None
    submitted = Assignment.objects.filter(
        study=study, kind=Assignment.Kind.MAIN, status=Assignment.Status.SUBMITTED,
        document__kind=Document.Kind.ATTENTION,
    )  # fmt: skip
    rows = checked_work(study, submitted)
    checked = {row.assignment for row in rows}
    pseudonym = pseudonyms_of(study.pk)
    higher_is_better = study.protocol != MQM
    reliability = rater_reliability(
        [CheckedSegment(pseudonym(r.worker), r.degraded_score, r.original_score, r.detected) for r in rows],
        higher_is_better=higher_is_better,
    )
    flagged, done = {}, {}
    for pk, worker, was_flagged in submitted.values_list("id", "worker_id", "flagged"):
        if pk not in checked:
            continue  # an attention document that is no quality check
        name = pseudonym(worker)
        done[name] = done.get(name, 0) + 1
        flagged[name] = flagged.get(name, 0) + bool(was_flagged)
    for entry in reliability:
        entry["checks"] = done.get(entry["rater"], 0)
        entry["flagged"] = flagged.get(entry["rater"], 0)
    return {
        "checks": len(checks),
        "degraded_segments": sum(len(injected_errors(d)) for d in checks),
        "checks_submitted": len(checked),
        "alpha": ALPHA,
        "test": "one-sided Mann-Whitney U test: are the annotator's scores of the degraded segments "
        + ("lower" if higher_is_better else "higher (MQM: worse)")
        + " than their scores of the same segments in the original?",
        "rule": RULE_WORDS[RULES[study.protocol]],
        "min_caught": config.min_caught(study),
        "raters": reliability,
        "passed": sum(1 for entry in reliability if entry["passed"]),
    }
