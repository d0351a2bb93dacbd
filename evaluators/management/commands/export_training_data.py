import math
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluators.training import FORMATS, GROUP_BY, REFERENCES, SPLITS, training_data_export, training_paths
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a span study's labelled sentences, segments and union spans, with a document-level "
        "train/dev/test split, as JSON Lines and/or Parquet (docs/training-data.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("out", help="Directory to write into (made when missing).")
        parser.add_argument("--format", choices=[*FORMATS, "both"], default="both")
        parser.add_argument(
            "--split", default="0.8,0.1,0.1", help="Fractions of train,dev,test; they sum to 1."
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--group-by",
            choices=GROUP_BY,
            default="document",
            help="input: one input's outputs share a split.",
        )
        parser.add_argument("--reference", choices=list(REFERENCES), default="people")
        parser.add_argument("--force", action="store_true", help="Overwrite the files of an earlier export.")

    def handle(self, slug, out, **options):
        fractions = _fractions(options["split"])
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        if study.protocol != "span":
            raise CommandError(
                f"study '{slug}' is a {study.protocol} study; training data comes from span studies"
            )
        formats = list(FORMATS) if options["format"] == "both" else [options["format"]]
        if Path(out).exists() and not Path(out).is_dir():
            raise CommandError(f"{out} is a file, not a directory")
        existing = [path.name for path in training_paths(out, formats) if path.exists()]
        if existing and not options["force"]:
            raise CommandError(f"{', '.join(existing)} already in {out}; pass --force to overwrite")

        result = training_data_export(
            study=study, directory=out, formats=formats, fractions=fractions, seed=options["seed"],
            group_by=options["group_by"], reference=options["reference"],
        )  # fmt: skip
        for table, count in result["rows"].items():
            self.stdout.write(f"{table}: {count} rows")
        sizes = ", ".join(f"{split} {len(result['documents'][split])}" for split in SPLITS)
        self.stdout.write(
            f"documents: {sizes}; left out (no {options['reference']} annotation): {len(result['left_out'])}"
        )
        self.stdout.write(f"wrote {out}")


def _fractions(text):
    try:
        fractions = [float(part) for part in text.split(",")]
    except ValueError:
        raise CommandError(f"--split takes {len(SPLITS)} numbers like 0.8,0.1,0.1, not '{text}'") from None
    if len(fractions) != len(SPLITS):
        raise CommandError(f"--split takes {len(SPLITS)} fractions (train,dev,test), not {len(fractions)}")
    if not all(math.isfinite(fraction) and fraction >= 0 for fraction in fractions):
        raise CommandError(f"--split fractions are between 0 and 1, not '{text}'")
    if not math.isclose(sum(fractions), 1, abs_tol=1e-9):
        raise CommandError(f"--split fractions sum to 1, not {sum(fractions):g}")
    return fractions
