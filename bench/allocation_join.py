"""Benchmark: what the `uncertain` allocation policy costs a join, against today's uniform fill.

Makes DA studies of S systems x I items (one document per cell, three segments each) on a fresh
database, rates a quarter of the cells, then times J joins in-process (assignment_join, the
join link's service, with the study's row lock), each followed by its worker's submit (so the
stopping rules and the clusters are computed too), under `uniform` and under `uncertain` with
the `unchanged` rule. Prints wall and CPU time per join+submit (resource.getrusage of this
process, which runs the queries' Python side; SQLite runs in-process too), the peak RSS and the
load average, at three sizes.

    DJANGO_SETTINGS_MODULE=falte_site.test_settings .venv/bin/python bench/allocation_join.py \
        [--items 100 400 1600] [--systems 5] [--joins 20]
"""

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE = Path(os.environ.get("BENCH_SQLITE", "/tmp/falte_bench_allocation.sqlite3"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.test_settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{DATABASE}")


def setup():
    import django
    from django.core.management import call_command

    DATABASE.unlink(missing_ok=True)
    django.setup()
    call_command("migrate", verbosity=0)


def make_study(slug, systems, items, allocation):
    from accounts.models import Worker
    from annotations.models import Assignment
    from protocols.translation.models import SegmentScore
    from studies.models import Document, Segment, Study

    study = Study.objects.create(slug=slug, title=slug, protocol="da", status=Study.Status.OPEN,
                                 annotators_per_document=1, config={"allocation": allocation})  # fmt: skip
    documents = Document.objects.bulk_create(
        Document(study=study, external_id=f"{i}-{s}", input_id=f"src-{i}", system=f"sys{s}", position=i * systems + s)
        for i in range(items)
        for s in range(systems)
    )  # fmt: skip
    Segment.objects.bulk_create(
        Segment(document=d, index=n, text=f"Segment {n} of {d.external_id}.")
        for d in documents
        for n in range(3)
    )
    worker = Worker.objects.create(platform="import", external_id=f"rater-{slug}")
    rated = documents[: len(documents) // 4]
    assignments = Assignment.objects.bulk_create(
        Assignment(study=study, document=d, worker=worker, status=Assignment.Status.SUBMITTED) for d in rated
    )
    segments = {}
    for segment in Segment.objects.filter(document__in=rated):
        segments.setdefault(segment.document_id, []).append(segment)
    SegmentScore.objects.bulk_create(
        SegmentScore(assignment=a, segment=segment, score=50 + 5 * int(a.document.system[3:]) + (i % 7))
        for i, a in enumerate(assignments)
        for segment in segments[a.document_id]
    )
    return study


def join_and_submit(study, name):
    """(CPU seconds of the join, CPU seconds of the submit) of one worker."""
    from django.db import transaction

    from annotations.models import Assignment
    from annotations.services import assignment_join, assignment_submit
    from protocols.translation.models import SegmentScore

    started = cpu()
    assignment = assignment_join(study=study, platform="prolific", external_id=name)
    joined = cpu()
    with transaction.atomic():
        for segment in assignment.document.segments.all():
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=60)
        Assignment.objects.filter(pk=assignment.pk).update(current_segment=2, status="in_progress")
    assignment.refresh_from_db()
    rated = cpu()
    assignment_submit(token=assignment.token)
    return joined - started, cpu() - rated


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(study, joins, work=None):
    """(wall, CPU, join CPU, submit CPU) in ms per worker of `joins` workers each doing `work`
    (join_and_submit: a DA document; bench/block_allocation_join.py passes a block's)."""
    work = work or join_and_submit
    wall, started_cpu, join_cpu, submit_cpu = time.perf_counter(), cpu(), 0.0, 0.0
    for n in range(joins):
        join, submit = work(study, f"{study.slug}-w{n}")
        join_cpu, submit_cpu = join_cpu + join, submit_cpu + submit
    per = 1000 / joins
    return (time.perf_counter() - wall) * per, (cpu() - started_cpu) * per, join_cpu * per, submit_cpu * per


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[100, 400, 1600])
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--joins", type=int, default=20)
    args = parser.parse_args()
    setup()
    policies = {
        "uniform": {"policy": "uniform"},
        "uncertain": {"policy": "uncertain", "stop_when": ["unchanged"], "unchanged_for": 10_000},
    }
    print(f"SQLite file database, in-process; {args.systems} systems; a quarter of the cells rated; "
          f"{args.joins} joins, each with its submit")  # fmt: skip
    print("| items | cells | policy | wall ms / join+submit | CPU ms / join+submit | CPU ms / join | CPU ms / submit "
          "| peak RSS MB | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for items in args.items:
        for name, allocation in policies.items():
            study = make_study(f"bench-{name}-{items}", args.systems, items, allocation)
            wall, used, join, submit = measure(study, args.joins)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"| {items} | {items * args.systems} | {name} | {wall:.1f} | {used:.1f} | {join:.1f} | {submit:.1f} "
                  f"| {rss:.0f} | {os.getloadavg()[0]:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
