"""What every platform's listing is made from: the join link, the estimated time, who may take part.

Both clients (crowd/prolific.py, crowd/mturk.py) and the admin's "Create a
listing" form read these, so a Prolific study and a HIT of the same platform
study invite the same people for the same pay.
"""

import statistics
from decimal import Decimal
from math import ceil

from django.conf import settings

from annotations.models import OPEN_STATUSES, Assignment
from annotations.services.pools import excluded_studies
from qualification.models import QualificationResult

from .pay import pay_of

# Without a pilot to time, a guess the researcher sees (and can change) in the form.
DEFAULT_MINUTES = 20
PILOT_MIN_ASSIGNMENTS = 3


def join_link(study):
    """The study's public join link (the same as in admin's study page)."""
    return f"{settings.SITE_URL.rstrip('/')}/join/{study.join_key}/"


def estimated_minutes(study):
    """(minutes, how): the median active time of the submitted work so far (the pilot), rounded up.

    Active time is what the activity tracker counted while the page was in
    use; a block or a qualification counts as one task. With fewer than
    three submitted tasks there is nothing to go on and the default is used.
    """
    seconds = [
        value
        for value in Assignment.objects.filter(
            study=study,
            status=Assignment.Status.SUBMITTED,
            kind__in=(Assignment.Kind.MAIN, Assignment.Kind.QUALIFICATION),
        ).values_list("active_seconds", flat=True)  # fmt: skip
        if value
    ]
    if len(seconds) < PILOT_MIN_ASSIGNMENTS:
        return (
            DEFAULT_MINUTES,
            f"no pilot yet (fewer than {PILOT_MIN_ASSIGNMENTS} submitted tasks): a default",
        )
    return max(
        1, ceil(statistics.median(seconds) / 60)
    ), f"median active time of {len(seconds)} submitted tasks"


def fair_reward(study, minutes):
    """The reward that meets the study's target hourly rate for `minutes`, or the set reward if higher."""
    pay = pay_of(study)
    if pay.target_hourly is None:
        return pay.reward
    needed = (pay.target_hourly * Decimal(minutes) / 60).quantize(Decimal("0.01"))
    return max(needed, pay.reward or Decimal(0))


def qualified_platform_ids(study, platform):
    """Platform ids of the workers approved in a qualification this study requires."""
    return sorted(
        QualificationResult.objects.filter(
            qualification__required_by=study, status=QualificationResult.Status.APPROVED,
            worker__platform=platform,
        ).values_list("worker__external_id", flat=True).distinct()
    )  # fmt: skip


def allowed_platform_ids(study, platform):
    """Who may take part, or None for anyone: the config's allow-list and, when the study
    requires a qualification, the workers approved in it."""
    rules = (study.config or {}).get("workers") or {}
    allow = rules.get("allow")
    required = study.required_qualifications.exists()
    if allow is None and not required:
        return None
    ids = set(allow or []) | set(qualified_platform_ids(study, platform))
    return sorted(ids)


def excluded_platform_ids(study, platform):
    """Workers of the studies named in workers.exclude_studies, by the join link's own rule
    (annotations/services/pools.py): a slug of another team's study excludes nobody."""
    return sorted(
        Assignment.objects.filter(study__in=excluded_studies(study), worker__platform=platform)
        .values_list("worker__external_id", flat=True)
        .distinct()
    )


def submitted_work(study, platform):
    """{platform id: that worker's latest submitted assignment} for workers with nothing left open.

    A multi-document qualification is one submission on the platform: it
    matches only once no document of it is still open.
    """
    rows = Assignment.objects.filter(
        study=study, worker__platform=platform,
        kind__in=(Assignment.Kind.MAIN, Assignment.Kind.QUALIFICATION, Assignment.Kind.RETEST),
    ).select_related("worker").order_by("submitted_at", "pk")  # fmt: skip
    latest, still_open = {}, set()
    for assignment in rows:
        worker_id = assignment.worker.external_id
        if assignment.status == Assignment.Status.SUBMITTED:
            latest[worker_id] = assignment
        elif assignment.status in OPEN_STATUSES:
            still_open.add(worker_id)
    return {worker_id: work for worker_id, work in latest.items() if worker_id not in still_open}
