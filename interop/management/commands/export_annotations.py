from django.core.management.base import BaseCommand, CommandError

from interop.exporting import NotSpans
from interop.formats.registry import FormatUnavailable, names
from interop.mqm import NotErrorSpans
from interop.services import study_export_annotations
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a span study in another tool's format (Label Studio, doccano, factgenie, Potato, hf), "
        "or an MQM or ESA study as MQM TSV (mqm-tsv)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("out", help="The file (or directory, for a format that is one) to write.")
        parser.add_argument("--format", required=True, choices=names(), dest="fmt")
        parser.add_argument(
            "--pseudonyms", action="store_true",
            help="Name annotators by their pseudonym in the study, as analysts see them.",
        )  # fmt: skip

    def handle(self, slug, out, fmt, pseudonyms, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        try:
            corpus = study_export_annotations(study=study, fmt=fmt, path=out, identities=not pseudonyms)
        except (FormatUnavailable, NotSpans, NotErrorSpans) as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"exported {slug} as {fmt} to {out}: {corpus.describe()}")
