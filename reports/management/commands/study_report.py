import json

from django.core.management.base import BaseCommand, CommandError

from reports.study_report import study_report_data
from studies.models import Study


class Command(BaseCommand):
    help = "Compute a study's report synchronously (the same code as the Celery job) and write it as JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--output", required=True, help="JSON file to write ('-' for standard output).")

    def handle(self, slug, output, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        text = json.dumps(study_report_data(study), ensure_ascii=False, indent=2, sort_keys=True)
        if output == "-":
            self.stdout.write(text)
        else:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            self.stderr.write(f"wrote {output}")
