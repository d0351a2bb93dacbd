"""Import an MQM TSV file as a new MQM study (docs/translation-studies.md).

python manage.py import_mqm data/wmt-mqm-ted/mqm_ted_ende.tsv.gz --study ted-ende --title "TED en-de"
python manage.py import_mqm FILE.tsv --study SLUG --weights weights.yaml --study-yaml study.yaml
"""

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError

from bundles import BundleInvalid
from interop.services import study_import_annotations


class Command(BaseCommand):
    help = (
        "Check an MQM TSV file (system, doc, doc_id, seg_id, rater, source, target, category, severity), then "
        "import it as a new MQM study: a document per system and doc, a submitted assignment per rater and "
        "document, an error per error line (all or nothing)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="An MQM TSV file (.tsv or .tsv.gz) as public MQM releases give them."
        )
        parser.add_argument("--study", required=True, dest="slug", help="The new study's slug.")
        parser.add_argument("--title", help="The new study's title (default: 'MQM ratings of FILE').")
        parser.add_argument(
            "--weights",
            help="A YAML or JSON file of MQM weights, as mqm_scores takes (default: the common scheme).",
        )
        parser.add_argument(
            "--study-yaml", dest="study_yaml", help="A study.yaml of the study's title, instructions, status and config (severities, "
            "weights); the categories are the file's.",
        )  # fmt: skip

    def handle(self, file, slug, title, weights, study_yaml, **options):
        scheme = None
        if weights:
            try:
                scheme = yaml.safe_load(Path(weights).read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError) as error:
                raise CommandError(f"{weights}: not a weights file ({error})") from None
            if not isinstance(scheme, dict):
                raise CommandError(f"{weights}: not a weights file (a mapping of severities, categories, "
                                   "whole_segment)")  # fmt: skip
        try:
            done = study_import_annotations(
                path=file, fmt="mqm-tsv", slug=slug, settings_path=study_yaml,
                options={"title": title}, weights=scheme,
            )  # fmt: skip
        except BundleInvalid as invalid:
            self.stderr.write(invalid.describe())  # every problem a line
            raise CommandError(f"{len(invalid.problems)} problem(s); nothing was imported") from None
        except OSError as error:
            raise CommandError(f"{file}: cannot be read ({error})") from None
        self.stdout.write(f"imported {done.describe()}")
        for note in done.notes:
            self.stdout.write(f"note: {note}")
        for warning in done.result.warnings:
            self.stdout.write(str(warning))
