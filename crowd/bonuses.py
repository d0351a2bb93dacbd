"""Plan the bonuses a study's pay rules give (config pay.bonuses), for one listing's workers.

qualification_passed: every candidate the researcher approved in the
qualification round this study is. top_up_to_target: every worker whose pay
so far is under the target hourly rate gets the difference (crowd/workforce.py);
plan it when the study is done: one top-up per worker and listing, ever.
"""

from accounts.models import Worker
from qualification.models import QualificationResult

from .pay import pay_of
from .workforce import top_ups

QUALIFICATION_REASON = "Thank you: you passed the qualification."
TOP_UP_REASON = "A top-up so that your pay reaches the study's hourly rate for your active time."


def bonuses_owed(listing):
    """[(worker, amount, reason, rule)] the study's rules give workers of the listing's platform."""
    study, pay = listing.study, pay_of(listing.study)
    owed = []
    if pay.qualification_bonus is not None:
        approved = QualificationResult.objects.filter(
            qualification__study=study, status=QualificationResult.Status.APPROVED,
            worker__platform=listing.platform,
        ).select_related("worker")  # fmt: skip
        for result in approved:
            owed.append(
                (result.worker, pay.qualification_bonus, QUALIFICATION_REASON, "qualification_passed")
            )
    if pay.tops_up:
        short = top_ups(study)
        for worker in Worker.objects.filter(pk__in=short, platform=listing.platform).order_by("pk"):
            owed.append((worker, short[worker.pk], TOP_UP_REASON, "top_up"))
    return owed


def plan_bonuses(listing, *, user, client):
    """Plan every bonus owed through the listing's platform client; returns [(entry, created)]."""
    return [
        client.plan_bonus(listing, worker, user=user, amount=amount, reason=reason, rule=rule)
        for worker, amount, reason, rule in bonuses_owed(listing)
    ]
