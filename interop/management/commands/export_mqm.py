"""Write an MQM or ESA study as an MQM TSV file (docs/translation-studies.md); the same as
`export_annotations SLUG OUT --format mqm-tsv`."""

from django.core.management.base import BaseCommand, CommandError

from interop.mqm import NotErrorSpans
from interop.services import study_export_annotations
from studies.models import Study


class Command(BaseCommand):
    help = "Write an MQM or ESA study as MQM TSV: a line per error, a No-error line per rated segment without one."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("out", help="The file to write (.gz: compressed).")
        parser.add_argument(
            "--pseudonyms", action="store_true",
            help="Name raters by their pseudonym in the study, as analysts see them.",
        )  # fmt: skip

    def handle(self, slug, out, pseudonyms, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        try:
            done = study_export_annotations(study=study, fmt="mqm-tsv", path=out, identities=not pseudonyms)
        except NotErrorSpans as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"exported {slug} as MQM TSV to {out}: {done.describe()}")
