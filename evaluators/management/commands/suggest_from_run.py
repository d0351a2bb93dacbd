"""Use an evaluator run's spans as the suggestions of its study (docs/assisted-annotation.md)."""

from django.core.management.base import BaseCommand, CommandError

from evaluators.models import EvaluatorRun
from evaluators.suggesting import REFUSED, use_run_as_suggestions


class Command(BaseCommand):
    help = "Make the spans of a finished evaluator run the suggestions its study's suggestion arm sees."

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="The run's id (admin, or GET /api/evaluator-runs/).")

    def handle(self, run, **options):
        found = EvaluatorRun.objects.select_related("evaluator__study").filter(pk=run).first()
        if found is None:
            raise CommandError(f"no evaluator run {run}")
        try:
            count, documents = use_run_as_suggestions(found)
        except REFUSED as refused:
            raise CommandError(str(refused)) from None
        study = found.evaluator.study
        self.stdout.write(f"{study.slug}: {count} suggestions on {documents} documents from run {run}.")
        if not isinstance(study.config.get("assistance"), dict):
            self.stdout.write(
                "Note: the study's config has no 'assistance', so no worker is drawn into the suggestion arm "
                "and nobody sees them (docs/assisted-annotation.md)."
            )
