"""Benchmark: what the `uncertain` allocation policy costs a block study's join, against the fill order.

Makes Likert studies of S systems x I inputs on a fresh database, each input's outputs cut into
blocks of two systems (the last block of an odd S holds one), rates a quarter of the blocks
(bulk-inserted), then times J joins in-process (assignment_join, the join link's service, with
the study's row lock), each followed by its worker's ratings and submit (so the pair sums and
the `settled` rule are computed too), under `uniform` and under `uncertain` with `settled`.
Prints CPU time per join and per submit (resource.getrusage of this process: SQLite runs
in-process, so its work is in it), wall time, the peak RSS and the load average.

    DJANGO_SETTINGS_MODULE=falte_site.test_settings .venv/bin/python bench/block_allocation_join.py \
        [--inputs 100 400] [--systems 5] [--joins 20]
"""

import argparse
import os
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BENCH_SQLITE", "/tmp/falte_bench_blockalloc.sqlite3")

from bench.allocation_join import cpu, measure, setup  # noqa: E402  (the database named above)


def make_study(slug, systems, inputs, allocation):
    from accounts.models import Worker
    from annotations.models import Assignment
    from protocols.rating.models import Rating
    from studies.models import Document, Segment, Study

    study = Study.objects.create(slug=slug, title=slug, protocol="likert", status=Study.Status.OPEN,
                                 annotators_per_document=1, config={"allocation": allocation})  # fmt: skip
    documents = Document.objects.bulk_create(
        # The pairing turns with the input, so every pair of systems shares some blocks.
        Document(
            study=study,
            external_id=f"{i}-{s}",
            input_id=f"in-{i}",
            system=f"sys{s}",
            block=f"{i}-{((s + i) % systems) // 2}",
            position=i * systems + s,
        )  # fmt: skip
        for i in range(inputs)
        for s in range(systems)
    )
    Segment.objects.bulk_create(
        Segment(document=d, index=0, text=f"Output {d.external_id}.") for d in documents
    )
    blocks = sorted({d.block for d in documents}, key=lambda b: [int(p) for p in b.split("-")])
    rated = set(blocks[: len(blocks) // 4])
    workers = Worker.objects.bulk_create(Worker(platform="import", external_id=f"{slug}-{b}") for b in rated)
    assignments = Assignment.objects.bulk_create(
        Assignment(study=study, block=b, worker=w, status=Assignment.Status.SUBMITTED)
        for b, w in zip(sorted(rated), workers, strict=True)
    )
    of_block = {a.block: a for a in assignments}
    Rating.objects.bulk_create(
        Rating(
            assignment=of_block[d.block],
            document=d,
            score=1 + (int(d.system[3:]) + int(d.input_id[3:]) % 2) % 5,
        )
        for d in documents
        if d.block in of_block
    )
    return study


def join_and_submit(study, name):
    """(CPU seconds of the join, CPU seconds of the submit) of one worker."""
    from annotations.models import Assignment
    from annotations.services import assignment_join, assignment_submit
    from protocols.rating.models import Rating

    started = cpu()
    assignment = assignment_join(study=study, platform="prolific", external_id=name)
    joined = cpu()
    Rating.objects.bulk_create(
        Rating(assignment=assignment, document_id=pk, score=3) for pk in assignment.items
    )
    Assignment.objects.filter(pk=assignment.pk).update(status="in_progress")
    rated = cpu()
    assignment_submit(token=assignment.token)
    return joined - started, cpu() - rated


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--joins", type=int, default=20)
    args = parser.parse_args()
    setup()
    policies = {
        "uniform": {"policy": "uniform"},
        "uncertain": {"policy": "uncertain", "stop_when": ["settled"]},
    }
    print(f"SQLite file database, in-process; Likert, {args.systems} systems, blocks of two systems of an input; "
          f"a quarter of the blocks rated; {args.joins} joins, each with its submit")  # fmt: skip
    print(
        "| inputs | blocks | policy | wall ms / join+submit | CPU ms / join | CPU ms / submit | peak RSS MB | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for inputs in args.inputs:
        for name, allocation in policies.items():
            study = make_study(f"bench-{name}-{inputs}", args.systems, inputs, allocation)
            blocks = study.documents.values("block").distinct().count()
            wall, _, join, submit = measure(study, args.joins, join_and_submit)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"| {inputs} | {blocks} | {name} | {wall:.1f} | {join:.1f} | {submit:.1f} | {rss:.0f} "
                  f"| {os.getloadavg()[0]:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
