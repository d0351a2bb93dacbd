"""Replay a study's own ratings under each allocation policy: what adaptive allocation would have
saved it (docs/adaptive-allocation.md, "How much it saves").

The study's scored cells (a system's document, or its output in a block, with the protocol's
score: the same grid a live join reads) are bought again in the order each policy would have
bought them, over seeded runs; per budget fraction, Kendall tau against the study's own ranking
and the share of runs with its significance clusters (the study's `ranking` test, resamples and
alpha); then the budget needed and what it would have saved at the study's pay. It lives in
crowd, beside the study's pay (crowd/pay.py), which the core does not read.

    manage.py replay_allocation SLUG [--seeds 20] [--policies uniform uncertain clusters]
"""

from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError

from annotations.services.allocation import ranking_settings, study_cells
from crowd.pay import money, pay_of
from reports.metrics.allocation import FRACTIONS, summarise
from studies.allocation import (
    POLICIES,
    SETTLED_HIGHEST,
    SETTLED_LOWEST,
    allocation_settings,
    offers_allocation,
)
from studies.models import Study


def saving(needed, ratings, pay):
    """The ratings a policy needing `needed` of them would not have bought, and their pay when the
    study has a reward."""
    saved = f"{(1 - needed) * ratings:,.0f} ratings"
    if pay.reward is not None:
        saved += f", {money_saved(needed, ratings, pay.reward)} {pay.currency}"
    return saved


def money_saved(needed, ratings, reward):
    """The study's pay for the ratings a policy needing `needed` of them would not have bought."""
    return money(Decimal(ratings) * reward * (1 - Decimal(str(needed))))


class Command(BaseCommand):
    help = "Replay a study's ratings under each allocation policy: the ranking at each budget, and the money saved."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--seeds", type=int, default=20, help="seeded runs per policy (default 20)")
        parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
        parser.add_argument(
            "--settled",
            type=float,
            help="the settled threshold to replay the stop at (default: the study's own, config.allocation.settled)",
        )

    @staticmethod
    def stop(summary, seeds, ratings, pay):
        """Where the policy settled, in how many runs its ranking there is the study's, and what
        stopping there saves."""
        if summary.mean_stop is None:
            return "-"
        right = f"{summary.stops_right}/{seeds} runs with the study's ranking"
        return f"{summary.mean_stop:.0%} ({right}); saves {saving(summary.mean_stop, ratings, pay)}"

    def handle(self, slug, seeds, policies, settled=None, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        if not offers_allocation(study):
            raise CommandError(
                f"study '{slug}' is a {study.protocol} study, which does not allocate by system "
                "(DA, ESA, Likert, BWS and pairwise studies do)"
            )
        if seeds < 1:
            raise CommandError("--seeds must be at least 1")
        if settled is not None and not SETTLED_LOWEST <= settled <= SETTLED_HIGHEST:
            raise CommandError(
                f"--settled must be from {SETTLED_LOWEST} to {SETTLED_HIGHEST}, as in a study's config"
            )
        cells = study_cells(study)
        rated = {system: scores for system, scores in cells.by_system.items() if len(scores) >= 2}
        if len(rated) < 2:
            raise CommandError(
                f"study '{slug}' has {len(rated)} system(s) with scores on two items or more: a replay needs two"
            )
        settings = ranking_settings(study)
        own = allocation_settings(study).settled
        settled = own if settled is None else settled
        scored = sum(len(scores) for scores in rated.values())
        resamples = f", {settings['resamples']:,} resamples" if settings["test"] == "permutation" else ""
        self.stdout.write(
            f"{study.title} ({study.protocol}): {len(rated)} systems, {scored:,} scored cells from "
            f"{cells.ratings:,} submitted ratings; {seeds} seeded runs per policy, clusters by the study's "
            f"{settings['test']} test (alpha {settings['alpha']}{resamples})."
        )
        pay = pay_of(study)
        if pay.reward is not None:
            self.stdout.write(
                f"Pay: {pay.reward} {pay.currency} per assignment; the ratings so far cost "
                f"{money(pay.reward * cells.ratings)} {pay.currency}."
            )
        self.stdout.write("")
        self.stdout.write(
            "| policy | "
            + " | ".join(f"{f:.0%}" for f in FRACTIONS)
            + " | budget needed | saved | stops by itself |"
        )
        self.stdout.write("| --- " * (len(FRACTIONS) + 4) + "|")
        for policy in policies:
            summary = summarise(
                rated,
                policy=policy,
                seeds=seeds,
                test=settings["test"],
                test_resamples=settings["resamples"],
                alpha=settings["alpha"],
                settled=settled,
            )
            cells_row = [
                "-" if tau is None else f"{tau:.3f}" + ("" if same is None else f" ({same:.0%})")
                for tau, same in zip(summary.mean_tau, summary.same_clusters, strict=True)
            ]
            needed = summary.mean_needed
            reached = sum(fraction is not None for fraction in summary.needed)
            if needed is None:
                needed_text, saved = "never", "nothing"
            else:
                needed_text = f"{needed:.0%} ({reached}/{seeds} runs)"
                saved = saving(needed, cells.ratings, pay)
            self.stdout.write(
                f"| {policy} | "
                + " | ".join(cells_row)
                + f" | {needed_text} | {saved} | {self.stop(summary, seeds, cells.ratings, pay)} |"
            )
        self.stdout.write("")
        self.stdout.write(
            "Each cell: mean Kendall tau of the systems' means against the study's own, and (in brackets) "
            "the share of runs whose significance clusters are the study's. Budget needed: the share of the "
            "cells from which on tau >= 0.95 and the clusters hold, averaged over the runs that get there; "
            "saved: the ratings (and pay) beyond it. Stops by itself: where the policy had no pair in doubt "
            f"above {'the study' if settled == own else '--settled'}'s `settled` ({settled}), the share of the "
            "cells averaged over the runs, and in "
            "how many runs tau >= 0.95 and the clusters hold there; uniform does not stop by itself. A live "
            "study buys whole documents or blocks, each rated by every annotator it plans, so it saves "
            "somewhat less than the replay."
        )
