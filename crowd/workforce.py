"""The workforce figures (report key `workforce`, the live dashboard): is the pay fair, who speeds,
who fails attention checks, who disagrees with everyone, what was abandoned.

Per worker and for the study: assignments submitted, open and released
(abandoned: released after inactivity), median active minutes per submitted
assignment, active hours, pay (reward per paid task plus the bonuses the
ledger sent), the effective hourly rate (pay / active hours) against the
study's target, speeding (an assignment's active time under a third of the
study's median) and attention-check failures. People only: gold (expert)
and model assignments are left out. Annotators are named by pseudonym; the
dashboard adds platform ids for who manages the study.
"""

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports import charts
from studies import protocols

from . import ledger
from .pay import money, pay_of

PEOPLE_KINDS = (Assignment.Kind.MAIN, Assignment.Kind.QUALIFICATION, Assignment.Kind.RETEST)
SPEEDER_SHARE = 1 / 3
# Fewer submitted assignments than this and the median says too little to call anyone a speeder.
SPEEDER_MIN_ASSIGNMENTS = 3


@dataclass
class WorkerRow:
    annotator: str
    worker_pk: int
    submitted: int = 0
    open: int = 0
    released: int = 0
    paid_tasks: int = 0
    active_seconds: list = field(default_factory=list)
    speeding: int = 0
    attention_failures: int = 0
    bonuses: Decimal = Decimal(0)
    agreement: float | None = None
    agreement_pairs: int = 0


def _hours(seconds):
    return seconds / 3600


def _paid_tasks(rows, study, assignments):
    """Paid tasks per worker: each submitted assignment, but a qualification round's documents are one task."""
    if not any(kind == Assignment.Kind.QUALIFICATION for _, kind, *_ in assignments):
        for row in rows.values():
            row.paid_tasks = row.submitted
        return
    documents = study.documents.filter(kind="qualification").count()
    done = defaultdict(int)
    for worker_pk, kind, status, *_ in assignments:
        if kind == Assignment.Kind.QUALIFICATION and status == Assignment.Status.SUBMITTED:
            done[worker_pk] += 1
    for worker_pk, row in rows.items():
        row.paid_tasks = int(documents > 0 and done[worker_pk] >= documents) + sum(
            1 for w, kind, status, *_ in assignments
            if w == worker_pk and kind != Assignment.Kind.QUALIFICATION and status == Assignment.Status.SUBMITTED
        )  # fmt: skip


def workforce_figures(study, *, agreement=True):
    """(study summary dict, [WorkerRow]) of the study as it stands now.

    agreement=False leaves out each worker's agreement with the others, the one
    figure that reads the annotations (pay and time need only the assignments).
    """
    pay = pay_of(study)
    pseudonym = pseudonyms_of(study.pk)
    assignments = list(
        Assignment.objects.filter(study=study, kind__in=PEOPLE_KINDS)
        .exclude(worker__platform=Worker.Platform.MODEL)
        .values_list("worker_id", "kind", "status", "active_seconds", "flagged")
    )
    rows = {}
    for worker_pk, _, status, seconds, flagged in assignments:
        row = rows.setdefault(worker_pk, WorkerRow(annotator=pseudonym(worker_pk), worker_pk=worker_pk))
        if status == Assignment.Status.SUBMITTED:
            row.submitted += 1
            row.active_seconds.append(seconds)
            row.attention_failures += bool(flagged)
        elif status == Assignment.Status.RELEASED:
            row.released += 1
        else:
            row.open += 1
    _paid_tasks(rows, study, assignments)
    every = [seconds for row in rows.values() for seconds in row.active_seconds]
    median_seconds = statistics.median(every) if every else None
    speed_limit = (
        median_seconds * SPEEDER_SHARE
        if median_seconds is not None and len(every) >= SPEEDER_MIN_ASSIGNMENTS
        else None
    )
    for worker_pk, amount in ledger.paid_per_worker(study).items():
        if worker_pk in rows:
            rows[worker_pk].bonuses = amount
    protocol = protocols.of(study)
    agreement = protocol.annotator_agreement(study) if agreement else {}
    for row in rows.values():
        if speed_limit is not None:
            row.speeding = sum(1 for seconds in row.active_seconds if seconds < speed_limit)
        if row.annotator in agreement:
            row.agreement, row.agreement_pairs = agreement[row.annotator]
    ordered = sorted(rows.values(), key=lambda row: row.annotator)
    summary = {
        "currency": pay.currency,
        "reward": float(pay.reward) if pay.reward is not None else None,
        "target_hourly": float(pay.target_hourly) if pay.target_hourly is not None else None,
        "median_active_minutes": median_seconds / 60 if median_seconds is not None else None,
        "speeder_rule": (
            f"an assignment's active time under a third of the study's median "
            f"({median_seconds / 60:.1f} minutes): under {speed_limit / 60:.1f} minutes"
            if speed_limit is not None
            else f"not judged before {SPEEDER_MIN_ASSIGNMENTS} submitted assignments"
        ),
        "agreement_rule": protocol.annotator_agreement_rule or "not available for this protocol",
    }
    return summary, ordered


def _earned(row, pay):
    reward = pay.reward if pay.reward is not None else Decimal(0)
    return reward * row.paid_tasks + row.bonuses


def _rate(earned, seconds):
    return float(earned) / _hours(seconds) if seconds else None


def worker_line(row, pay):
    """One worker's figures as plain JSON."""
    seconds = sum(row.active_seconds)
    earned = _earned(row, pay)
    rate = _rate(earned, seconds) if pay.reward is not None else None
    return {
        "annotator": row.annotator,
        "submitted": row.submitted,
        "open": row.open,
        "released": row.released,
        "median_active_minutes": statistics.median(row.active_seconds) / 60 if row.active_seconds else None,
        "active_hours": _hours(seconds),
        "paid": float(earned),
        "bonuses": float(row.bonuses),
        "effective_hourly": rate,
        "under_target": rate is not None
        and pay.target_hourly is not None
        and rate < float(pay.target_hourly),
        "speeding": row.speeding,
        "attention_failures": row.attention_failures,
        "agreement": row.agreement,
        "agreement_pairs": row.agreement_pairs,
    }


def workforce_report(study, *, agreement=True):
    """The report's `workforce` part: the study's totals and one line per worker (pseudonyms only)."""
    return report_of(study, *workforce_figures(study, agreement=agreement))


def report_of(study, summary, rows):
    """The `workforce` part from workforce_figures' (summary, rows); None when no one took part."""
    if not rows:
        return None
    pay = pay_of(study)
    lines = [worker_line(row, pay) for row in rows]
    seconds = sum(sum(row.active_seconds) for row in rows)
    earned = sum((_earned(row, pay) for row in rows), Decimal(0))
    rate = _rate(earned, seconds) if pay.reward is not None else None
    summary.update(
        workers=len(rows),
        submitted=sum(line["submitted"] for line in lines),
        open=sum(line["open"] for line in lines),
        released=sum(line["released"] for line in lines),
        active_hours=_hours(seconds),
        paid=float(earned),
        effective_hourly=rate,
        median_worker_hourly=_median([line["effective_hourly"] for line in lines]),
        under_target=rate is not None and pay.target_hourly is not None and rate < float(pay.target_hourly),
        workers_under_target=sum(line["under_target"] for line in lines),
        speeders=sum(line["speeding"] > 0 for line in lines),
        attention_failures=sum(line["attention_failures"] for line in lines),
    )
    return {"study": summary, "workers": lines}


def _median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def top_ups(study):
    """{worker pk: Decimal}: what each worker under the target needs to reach it (the top-up bonus)."""
    pay = pay_of(study)
    if not pay.tops_up or pay.reward is None:
        return {}
    _, rows = workforce_figures(study, agreement=False)
    owed = {}
    for row in rows:
        fair = money(pay.target_hourly * Decimal(sum(row.active_seconds)) / 3600)
        short = fair - _earned(row, pay)
        if row.submitted and short > 0:
            owed[row.worker_pk] = short
    return owed


def report_context(result):
    workforce = (result or {}).get("workforce")
    if not workforce:
        return None
    return {"workforce": workforce, "workforce_charts": charts_of(workforce)}


def charts_of(workforce):
    """Two SVG charts: each worker's effective hourly rate, and their median active minutes."""
    lines = workforce["workers"]
    target = workforce["study"].get("target_hourly")
    currency = workforce["study"].get("currency") or ""
    title = f"Effective hourly rate ({currency}{'; target ' + format(target, '.2f') if target else ''})"
    return [
        charts.bar_chart(
            [(line["annotator"], line["effective_hourly"]) for line in lines], title=title,
            high=max([target or 0, *(line["effective_hourly"] or 0 for line in lines)]) or None,
            axis_label=f"{currency} per hour of active time".strip(), digits=2,
        ),
        charts.bar_chart(
            [(line["annotator"], line["median_active_minutes"]) for line in lines],
            title="Median active minutes per assignment", axis_label="minutes", digits=1,
        ),
    ]  # fmt: skip


def pay_summary(study, part):
    """[(label, text)] of the study's pay against its target, for the console's home: from the
    latest report's `workforce` part (no report: the target alone)."""
    pay = pay_of(study)
    if pay.reward is None and pay.target_hourly is None:
        return []
    target = (
        f"{pay.target_hourly} {pay.currency}/h target"
        if pay.target_hourly is not None
        else "no hourly target"
    )
    figures = (part or {}).get("study") or {}
    rate = figures.get("effective_hourly")
    if rate is None:
        return [("pay", f"{target}; nothing paid yet")]
    flag = " (under target)" if figures.get("under_target") else ""
    return [
        (
            "pay",
            f"{rate:.2f} {pay.currency}/h of {target}{flag}; {figures.get('paid', 0):.2f} {pay.currency} paid",
        )
    ]
