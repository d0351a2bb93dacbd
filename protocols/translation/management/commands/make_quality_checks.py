from django.core.management.base import BaseCommand, CommandError

from protocols.translation.degrade import MODES, REPLACE
from protocols.translation.keys import QUALITY_CHECK
from protocols.translation.quality_checks.making import QualityCheckError, quality_checks_make
from studies.models import Document, Study


class Command(BaseCommand):
    help = (
        "Make quality checks for a translation study (MQM, ESA, DA): degraded copies of a share of its "
        "documents, handed out in the stream like attention checks (docs/translation-studies.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--share", type=float, default=0.1,
                            help="Share of the main documents that get a check (default 0.1).")  # fmt: skip
        parser.add_argument(
            "--seed", type=int, default=0, help="The same seed makes the same checks (default 0)."
        )
        parser.add_argument("--mode", choices=MODES, default=REPLACE,
                            help="Replace a phrase by one from another document, or drop it (default replace).")  # fmt: skip
        parser.add_argument("--segments", type=int, default=1,
                            help="Segments degraded in each copy (default 1).")  # fmt: skip
        parser.add_argument("--every", type=int, default=None,
                            help="A check after every N main documents (default: the study's attention_every, "
                                 "or round(1 / share) when it has none).")  # fmt: skip
        told = parser.add_mutually_exclusive_group()
        told.add_argument("--announced", action="store_true", help="Tell workers that quality checks exist.")
        told.add_argument("--silent", action="store_true", help="Do not tell them (the default).")

    def handle(self, slug, share, seed, mode, segments, every, announced, silent, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        try:
            made = quality_checks_make(
                study=study, share=share, seed=seed, mode=mode, segments=segments, every=every,
                announced=True if announced else (False if silent else None),
            )  # fmt: skip
        except QualityCheckError as error:
            raise CommandError(str(error)) from None
        for check in made.created:
            gold = check.meta[QUALITY_CHECK]["segments"]
            where = ", ".join(f"segment {g['index']} [{g['start']}, {g['end']})" for g in gold)
            self.stdout.write(f"{check.external_id}\t{check.meta[Document.COPY_OF]}\t{where}")
        for original, why in made.skipped:
            self.stderr.write(f"{original}: no check made ({why})")
        every = f"{made.every} main documents" if made.every != 1 else "main document"
        told = "announced to workers." if made.announced else "silent (workers are not told)."
        self.stderr.write(
            f"{len(made.created)} new check(s); {made.existing + len(made.created)} of the {made.wanted} the share "
            f"asks for exist. A check after every {every}, {told}"
        )
