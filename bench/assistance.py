"""Benchmark: the report's `assistance` part beside the span report it comes with, on the same
synthetic assisted study (pure metrics, no database).

D documents of S segments of ~30 tokens, K annotators per document split
between the arms, gold on a quarter of the documents, 6 suggestions per
document decided by each suggestion-arm annotator. Prints wall and CPU time
(this process's user + system) of each, median of `repeat` runs.

    .venv/bin/python bench/assistance.py [--documents 500] [--segments 10] [--annotators 4] [--repeat 3]
"""

import argparse
import datetime
import platform
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reports.metrics.spans import span_report  # noqa: E402
from reports.metrics.spans.assistance import Decision, SuggestedSpan, assistance_report  # noqa: E402
from reports.metrics.spans.data import Annotation, Span, SpanCategory, SpanDocument, SpanStudy  # noqa: E402

WORDS = [
    "Anna",
    "met",
    "Ben",
    "at",
    "the",
    "old",
    "mill",
    ",",
    "and",
    "they",
    "talked",
    "about",
    "the",
    "rain",
    "until",
    "night",
    "fell",
    "over",
    "the",
    "hills",
    ".",
]
CATEGORIES = ["CharE", "RefE", "SceneE", "GramE"]


def synthetic(documents, segments, annotators, seed=0):
    rng = random.Random(seed)
    docs, people, suggestions, decisions = [], [], [], []
    for number in range(documents):
        texts = [" ".join(rng.choice(WORDS) for _ in range(30)) for _ in range(segments)]
        name = f"d{number}"
        docs.append(SpanDocument(id=name, system="sys", segments=texts))

        def spans(count, texts=texts):
            found = []
            for _ in range(count):
                segment = rng.randrange(segments)
                start = rng.randrange(len(texts[segment]) - 10)
                found.append(Span(rng.choice(CATEGORIES), segment, start, start + rng.randint(3, 10)))
            return found

        for person in range(annotators):
            arm = "suggestions" if person % 2 == 0 else "control"
            people.append(Annotation(annotator=f"w{number}-{person}", document=name, kind="main", arm=arm,
                                     spans=spans(rng.randint(2, 8)), active_seconds=rng.randint(60, 600)))  # fmt: skip
        if number % 4 == 0:
            people.append(Annotation(annotator="expert", document=name, kind="gold", spans=spans(6)))
        for key, span in enumerate(spans(6), start=1):
            suggestions.append(SuggestedSpan(name, key, span.category, span.segment, span.start, span.end))
            for person in range(0, annotators, 2):
                action = rng.choice(["accept", "reject", "change", "adjust"])
                decisions.append(Decision(name, f"w{number}-{person}", key, action, rng.uniform(1, 9)))
    study = SpanStudy(
        documents=docs, categories=[SpanCategory(key, key) for key in CATEGORIES], annotations=people
    )
    return study, suggestions, decisions


def timed(work):
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    work()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--segments", type=int, default=10)
    parser.add_argument("--annotators", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    study, suggestions, decisions = synthetic(options.documents, options.segments, options.annotators)
    spans = sum(len(a.spans) for a in study.annotations)
    print(f"{datetime.date.today()}, Python {platform.python_version()}, {options.documents} documents x "
          f"{options.segments} segments, {len(study.annotations)} annotations, {spans} spans, "
          f"{len(suggestions)} suggestions, {len(decisions)} decisions")  # fmt: skip
    figures = {"span report": [], "assistance": []}
    for _ in range(options.repeat):
        figures["span report"].append(timed(lambda: span_report(study)))
        figures["assistance"].append(timed(lambda: assistance_report(study, suggestions, decisions)))
    for name, runs in figures.items():
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        print(f"{name:>12}: wall {wall:.2f} s (min {min(r[0] for r in runs):.2f}), CPU {cpu:.2f} s")
    ratio = statistics.median(r[1] for r in figures["assistance"]) / statistics.median(
        r[1] for r in figures["span report"]
    )
    print(f"assistance / span report CPU: {ratio:.2f}")


if __name__ == "__main__":
    main()
