"""Spending ratings where the ranking is uncertain, and replaying a finished study to see what it saves.

A comparison study is a grid of *cells*: system s rated on item i. The study plans some of the
cells (`planned`, a boolean matrix items x systems); it has bought some (`bought`), with their
scores. The questions a study asks while it runs, and that a replay asks of a finished study:

- how likely is it that two systems' order, from the cells bought so far, is not the order the
  whole plan would give (`order_doubt`)? Shared items give a paired comparison (the mean
  difference over items both systems were rated on); systems with no shared items are compared
  by their means. Both estimates carry the finite-population correction: the plan is finite, so
  a pair rated on all its planned items is settled, whatever its gap.
- which cells to buy next (`next_pair`): the items for the pair whose order is most in doubt;
- is the ranking settled (`settled`): every pair's doubt below a threshold.

Policies (replayed by `replay`):

- `uniform` (what a study does today): items in a random order, each item rated for every
  system at once.
- `uncertain`: after a warm-up of `warmup` items rated for every system, the next item goes to
  the pair of systems whose order is most in doubt, both systems rated on the next item in the
  random order that the two have not both been rated on, until no pair's doubt is above
  `settled` (then the rest, item by item, as uniform does).
- `clusters` (clusters.py; a live study runs it too, cluster_doubt_from_sums): as `uncertain`, but a pair is
  also in doubt while its *significance* at the end of its plan is, where that can make or
  unmake a boundary of the significance clusters.
- `oracle` (oracle.py; no policy: it reads the finished study): each system's number of items
  chosen knowing the full data, the items in the seed's random order; the bound on what fixed
  sizes can save.
- hindsight (hindsight.py; no policy either, run by bench/allocation.py --hindsight): the same
  kind of split, found for one seed knowing that seed's draw as well, each plan checked on the
  cells: the reference for what a policy that reacts to the ratings could save.

Modules: doubt.py (a pair's order doubt), policies.py (uniform, uncertain), clusters.py,
oracle.py, hindsight.py, replay.py (the replay, the budget needed).

Everything is seeded: a policy's order of cells depends only on the cells and the seed.
"""

from .clusters import cluster_doubt_from_sums, clusters_order, decision_doubt
from .doubt import SETTLED, SUM_KEYS, RunningSums, doubt_from_sums, next_pair, order_doubt, pair_sums
from .oracle import oracle_order, oracle_plans
from .policies import _cells, uncertain_order, uniform_order
from .replay import (
    FRACTIONS,
    POLICIES,
    Checkpoint,
    Run,
    Summary,
    budget_needed,
    buying_order,
    cluster_sets,
    holds,
    pair_spending,
    replay,
    replay_run,
    summarise,
    summary_of,
)

__all__ = [
    "FRACTIONS", "POLICIES", "SETTLED", "SUM_KEYS", "Checkpoint", "Run", "RunningSums", "Summary", "_cells", "budget_needed", "buying_order", "cluster_sets",
    "cluster_doubt_from_sums", "clusters_order", "decision_doubt", "doubt_from_sums", "next_pair", "oracle_order", "oracle_plans",
    "holds", "order_doubt", "pair_sums", "pair_spending", "replay", "replay_run", "summarise", "summary_of", "uncertain_order", "uniform_order",
]  # fmt: skip
