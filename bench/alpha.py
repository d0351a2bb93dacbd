"""Benchmark: Krippendorff's alpha and the span-study report at scale.

Alpha: 3 coders x 1,000,000 units, 5% missing (seeded), binary nominal and
10-valued ordinal. Times ``reports.metrics.krippendorff_alpha`` against the
``krippendorff`` package (a test-only reference) on the same array in the
same process: best of a few runs for time, and a separate call with
tracemalloc started just before it for the peak of memory allocated by the
call (the input array is allocated before). Targets: ratio ours/theirs
<= 1.0 for time and <= 0.5 for memory.

Span report: a synthetic study of 3,000 documents x 30 segments x 3
annotators (about 270,000 spans) built in memory; prints time and
tracemalloc peak (target: well under 60 s and 1.5 GB), and the process's
peak RSS, which includes the synthetic study itself (it runs first).

    .venv/bin/python bench/alpha.py [--repeat 3] [--skip-spans] [--documents 3000]
"""

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reports.metrics import krippendorff_alpha  # noqa: E402
from reports.metrics.spans import Annotation, Span, SpanCategory, SpanDocument, SpanStudy, span_report  # noqa: E402

WORDS = (
    "the",
    "old",
    "miller",
    "said",
    "that",
    "Anna",
    "had",
    "never",
    "seen",
    "a",
    "river",
    ",",
    "and",
    "Ben",
)
CATEGORIES = [
    SpanCategory("CharE", "coherence", False),
    SpanCategory("RefE", "coherence", False),
    SpanCategory("SceneE", "coherence", False),
    SpanCategory("InconE", "coherence", True),
    SpanCategory("RepE", "language", True),
    SpanCategory("GramE", "language", False),
    SpanCategory("CorefE", "language", False),
]


def measure(function, repeat):
    """Best wall time of ``repeat`` runs, then the tracemalloc peak of one more run."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, best, peak


def bench_alpha(repeat):
    import krippendorff

    rng = np.random.default_rng(20261121)
    for name, values, level in (("binary nominal", 2, "nominal"), ("10-valued ordinal", 10, "ordinal")):
        data = rng.integers(0, values, size=(3, 1_000_000)).astype(np.float64)
        data[rng.random(data.shape) < 0.05] = np.nan
        ours, our_time, our_peak = measure(lambda d=data, lv=level: krippendorff_alpha(d, lv), repeat)
        theirs, their_time, their_peak = measure(
            lambda d=data, lv=level: krippendorff.alpha(reliability_data=d, level_of_measurement=lv), repeat
        )
        agree = abs(ours.alpha - theirs) <= 1e-9
        print(f"{name}: 3 coders x 1,000,000 units, 5% missing")
        print(f"  ours   {our_time:8.3f} s  {our_peak / 2**20:9.1f} MiB  alpha {ours.alpha:.12f}")
        print(f"  theirs {their_time:8.3f} s  {their_peak / 2**20:9.1f} MiB  alpha {theirs:.12f}")
        print(
            f"  ratio time {our_time / their_time:.3f} (target <= 1.0), "
            f"memory {our_peak / their_peak:.3f} (target <= 0.5), alphas agree to 1e-9: {agree}"
        )


def synthetic_study(documents, segments, annotators, seed=7):
    """Documents of ``segments`` segments of three sentences, annotated by ``annotators`` workers each.

    Every segment holds about one "real" error; each annotator marks it with
    probability 0.6 (with jittered boundaries, sometimes another category)
    and adds about 0.4 spans of their own: ~1 span a segment and annotator.
    """
    rng = np.random.default_rng(seed)
    keys = [category.key for category in CATEGORIES]
    study_documents = []
    annotations = []
    for number in range(documents):
        texts, sentences, errors = [], [], []
        for _ in range(segments):
            parts, bounds, position = [], [], 0
            for _ in range(3):
                sentence = " ".join(rng.choice(WORDS, size=int(rng.integers(8, 20)))) + "."
                if parts:
                    position += 1
                bounds.append((position, position + len(sentence)))
                parts.append(sentence)
                position += len(sentence)
            text = " ".join(parts)
            texts.append(text)
            sentences.append(bounds)
            errors.append([_random_span(rng, keys, len(text)) for _ in range(int(rng.poisson(1.0)))])
        document = SpanDocument(f"d{number}", f"system-{number % 4}", texts, sentences)
        study_documents.append(document)
        for annotator in range(annotators):
            spans = []
            for segment, text in enumerate(texts):
                for category, start, end in errors[segment]:
                    if rng.random() < 0.6:
                        if rng.random() < 0.15:
                            category = keys[int(rng.integers(0, len(keys)))]
                        start = min(max(0, start + int(rng.integers(-6, 7))), len(text) - 1)
                        end = min(len(text), max(start + 1, end + int(rng.integers(-6, 7))))
                        spans.append(Span(category, segment, start, end))
                for _ in range(int(rng.poisson(0.4))):
                    category, start, end = _random_span(rng, keys, len(text))
                    spans.append(Span(category, segment, start, end))
            visited = list(range(segments)) + [int(s) for s in rng.integers(0, segments, size=3)]
            annotations.append(
                Annotation(
                    f"worker-{(number + annotator) % 60}",
                    document.id,
                    "main",
                    spans,
                    active_seconds=int(rng.integers(300, 1500)),
                    segments_visited=visited,
                )
            )
    return SpanStudy(study_documents, CATEGORIES, annotations)


def _random_span(rng, keys, length):
    start = int(rng.integers(0, length - 1))
    return keys[int(rng.integers(0, len(keys)))], start, min(length, start + int(rng.integers(2, 50)))


def bench_spans(documents, segments, annotators):
    study = synthetic_study(documents, segments, annotators)
    spans = sum(len(annotation.spans) for annotation in study.annotations)
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        report = span_report(study)
        best = min(best, time.perf_counter() - started)
    tracemalloc.start()
    span_report(study)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"span_report: {documents:,} documents x {segments} segments x {annotators} annotators")
    print(
        f"  {spans:,} spans; {report['units']['tokens']:,} tokens, {report['units']['sentences']:,} sentences"
    )
    print(
        f"  time {best:.2f} s, tracemalloc peak {peak / 2**20:.1f} MiB (target: well under 60 s and 1.5 GB)"
    )
    print(f"  process peak RSS (synthetic study in memory included) {rss:.0f} MiB")
    for key, values in report["categories"].items():
        print(
            f"  {key:7} token alpha {values['token_alpha']:.3f} [union {values['token_alpha_union']:.3f}]"
            f"  two-agree {values['two_agree_pct']:.1f}% [{values['two_agree_pct_union']:.1f}%]"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-spans", action="store_true")
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--annotators", type=int, default=3)
    args = parser.parse_args()
    if not args.skip_spans:  # first, so that the peak RSS is the span report's
        bench_spans(args.documents, args.segments, args.annotators)
    bench_alpha(args.repeat)


if __name__ == "__main__":
    main()
