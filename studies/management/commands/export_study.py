from django.core.management.base import BaseCommand, CommandError

from bundles.services import study_export_bundle
from studies.models import Study


class Command(BaseCommand):
    help = "Write a study as a bundle directory (study.yaml, documents.jsonl, assignments.jsonl, annotations.csv)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("directory")

    def handle(self, slug, directory, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        study_export_bundle(study=study, directory=directory)
        self.stdout.write(f"exported {slug} to {directory}")
