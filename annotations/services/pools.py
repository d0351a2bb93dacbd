"""Who may join a study beyond its own limits: the `workers` option of its config.

    workers:
      pool: tang-2024        # studies naming the same pool share one limit...
      max_per_pool: 2        # ...at most 2 documents or blocks per worker over all of them
      allow: [5f0c..., A1B2...]          # only these platform ids may join
      exclude_studies: [pilot-2024]      # whoever took part there may not join

A pool and the excluded studies only reach studies that share a researcher
with this one: naming another team's pool or study changes nothing for them
and reveals nothing about them.
"""

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from studies.models import Study

COUNTED_KINDS = (Assignment.Kind.MAIN,)


def _related_studies(study):
    """Studies that share a researcher with `study` (itself included)."""
    researchers = StudyMembership.objects.filter(study=study, role=StudyMembership.Role.RESEARCHER).values(
        "user_id"
    )
    shared = StudyMembership.objects.filter(
        user_id__in=researchers, role=StudyMembership.Role.RESEARCHER
    ).values("study_id")
    return Study.objects.filter(pk__in=shared) | Study.objects.filter(pk=study.pk)


def pool_studies(study):
    """The studies of this study's pool (itself included), or just [study] when it names none."""
    pool = (study.config or {}).get("workers", {}).get("pool")
    if not pool:
        return [study]
    return [
        other
        for other in _related_studies(study).distinct()
        if (other.config or {}).get("workers", {}).get("pool") == pool
    ]


def excluded_studies(study):
    """The studies named in workers.exclude_studies, among those sharing a researcher with `study`."""
    excluded = ((study.config or {}).get("workers") or {}).get("exclude_studies") or []
    return _related_studies(study).filter(slug__in=excluded) if excluded else Study.objects.none()


def join_refusal(study, worker):
    """(reason, message) when `worker` may not join `study` under its worker rules, else None.

    The caller holds the worker's row lock, so one worker's joins of two
    studies of a pool at the same moment are counted one after the other.
    """
    rules = (study.config or {}).get("workers") or {}
    allow = rules.get("allow")
    if allow is not None and worker.external_id not in set(allow):
        return "not_listed", "This study is open to invited participants only. Thank you for your interest."
    if Assignment.objects.filter(study__in=excluded_studies(study), worker=worker).exists():
        return "excluded", (
            "This study is for people who did not take part in an earlier, related study. "
            "Thank you for your interest."
        )
    limit = rules.get("max_per_pool")
    if limit:
        taken = (
            Assignment.objects.filter(study__in=pool_studies(study), worker=worker, kind__in=COUNTED_KINDS)
            .exclude(status=Assignment.Status.RELEASED)
            .count()
        )
        if taken >= limit:
            return "pool_limit", (
                "You have done as many tasks of this series of studies as it allows. Thank you!"
            )
    return None


def worker_locked(worker):
    """The worker's row, locked until the end of the transaction."""
    return Worker.objects.select_for_update().get(pk=worker.pk)
