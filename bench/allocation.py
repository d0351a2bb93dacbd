"""Benchmark: how much of a finished study's budget an allocation policy needs to reach its
full-data ranking (reports/metrics/allocation.py), on public ratings.

- WMT21 TED en-de MQM (data/wmt-mqm-ted): 14 systems, 529 segments, every system rated on
  every segment; a cell's score is the segment's MQM score (lower is better).
- WMT21 news cs-en DA (data/wmt21-da-csen): 9 systems rated on different segments (a
  segment's z-score, averaged over its raters); higher is better.
- HANNA story generation Likert (data/hanna-stories): 11 systems (10 generators and the human
  story) each telling one story per prompt for the same 96 prompts, every story rated by three
  crowd raters on six 1-5 Likert criteria; a cell's score is the mean over its raters of the
  criterion (`--hanna-criterion`, default `overall`: the mean of the six); higher is better.

Policies: reports/metrics/allocation (uniform, uncertain, clusters; oracle, the bound of a split
between the systems fixed in advance knowing the full data, with its model's chance per budget;
with --hindsight, the split found for each seed knowing that seed's draw too).
For each data set and policy, over SEEDS seeds, each budget fraction's mean Kendall tau
against the full-data means and the share of seeds whose significance clusters (paired
randomisation, R resamples) are the full data's; then the budget needed (the fraction from
which tau >= 0.95 and the clusters hold) averaged over the seeds, and the CPU time.

Then the reach of any allocation on that data: each pair's full-data z (paired mean difference
over its standard error) says how likely a fraction f of its shared items, drawn at random, puts
the pair in the wrong order: about Phi(-z sqrt(f / (1 - f))). The sum over pairs is the expected
number of discordant pairs, and tau = 1 - 2 D / pairs. The script prints it at each fraction for
uniform allocation, which the replay's uniform row should match.

    .venv/bin/python bench/allocation.py [--seeds 20] [--resamples 1000] [--data ted da hanna]
        [--policies uniform uncertain clusters oracle]
        [--hanna-criterion overall|Relevance|Coherence|Empathy|Surprise|Engagement|Complexity]
        [--hindsight]
"""

import argparse
import gzip
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.test_settings")

from interop.formats.mqm_tsv import read  # noqa: E402
from reports.metrics.allocation import FRACTIONS, POLICIES, _cells, holds, replay_run, summary_of  # noqa: E402
from reports.metrics.allocation.hindsight import hindsight_plan  # noqa: E402
from reports.metrics.allocation.oracle import oracle_chances  # noqa: E402
from reports.metrics.mqm import Weights, segment_scores  # noqa: E402
from reports.metrics.ranking import rank_systems  # noqa: E402


def ted_mqm():
    lines, _ = read(ROOT / "data" / "wmt-mqm-ted" / "mqm_ted_ende.tsv.gz")
    scores = segment_scores([line.judgment for line in lines], Weights())
    by_system = {}
    for (system, document, segment, _rater), score in scores.items():
        cell = by_system.setdefault(system, {}).setdefault((document, segment), [])
        cell.append(score)
    return {s: {i: sum(v) / len(v) for i, v in items.items()} for s, items in by_system.items()}, False


def wmt21_da():
    with gzip.open(ROOT / "data" / "wmt21-da-csen" / "ad-seg-scores-cs-en.csv.gz", "rt") as lines:
        rows = [line.split() for line in lines][1:]
    by_system = {}
    for system, segment, _raw, z, _n in rows:
        by_system.setdefault(system, {})[segment] = float(z)
    return by_system, True


HANNA_CRITERIA = ("Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity")


def hanna_likert(criterion="overall"):
    """{system: {prompt: score}}: a story's mean over its three raters of one criterion, or of the
    mean of the six (`overall`)."""
    with gzip.open(ROOT / "data" / "hanna-stories" / "hanna_human_ratings.tsv.gz", "rt") as lines:
        header, *rows = [line.rstrip("\n").split("\t") for line in lines]
    columns = [header.index(name) for name in (HANNA_CRITERIA if criterion == "overall" else (criterion,))]
    cells = {}
    for row in rows:
        score = sum(int(row[column]) for column in columns) / len(columns)
        cells.setdefault(row[0], {}).setdefault(int(row[2]), []).append(score)
    return {s: {prompt: sum(v) / len(v) for prompt, v in items.items()} for s, items in cells.items()}, True


DATA = {
    "ted": ("WMT21 TED en-de MQM", ted_mqm),
    "da": ("WMT21 news cs-en DA", wmt21_da),
    "hanna": ("HANNA stories, Likert 1-5", hanna_likert),
}


def pair_z(by_system):
    """[z] per pair of systems: paired over shared items, else by the two means."""
    systems = sorted(by_system)
    found = []
    for place, first in enumerate(systems):
        for second in systems[place + 1 :]:
            a, b = by_system[first], by_system[second]
            shared = a.keys() & b.keys()
            if len(shared) > 1:
                differences = [a[item] - b[item] for item in shared]
                found.append(abs(_mean(differences)) / math.sqrt(_variance(differences) / len(shared)))
            else:
                spread = _variance(list(a.values())) / len(a) + _variance(list(b.values())) / len(b)
                found.append(abs(_mean(list(a.values())) - _mean(list(b.values()))) / math.sqrt(spread))
    return found


def _mean(values):
    return sum(values) / len(values)


def _variance(values):
    mean = _mean(values)
    return sum((value - mean) ** 2 for value in values) / (len(values) - 1)


def expected_tau(zs, fraction):
    """(expected discordant pairs, the tau they imply) when each pair keeps `fraction` of its items."""
    if fraction >= 1:
        return 0.0, 1.0
    scale = math.sqrt(fraction / (1 - fraction))
    discordant = sum(0.5 * math.erfc(z * scale / math.sqrt(2)) for z in zs)
    return discordant, 1 - 2 * discordant / len(zs)


PERCENTS = tuple(percent / 100 for percent in range(1, 101))


def first_hold(run):
    """The first checkpoint of a replay (at 1 % steps) whose cells give tau >= 0.95 and the full
    data's clusters: where the policy would stop had it known (what hindsight is compared with),
    or None."""
    return next((checkpoint.fraction for checkpoint in run if holds(checkpoint)), None)


def print_stop(summary, seeds):
    """Where the policy settled by itself (its `settled` stopping rule at 0.01) and whether its
    ranking there is the full data's."""
    settled = [stop for stop in summary.stops if stop is not None]
    if not settled:
        return
    fractions = [stop.fraction for stop in settled]
    print(
        f"| {summary.policy}, stopped by itself (settled) | mean {summary.mean_stop:.1%} ({min(fractions):.0%} to"
        f" {max(fractions):.0%}); tau >= 0.95 and the full clusters there in {summary.stops_right}/{seeds} seeds"
        f" | | |"
    )


def print_hindsight(by_system, higher, *, seeds, resamples, target=0.6):
    """Per seed, the smallest split between the systems found that holds on that seed's draw
    (reports/metrics/allocation/hindsight.py), and the smallest of the oracle's plans that does."""
    started = time.process_time()
    found = [
        hindsight_plan(by_system, seed=seed, higher_is_better=higher, resamples=resamples)
        for seed in range(seeds)
    ]
    cpu = time.process_time() - started
    fractions = sorted(plan.fraction for plan in found)
    oracle = [plan.oracle_fraction for plan in found]
    reached = sum(fraction <= target for fraction in fractions)
    print(
        f"| hindsight, per seed | {' '.join(f'{f:.0%}' for f in fractions)} | mean {sum(fractions) / seeds:.1%}"
        f" ({reached}/{seeds} seeds at or below {target:.0%}); the oracle's plans on the same draws:"
        f" mean {sum(oracle) / seeds:.1%} | {cpu:.1f} s |"
    )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--data", nargs="+", choices=tuple(DATA), default=list(DATA))
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
    parser.add_argument("--hanna-criterion", choices=("overall", *HANNA_CRITERIA), default="overall")
    parser.add_argument(
        "--hindsight",
        action="store_true",
        help="also search each seed's draw for the smallest split that holds",
    )
    args = parser.parse_args()
    for key in args.data:
        name, load = DATA[key]
        if key == "hanna":
            name = f"{name} ({args.hanna_criterion})"
            by_system, higher = load(args.hanna_criterion)
        else:
            by_system, higher = load()
        cells = sum(len(items) for items in by_system.values())
        print(
            f"\n{name}: {len(by_system)} systems, {cells:,} cells, {args.seeds} seeds, R = {args.resamples}"
        )
        print("| policy | " + " | ".join(f"{f:.0%}" for f in FRACTIONS) + " | budget needed | CPU |")
        print("| --- " * (len(FRACTIONS) + 3) + "|")
        first_holds, stops = {}, []
        for policy in args.policies:
            started = time.process_time()
            # With --hindsight, one replay at 1 % steps per seed gives both the table (read at its
            # fractions, the same figures as a replay at those alone) and where the policy first holds.
            runs = [
                replay_run(by_system, policy=policy, seed=seed, higher_is_better=higher,
                           test_resamples=args.resamples, fractions=PERCENTS if args.hindsight else FRACTIONS)
                for seed in range(args.seeds)
            ]  # fmt: skip
            summary = summary_of(policy, runs)
            cpu = time.process_time() - started
            cells_row = [
                f"{tau:.3f} ({same:.0%})"
                for tau, same in zip(summary.mean_tau, summary.same_clusters, strict=True)
            ]
            reached = [n for n in summary.needed if n is not None]
            mean_needed = (
                f"{summary.mean_needed:.0%} ({len(reached)}/{args.seeds} seeds)" if reached else "never"
            )
            print(f"| {policy} | " + " | ".join(cells_row) + f" | {mean_needed} | {cpu:.1f} s |")
            stops.append(summary)
            if args.hindsight:
                first_holds[policy] = [first_hold(run.checkpoints) for run in runs]
        for summary in stops:
            print_stop(summary, args.seeds)
        if "oracle" in args.policies:
            systems, _items, scores = _cells(by_system)
            full = rank_systems(by_system, higher_is_better=higher, resamples=args.resamples)
            chances = oracle_chances(scores, full, systems, FRACTIONS)
            print(
                "| oracle, model's chance | "
                + " | ".join(f"{chance:.0%}" for _f, chance in chances)
                + " | | |"
            )
        if args.hindsight:
            for policy, fractions in first_holds.items():
                held = [f for f in fractions if f is not None]
                print(
                    f"| {policy}, stopped when it first holds | mean {sum(held) / len(held):.1%}"
                    f" ({len(held)}/{len(fractions)} seeds; {min(held):.0%} to {max(held):.0%}) | | |"
                )
            print_hindsight(by_system, higher, seeds=args.seeds, resamples=args.resamples)
        zs = pair_z(by_system)
        expected = [expected_tau(zs, fraction) for fraction in FRACTIONS]
        print(
            "| expected, uniform | "
            + " | ".join(f"{tau:.3f} ({d:.1f} pairs)" for d, tau in expected)
            + " | | |"
        )
    print("\nEach cell: mean Kendall tau against the full data, and (in brackets) the share of seeds whose")
    print(
        "significance clusters are the full data's. Budget needed: from that fraction on, tau >= 0.95 and the"
    )
    print("clusters hold, averaged over the seeds that get there. Expected, uniform: the tau implied by")
    print("the expected number of discordant pairs (in brackets) when every pair keeps that fraction.")
    print("Oracle: each system's number of items chosen knowing the full data, the items in the seed's")
    print("random order (reports/metrics/allocation/oracle.py); its model's chance: that its plan of that")
    print("budget gives tau >= 0.95 and the full clusters, before the replay checks it.")
    print("Hindsight (--hindsight): per seed, sorted, the smallest share of the cells a split between the")
    print("systems was found to need when it knows the draw, each system on the first items of the seed's")
    print("order, the plan checked on the cells (reports/metrics/allocation/hindsight.py); not a policy.")
    print("Stopped by itself: where the policy had no pair in doubt above 0.01 (its `settled` rule), the")
    print("ranking there checked as the table's are.")
    print("Stopped when it first holds: the policy's own cells at the first 1 % at which tau >= 0.95 and the")
    print("clusters hold, a stop no rule can know to make (the budget needed above asks that it hold from")
    print("then on); with hindsight it compares the allocation alone. With --hindsight the policies are")
    print(
        "replayed at every 1 % (the table reads its fractions from that replay), so their CPU is that replay's."
    )


if __name__ == "__main__":
    main()
