"""The report's `evaluator_comparison` of an MQM or ESA study: each judge against the people.

The judge's rows are read exactly as a rater's (protocols/translation/report.py,
rated_segments over its model assignments), so its MQM score comes from the study's
weights and its ESA score from its segment scores. The people are the submitted main
assignments outside the suggestion arm of an assisted study: a person who was shown the
judge's errors is no longer independent of it (docs/translation-studies.md). Figures:
reports/metrics/judge.py.
"""

from annotations.models import Assignment
from protocols.translation.assistance import SUGGESTIONS
from protocols.translation.keys import MQM, scheme
from protocols.translation.report import SCORE_NAMES, rated_segments
from reports.charts import grouped_bar_chart
from reports.metrics.judge import judge_comparison
from reports.metrics.mqm import WeightMissing
from studies.models import Document

from ..run_figures import run_figures


def _submitted(study, kind):
    # A person's assignment of a contrastive study is a block (no document of its own); the
    # report's loader reads its documents from its items. Quality checks (attention copies)
    # are the report's quality_control, never a rating.
    return Assignment.objects.filter(study=study, kind=kind, status=Assignment.Status.SUBMITTED).exclude(
        document__kind=Document.Kind.ATTENTION
    )


def translation_comparison_for(study):
    """The comparison, or None when no judge has judged a document of the study."""
    judged = _submitted(study, Assignment.Kind.MODEL)
    keys = sorted(set(judged.values_list("worker__external_id", flat=True)))
    if not keys:
        return None
    people = _submitted(study, Assignment.Kind.MAIN)
    higher_is_better = scheme(study.protocol) != MQM
    result = {
        "protocol": study.protocol,
        "scheme": scheme(study.protocol),
        "score_name": SCORE_NAMES[scheme(study.protocol)],
        "higher_is_better": higher_is_better,
        "evaluators": keys,
        "assisted_left_out": people.filter(arm=SUGGESTIONS).count(),
    }
    try:
        rows = rated_segments(study, people.exclude(arm=SUGGESTIONS))
        judges = {key: rated_segments(study, judged.filter(worker__external_id=key)) for key in keys}
    except WeightMissing as missing:
        return {**result, "reason": f"the study's MQM weights: {missing}"}
    result["people"] = {"raters": len({row.rater for row in rows}), "segments_rated": len(rows)}
    if not rows:
        result["reason"] = "no submitted work of people yet"
    result["by_evaluator"] = {
        key: judge_comparison(judges[key], rows, higher_is_better=higher_is_better) for key in keys
    }
    result["runs"] = {key: run_figures(study, key) for key in keys}
    return result


def _span_rows(key, spans):
    entries = [spans["any"]]
    entries += [dict(entry, name=f"severity {entry['name']}") for entry in spans["severities"]]
    entries += [dict(entry, name=f"category {entry['name']}") for entry in spans["categories"]]
    return [{"evaluator": key, **entry} for entry in entries]


def translation_comparison_context(comparison):
    """The report page's section for a translation study (evaluators/translation_section.html)."""
    by_evaluator = comparison.get("by_evaluator") or {}
    score_name = comparison.get("score_name", "score")
    direction = "higher is better" if comparison.get("higher_is_better") else "lower is better"
    judges = []
    for key in comparison.get("evaluators", []):
        figures = by_evaluator.get(key)
        if figures is None:
            continue
        systems = figures["systems"]
        judges.append(
            {
                "key": key,
                "spans": _span_rows(key, figures["spans"]),
                "span_units": figures["spans"]["units"],
                "systems": systems,
                "segments": figures["segments"],
                "chart": grouped_bar_chart(
                    [
                        (row["system"], {"people": row["people"], key: row["judge"]})
                        for row in systems["systems"]
                    ],
                    ["people", key],
                    title=f"{score_name} per system: the people and {key}, on the segments both scored",
                    axis_label=f"{score_name} ({direction})",
                )
                if systems["systems"]
                else "",
            }
        )
    return {
        "translation": True,
        "protocol": comparison.get("protocol"),
        "scheme": comparison.get("scheme", comparison.get("protocol")),
        "score_name": score_name,
        "direction": direction,
        "reason": comparison.get("reason", ""),
        "people": comparison.get("people") or {},
        "assisted_left_out": comparison.get("assisted_left_out", 0),
        "judges": judges,
        "runs": comparison.get("runs", {}),
    }
