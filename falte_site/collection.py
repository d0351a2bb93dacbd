"""Python's cyclic garbage collector, told that a bulk job is running.

The collector runs a young-generation pass every 700 net allocations of container objects
(tuples, lists, dicts, model instances) and, every so often, a full pass that walks every
object the process holds. A bundle import makes and drops millions of such objects, nearly none
of them in a cycle: at 2.7M spans the import ran 20,095 young passes and 89 full ones, and the
full passes' count grows with the study while each walks the same flat heap. A raised threshold
for the job's duration took its CPU from 56.6-63.1 s to 44.2-46.8 s at the same peak memory
(docs/benchmarks.md, "The garbage collector during an import"). Cycles are still collected,
only less often: at most YOUNG new objects wait for a pass.

Only for jobs that make no reference cycles, whose peak memory is then unchanged with it: a cycle
made per chunk waits for a rarer pass, and memory grows by what waits. The bundle export made
them (each document's prefetched segments point back at it) and peaked 41-60 MB higher until it
took each document's prefetched segments off it; tests/test_collection.py checks that
the imports and the export of every protocol leave nothing for the collector.

Thresholds are the process's own, shared by its threads: the first job to start raises them and
the last to end puts back what was there before (a gthread worker or a threaded Celery worker
may run two jobs at once).
"""

import gc
import threading
from contextlib import contextmanager

# Net new container objects between young passes (Python's default is 700). The older
# generations' thresholds (passes of one generation per pass of the next) stay as they are: they
# count young passes, so they fall with them (at 2.7M spans: 27 young passes, 1 middle, 0 full;
# raising them too changed nothing there).
YOUNG = 50_000

_lock = threading.Lock()
_running = 0
_before = None


@contextmanager
def bulk_collection():
    """Within: a young pass every YOUNG new objects; outside, the thresholds as they were."""
    global _running, _before
    with _lock:
        if _running == 0:
            _before = gc.get_threshold()
            gc.set_threshold(YOUNG, *_before[1:])
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_before)
