from django.core.management.base import BaseCommand, CommandError

from bundles import BundleInvalid
from bundles.services import study_import_bundle


class Command(BaseCommand):
    help = "Check a study bundle directory, then import it as a new study (all or nothing)."

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument(
            "--locate",
            action="store_true",
            help="Find spans given only as text (first occurrence in their segment).",
        )

    def handle(self, directory, locate, **options):
        try:
            result = study_import_bundle(directory=directory, locate=locate)
        except BundleInvalid as invalid:
            self.stderr.write(invalid.describe())  # every problem a line, then the summary
            raise CommandError(f"{len(invalid.problems)} problem(s); nothing was imported") from None
        self.stdout.write(f"imported {result.describe()}")
        for warning in result.warnings:
            self.stdout.write(str(warning))
