"""The translation protocols' section of the report page: system scores, errors by severity and
category, the ranking with significance (and on z-scores for DA), agreement, and each rater's
reliability on the quality checks."""

from reports.ranking_page import ranking_context

from .keys import DA, MQM


def score_label(result):
    return {MQM: "MQM score", DA: "DA score"}.get(result.get("scheme"), "ESA score")


def _agreement_rows(result):
    agreement = result.get("score_agreement") or {}
    what = "MQM scores" if result.get("scheme") == MQM else "segment scores"
    rows = [
        (f"Krippendorff's α (interval) of the {what}, over the {agreement.get('units', 0)} segments "
         "rated by two or more raters", agreement.get("alpha"), agreement.get("alpha_reason") or agreement.get("reason", "")),
        (f"Kendall's τ between two raters' {what}, mean over {agreement.get('tau_pairs', 0)} pairs of raters",
         agreement.get("tau"), agreement.get("tau_reason") or agreement.get("reason", "")),
    ]  # fmt: skip
    return rows


def _span_rows(result):
    spans = result.get("span_agreement")
    if not spans:
        return []
    rows = [("any error", spans["any"])]
    rows += [(f"severity {entry['name']}", entry) for entry in spans["severities"]]
    rows += [(f"category {entry['name']}", entry) for entry in spans["categories"]]
    return [(label, entry["f1"], entry["marked"]) for label, entry in rows]


def _assistance(result, severities, label):
    """The arms' section (assistance/report.py), or None for a study without them."""
    assistance = result.get("assistance")
    if not assistance:
        return None
    arms = assistance["arms"]
    kept = assistance["kept"]
    names = {"suggestions": "suggestions (pre-filled)", "control": "control"}
    return {
        **assistance,
        "arm_rows": [
            {
                "arm": names[arm],
                "assignments": assistance["assignments"].get(arm, 0),
                **arms[arm],
                "errors": [arms[arm]["errors_per_segment"].get(s, 0.0) for s in severities],
                **assistance["overlap"][arm],
            }
            for arm in ("suggestions", "control")
        ],  # fmt: skip
        "kept_rows": [("every suggestion", kept)]
        + [(f"severity {s}", figures) for s, figures in kept["severities"].items()]
        + [
            ("confirmed by the control arm", kept["confirmed"]),
            ("not confirmed by the control arm", kept["unconfirmed"]),
        ],
        "difference_rows": [
            (
                "share of the suggested characters the people marked",
                assistance["differences"]["suggested_marked"],
            ),
            (f"mean {label}", assistance["differences"]["mean_score"]),
        ],
    }


def _quality_control(result):
    control = result.get("quality_control")
    if not control:
        return None
    spans = result.get("protocol") != DA
    rows = []
    for entry in control.get("raters", []):
        if not entry["pairs"]:
            note = "rated no original of a check: no test"
        elif not entry["reachable"]:
            note = f"{entry['pairs']} pairs: too few for p < {control['alpha']:g} whatever the scores"
        else:
            note = ""
        rows.append({**entry, "verdict": "pass" if entry["passed"] else "fail", "note": note})
    return {**control, "rows": rows, "spans": spans}


def translation_report_context(result):
    label = score_label(result)
    systems = result.get("systems") or []
    severities = result.get("severities") or []
    categories = sorted({c for row in systems for c in (row.get("categories") or {})})
    return {
        "empty": result.get("reason", "") if not result.get("segments_rated") else "",
        "scheme": result.get("scheme"),
        "score_label": label,
        "direction": "higher is better" if result.get("higher_is_better") else "lower is better",
        "segments_rated": result.get("segments_rated"),
        "raters": result.get("raters"),
        "systems": [
            {**row, "error_counts": [(row.get("errors") or {}).get(s, 0) for s in severities]}
            for row in systems
        ],
        "severities": severities,
        "categories": categories,
        "category_rows": [
            (row["system"], [(row.get("categories") or {}).get(c, 0.0) for c in categories])
            for row in systems
        ],
        "weights": result.get("weights"),
        "ranking": ranking_context(result.get("ranking"), score_label=label),
        "ranking_z": ranking_context(
            result.get("ranking_z"),
            score_label="DA z-score",
            key="ranking-z",
            title="Ranking on z-scores (each rater's scores standardised)",
        ),  # fmt: skip
        "agreement": _agreement_rows(result),
        "span_agreement": _span_rows(result),
        "quality_control": _quality_control(result),
        "assistance": _assistance(result, severities, label),
    }
