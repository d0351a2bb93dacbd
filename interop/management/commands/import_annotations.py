from django.core.management.base import BaseCommand, CommandError

from bundles import BundleInvalid
from interop.formats.registry import FormatUnavailable, OptionInvalid, names, parsed_options
from interop.services import INTO, SPAN, study_import_annotations


def positive(text):
    value = int(text)
    if not 1 <= value <= 100:
        raise ValueError(text)
    return value


class Command(BaseCommand):
    help = (
        "Check another tool's annotation file (Label Studio, doccano, factgenie, Potato), then import it "
        "as a new span study, or its evaluators' annotations as a review study; or an MQM TSV file (mqm-tsv) "
        "as a new MQM study (all or nothing)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--format", required=True, choices=names(), dest="fmt")
        parser.add_argument("--slug", required=True, help="The new study's slug.")
        parser.add_argument(
            "--into", choices=list(INTO), default=SPAN,
            help="span: a span study of every annotation (default); review: a review study whose items are "
            "the evaluators' (model) annotations, for people to judge.",
        )  # fmt: skip
        parser.add_argument(
            "--taxonomy", help="A study.yaml whose taxonomy (title, instructions, config) the study takes; "
            "without it, one category per label found. With --into review, a review study.yaml (its questions).",
        )  # fmt: skip
        parser.add_argument(
            "--sentences-per-segment", type=positive, default=None,
            help="Cut each document into segments of N sentences (1-100); default: a document is one segment.",
        )  # fmt: skip
        parser.add_argument(
            "--option", action="append", default=[], metavar="NAME=VALUE", dest="format_options",
            help="An option, repeatable: every format repeats=retest (default) or latest, what a person's "
            "repeated annotations of an item become; doccano offsets=utf-16 or code-points; factgenie "
            "outputs=FILE; label-studio text_field=FIELD; mqm-tsv title=TITLE (and no repeats).",
        )  # fmt: skip
        parser.add_argument("--text-field", help="Label Studio: the field of data that holds the text.")

    def handle(
        self, file, fmt, slug, into, taxonomy, sentences_per_segment, format_options, text_field, **options
    ):
        if text_field is not None:
            format_options = [*format_options, f"text_field={text_field}"]
        try:
            done = study_import_annotations(
                path=file, fmt=fmt, slug=slug, settings_path=taxonomy,
                sentences_per_segment=sentences_per_segment, options=parsed_options(fmt, format_options), into=into,
            )  # fmt: skip
        except (FormatUnavailable, OptionInvalid) as refused:
            raise CommandError(str(refused)) from None
        except BundleInvalid as invalid:
            self.stderr.write(invalid.describe())  # every problem a line, then the summary
            raise CommandError(f"{len(invalid.problems)} problem(s); nothing was imported") from None
        self.stdout.write(f"imported {done.describe()}")
        for note in done.notes:
            self.stdout.write(f"note: {note}")
        for warning in done.result.warnings:
            self.stdout.write(str(warning))
