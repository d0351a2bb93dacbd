"""Per-system MQM scores of an MQM TSV file, ranked with significance (no study needed).

    python manage.py mqm_scores data/wmt-mqm-ted/mqm_ted_ende.tsv.gz
    python manage.py mqm_scores FILE --weights weights.yaml --test wilcoxon --csv ranking.csv

The scores follow reports/metrics/mqm.py (the common weights unless --weights names
others); the ranking, intervals and clusters reports/metrics/ranking.py.
"""

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError

from exports.publish import csv_text, latex_table, ranking_table
from interop.formats.mqm_tsv import MQMFileInvalid, read
from reports.metrics.mqm import (
    WeightMissing,
    Weights,
    category_points,
    segment_items,
    segment_scores,
    severity_counts,
    system_scores,
)
from reports.metrics.ranking import TESTS, item_means, rank_stability, rank_systems

SCORE_LABEL = "MQM (error points per segment)"


class Command(BaseCommand):
    help = "Score an MQM TSV file per system and rank the systems with significance."

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="An MQM TSV file (.tsv or .tsv.gz) as public MQM releases give them."
        )
        parser.add_argument("--weights", help="A YAML or JSON file of weights (docs/translation-studies.md).")
        parser.add_argument("--test", choices=list(TESTS), default="permutation")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--csv", help="Also write the ranking table as CSV to this file.")
        parser.add_argument("--latex", help="Also write the ranking table as LaTeX (booktabs) to this file.")

    def handle(self, file, weights, test, resamples, alpha, seed, csv, latex, **options):
        if resamples < 1:
            raise CommandError("--resamples must be 1 or more")
        scheme = Weights()
        if weights:
            try:
                scheme = Weights.from_config(yaml.safe_load(Path(weights).read_text(encoding="utf-8")))
            except (OSError, yaml.YAMLError, AttributeError, TypeError, ValueError) as error:
                raise CommandError(f"{weights}: not a weights file ({error})") from None
        try:
            lines, _ = read(file, name=Path(file).name)
        except MQMFileInvalid as invalid:
            raise CommandError("\n".join(invalid.problems)) from None
        except (OSError, UnicodeDecodeError, EOFError) as error:
            raise CommandError(f"{file}: cannot be read ({error})") from None
        judgments = [line.judgment for line in lines]
        try:
            scores = segment_scores(judgments, scheme)
        except WeightMissing as missing:
            raise CommandError(f"{file}: {missing}; give it in --weights") from None
        published = system_scores(scores)
        ranking = rank_systems(
            item_means(segment_items(scores)), higher_is_better=False, test=test, resamples=resamples,
            alpha=alpha, seed=seed,
        )  # fmt: skip
        # The published figure is the mean over (segment, rater) pairs; the ranking's score is the
        # mean over segments of their raters' mean, the same when each segment has one rater.
        for row in ranking["systems"]:
            row["score"], row["items"] = published[row["system"]]
        ranking["stability"] = rank_stability(
            (
                (system, (document, segment), rater, score)
                for (system, document, segment, rater), score in scores.items()
            ),
            seed=seed,
        )
        self.show(file, lines, scheme, ranking, severity_counts(judgments))
        self.show_categories(ranking, category_points(judgments, scheme))
        table = ranking_table(ranking, score_label=SCORE_LABEL)
        if csv:
            Path(csv).write_text(csv_text(table), encoding="utf-8")
        if latex:
            Path(latex).write_text(
                latex_table(table, prefix=Path(file).name.split(".")[0]) + "\n", encoding="utf-8"
            )

    def show_categories(self, ranking, points):
        """Each system's MQM split by top-level category (the parts add up to its MQM)."""
        categories = sorted({name for by_category in points.values() for name in by_category})
        width = max(len(row["system"]) for row in ranking["systems"])
        widths = [max(7, len(name)) for name in categories]
        self.stdout.write("MQM by category (error points per segment; they add up to the MQM):")
        self.stdout.write(
            f"{'system':<{width}}" + "".join(f"  {n:>{w}}" for n, w in zip(categories, widths, strict=True))
        )
        for row in ranking["systems"]:
            parts = points.get(row["system"], {})
            self.stdout.write(f"{row['system']:<{width}}" + "".join(
                f"  {parts.get(n, 0.0):>{w}.3f}" for n, w in zip(categories, widths, strict=True)))  # fmt: skip

    def show(self, file, lines, scheme, ranking, severities):
        write = self.stdout.write
        segments = len({(line.doc, line.seg_id) for line in lines})
        write(
            f"{Path(file).name}: {len(lines):,} lines, {len(ranking['systems'])} systems, {segments:,} segments"
        )
        for line in lines:
            if line.unclosed:
                write(f"  note: line {line.number}: a <v> never closed; its span runs to the end of the text")
        weights = ", ".join(f"{name.title()} {weight:g}" for name, weight in scheme.severities.items())
        special = [
            f"{severity.title()} {category.title()} {weight:g}"
            for (category, severity), weight in scheme.categories.items()
        ]
        special += [f"{category.title()} {weight:g}" for category, weight in scheme.whole_segment.items()]  # fmt: skip
        write(f"weights: {', '.join([weights, *special])}")
        names = sorted({name for counts in severities.values() for name in counts})
        width = max(len(row["system"]) for row in ranking["systems"])
        header = f"{'rank':>4}  {'cluster':>7}  {'system':<{width}}  {'MQM':>7}  {'95% interval':>15}  {'segments':>8}"
        write(header + "".join(f"  {name:>7}" for name in names))
        for row in ranking["systems"]:
            interval = f"{row['low']:.3f} to {row['high']:.3f}"
            counts = severities.get(row["system"], {})
            write(f"{row['rank']:>4}  {row['cluster']:>7}  {row['system']:<{width}}  {row['score']:>7.3f}  "
                  f"{interval:>15}  {row['items']:>8}" + "".join(f"  {counts.get(name, 0):>7}" for name in names))  # fmt: skip
        separated = sum(pair["significant"] for pair in ranking["pairs"])
        resamples = f", {ranking['resamples']:,} resamples" if ranking["resamples"] else ""
        write(f"{ranking['test']}{resamples}, seed {ranking['seed']}, p < {ranking['alpha']}: "
              f"{separated} of {len(ranking['pairs'])} pairs separated; lower MQM is better")  # fmt: skip
        stability = ranking["stability"]
        if stability["mean"] is None:
            write(f"rank stability: none ({stability['reason']})")
        else:
            write(f"rank stability: Kendall tau between the rankings of two halves of the {stability['raters']} raters, "
                  f"mean {stability['mean']:.3f} over {stability['splits']} splits "
                  f"(95% of splits {stability['low']:.3f} to {stability['high']:.3f})")  # fmt: skip
