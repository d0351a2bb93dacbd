"""Benchmark: split-half reliability over every split of 10, 16, 20 and 24 blocks.

A synthetic design in Tang et al.'s shape: each block has 5 inputs x 4
systems rated by 3 annotators on 1-5 (seeded), so a block x system table of
15 ratings per cell. 10, 16 and 20 blocks have 126, 6,435 and 92,378
splits and use them all; 24 blocks have 1,352,078, more than a million, so
20,000 random splits are drawn. Prints wall and CPU seconds
(``time.process_time()``, all threads of the process) per design, best of
``--repeat`` runs.

    .venv/bin/python bench/split_half.py [--repeat 3] [--systems 4]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reports.metrics.ratings.split_half import split_count, split_half_reliability  # noqa: E402

RATINGS_PER_CELL = 5 * 3


def design(blocks, systems, seed=0):
    """Block x system sums and counts of 1-5 ratings around a per-system level."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(2.0, 4.0, size=systems)
    ratings = np.clip(
        np.rint(level[:, None] + rng.normal(0, 1.0, size=(blocks, systems, RATINGS_PER_CELL))), 1, 5
    )
    return ratings.sum(axis=2), np.full((blocks, systems), RATINGS_PER_CELL)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--systems", type=int, default=4)
    args = parser.parse_args()
    print(f"{'blocks':>6} {'splits':>10} {'method':>7} {'used':>7} {'wall s':>7} {'CPU s':>7}  pearson_mean")
    for blocks in (10, 16, 20, 24):
        sums, counts = design(blocks, args.systems)
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            shr, reason = split_half_reliability(sums, counts)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        assert reason is None, reason
        print(
            f"{blocks:>6} {split_count(blocks):>10,} {shr['method']:>7} {shr['splits']:>7,} "
            f"{best_wall:>7.3f} {best_cpu:>7.3f}  {shr['pearson_mean']:.4f}"
        )


if __name__ == "__main__":
    main()
