"""Benchmark: a finished Likert study replayed through the live join and submit under each
allocation policy: what a block study's adaptive allocation and its stopping rule save.

bench/allocation.py replays cells (a system's output of an item) in the order a policy would
buy them; a live block study buys whole blocks, chosen by the join
(annotations/services/block_allocation.py), each rated by several workers, and stops by its own
rule. This script runs that path on public ratings:

- HANNA (data/hanna-stories): 11 systems each telling one story per prompt for the same 96
  prompts, every story rated by three crowd raters on 1-5 scales; one criterion
  (`--criterion`) is the study's Likert question.
- The study: a Likert study (SQLite file database, in-process) of 1,056 documents, each
  prompt's 11 stories cut into blocks of two systems (the pairing turns with the prompt, so
  every pair of systems shares blocks; the sixth block of a prompt holds one story), three
  annotators per block. The seed shuffles the blocks' bundle order and which of a story's
  three raters answers for the first, second and third worker on its block.
- Workers join one after another (assignment_join, the join link's service), each giving the
  ratings of the rater they stand for, and submit (assignment_submit: the pair sums and the
  stopping rule), until the join refuses: every block rated three times, or the study stopped.
  `uniform` has no stopping rule; `uncertain` and `clusters` stop when `settled`.

Printed per policy and seed: the ratings bought when the study stopped; at each budget
fraction, Kendall tau of the systems' means against the full data's and whether the
significance clusters (paired randomisation, `--resamples`) are the full data's; then the mean
over seeds, and the CPU time per join and per submit.

    .venv/bin/python bench/live_allocation.py [--seeds 3] [--criterion Coherence] [--resamples 1000]
        [--policies uniform uncertain clusters] [--settled 0.01]
"""

import argparse
import gzip
import os
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BENCH_SQLITE", "/tmp/falte_bench_live_allocation.sqlite3")

from bench.allocation_join import cpu, setup  # noqa: E402  (the database named above)

RATERS = 3
FRACTIONS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
CRITERIA = ("Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity")
ALLOCATION = {
    "uniform": {"policy": "uniform"},
    "uncertain": {"policy": "uncertain", "stop_when": ["settled"]},
    "clusters": {"policy": "clusters", "stop_when": ["settled"]},
}


def hanna_ratings(criterion):
    """{(system, prompt): [the three raters' ratings of `criterion`, in rater order]}."""
    with gzip.open(ROOT / "data" / "hanna-stories" / "hanna_human_ratings.tsv.gz", "rt") as lines:
        header, *rows = [line.rstrip("\n").split("\t") for line in lines]
    column, rater = header.index(criterion), header.index("rater")
    ratings = {}
    for row in sorted(rows, key=lambda row: int(row[rater])):
        ratings.setdefault((row[0], int(row[2])), []).append(int(row[column]))
    assert all(len(given) == RATERS for given in ratings.values()), "HANNA rates every story three times"
    return ratings


def blocks_of(systems, prompts):
    """{block: [(system, prompt)]}: each prompt's stories in blocks of two systems."""
    blocks = {}
    for prompt in prompts:
        turned = systems[prompt % len(systems) :] + systems[: prompt % len(systems)]
        for n in range(0, len(turned), 2):
            blocks[f"{prompt}-{n // 2}"] = [(system, prompt) for system in turned[n : n + 2]]
    return blocks


def make_study(slug, blocks, allocation, seed):
    from studies.models import Document, Segment, Study

    study = Study.objects.create(
        slug=slug, title=slug, protocol="likert", status=Study.Status.OPEN, annotators_per_document=RATERS,
        config={"scale": {"min": 1, "max": 5}, "allocation": allocation},
    )  # fmt: skip
    order = list(blocks)
    random.Random(seed).shuffle(order)
    documents = Document.objects.bulk_create(
        Document(study=study, external_id=f"{prompt}-{system}", input_id=f"prompt-{prompt}", system=system,
                 block=block, position=place * 2 + n)
        for place, block in enumerate(order)
        for n, (system, prompt) in enumerate(blocks[block])
    )  # fmt: skip
    Segment.objects.bulk_create(
        Segment(document=d, index=0, text=f"Story {d.external_id}.") for d in documents
    )
    return study


def run(study, ratings, seed):
    """[(system, prompt, rating)] in the order the workers gave them, and the CPU seconds of the
    joins and of the submits, until the join refuses."""
    from annotations.models import Assignment
    from annotations.services import assignment_join, assignment_submit
    from annotations.services.joining import JoinRefused
    from protocols.rating.models import Rating

    stands_for = {}  # (system, prompt): the raters in the order the block's workers give them
    documents = {d.pk: (d.system, int(d.input_id.split("-")[1])) for d in study.documents.all()}
    bought, join_cpu, submit_cpu, worker = [], 0.0, 0.0, 0
    while True:
        started = cpu()
        try:
            assignment = assignment_join(
                study=study, platform="prolific", external_id=f"{study.slug}-w{worker}"
            )
        except JoinRefused:
            return bought, join_cpu, submit_cpu
        join_cpu += cpu() - started
        worker += 1
        given = []
        for pk in assignment.items:
            cell = documents[pk]
            if cell not in stands_for:  # seeded by the cell: the worker's own item order is random
                stands_for[cell] = random.Random(f"{seed}/{cell}").sample(range(RATERS), RATERS)
            raters = stands_for[cell]
            given.append((pk, cell, ratings[cell][raters.pop()]))
        Rating.objects.bulk_create(
            Rating(assignment=assignment, document_id=pk, score=s) for pk, _c, s in given
        )
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.IN_PROGRESS)
        started = cpu()
        assignment_submit(token=assignment.token)
        submit_cpu += cpu() - started
        bought += [(*cell, score) for _pk, cell, score in given]


def cell_means(bought):
    """{system: {prompt: mean of its ratings bought}}."""
    sums = {}
    for system, prompt, score in bought:
        total = sums.setdefault(system, {}).setdefault(prompt, [0, 0])
        total[0] += score
        total[1] += 1
    return {system: {prompt: s / n for prompt, (s, n) in cells.items()} for system, cells in sums.items()}


def checkpoints(bought, full, total, resamples, seed):
    """{fraction: (tau, same clusters)} of the ratings bought up to each fraction of `total`;
    None past the point where the study stopped."""
    from scipy import stats

    from reports.metrics.allocation import cluster_sets
    from reports.metrics.ranking import rank_systems

    def clusters(by_system):
        return cluster_sets(rank_systems(by_system, resamples=resamples, seed=seed))

    systems = sorted(full)
    full_means = [sum(full[s].values()) / len(full[s]) for s in systems]
    full_clusters = clusters(full)
    found = {}
    for fraction in (*FRACTIONS, len(bought) / total):
        spent = round(fraction * total)
        if spent > len(bought):
            found[fraction] = None
            continue
        partial = cell_means(bought[:spent])
        if set(partial) != set(systems):
            found[fraction] = (float("nan"), False)
            continue
        means = [sum(partial[s].values()) / len(partial[s]) for s in systems]
        tau = stats.kendalltau(means, full_means).statistic
        found[fraction] = (float(tau), clusters(partial) == full_clusters)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--criterion", choices=CRITERIA, default="Coherence")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--policies", nargs="+", choices=list(ALLOCATION), default=list(ALLOCATION))
    parser.add_argument("--settled", type=float, help="the adaptive studies' `settled` (default 0.01)")
    args = parser.parse_args()
    if args.settled is not None:
        for policy in ("uncertain", "clusters"):
            ALLOCATION[policy] = {**ALLOCATION[policy], "settled": args.settled}
    setup()
    ratings = hanna_ratings(args.criterion)
    systems = sorted({system for system, _prompt in ratings})
    prompts = sorted({prompt for _system, prompt in ratings})
    blocks = blocks_of(systems, prompts)
    total = RATERS * len(ratings)
    full = cell_means([(s, p, score) for (s, p), given in ratings.items() for score in given])
    print(f"settled: {args.settled or 0.01}; HANNA {args.criterion}, Likert 1-5: {len(systems)} systems x {len(prompts)} prompts, "
          f"{len(blocks)} blocks of two systems, {RATERS} annotators per block ({total:,} ratings); "
          f"SQLite file database, in-process; load {os.getloadavg()[0]:.1f}")  # fmt: skip
    header = " | ".join(f"{round(f * 100)} %" for f in FRACTIONS)
    print(
        f"| policy | seed | stopped at | tau, clusters there | {header} | CPU ms / join | / submit | wall s |"
    )
    print("|---" * (len(FRACTIONS) + 7) + "|")
    summary = {}
    for policy in args.policies:
        for seed in range(args.seeds):
            wall = time.perf_counter()
            study = make_study(f"live-{policy}-{seed}", blocks, ALLOCATION[policy], seed)
            bought, join_cpu, submit_cpu = run(study, ratings, seed)
            workers = study.assignments.count()
            found = checkpoints(bought, full, total, args.resamples, seed)
            stop = len(bought) / total
            summary.setdefault(policy, []).append((stop, found))
            cells = " | ".join(_shown(found[f]) for f in FRACTIONS)
            print(f"| {policy} | {seed} | {stop:.0%} | {_shown(found[stop])} | {cells} "
                  f"| {join_cpu * 1000 / workers:.1f} | {submit_cpu * 1000 / workers:.1f} "
                  f"| {time.perf_counter() - wall:.0f} |", flush=True)  # fmt: skip
    print()
    print(f"Mean over {args.seeds} seeds: ratings bought when the study stopped; mean tau (share of seeds with "
          "the full clusters) at each fraction the study reached")  # fmt: skip
    for policy, runs in summary.items():
        stops = [stop for stop, _found in runs]
        at = []
        for fraction in FRACTIONS:
            reached = [found[fraction] for _stop, found in runs if found[fraction] is not None]
            if len(reached) < len(runs):
                at.append("stopped")
                continue
            tau = sum(t for t, _same in reached) / len(reached)
            at.append(f"{tau:.3f} ({sum(same for _t, same in reached) / len(reached):.0%})")
        print(f"| {policy} | {sum(stops) / len(stops):.0%} | {' | '.join(at)} |")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MB; load average at the end {os.getloadavg()[0]:.1f}")


def _shown(point):
    if point is None:
        return "-"
    tau, same = point
    return f"{tau:.3f} {'same' if same else 'differ'}"


if __name__ == "__main__":
    main()
