import time

from django.core.management.base import BaseCommand, CommandError

from bundles.problems import BundleInvalid
from evaluators.models import Evaluator, EvaluatorResult
from evaluators.predictions import evaluator_predictions_import
from evaluators.services import RunNotSent, RunRefused, evaluator_run_request
from evaluators.summary import run_summary
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Run an evaluator of a span study over its documents (a Celery job; with no broker it runs here), "
        "or load an imported evaluator's predictions."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("key", help="The evaluator's key.")
        parser.add_argument(
            "--documents", nargs="+", metavar="ID", help="External ids of documents (default: all main)."
        )
        parser.add_argument(
            "--predictions", metavar="FILE", help="Imported evaluators: the predictions file (JSONL)."
        )
        parser.add_argument("--wait", action="store_true", help="With a broker: wait until the run finishes.")

    def handle(self, study, key, documents=None, predictions=None, wait=False, **options):
        found = Study.objects.filter(slug=study).first()
        if found is None:
            raise CommandError(f"no study with slug '{study}'")
        evaluator = Evaluator.objects.filter(study=found, key=key).first()
        if evaluator is None:
            keys = ", ".join(found.evaluators.values_list("key", flat=True)) or "none"
            raise CommandError(f"study {study} has no evaluator '{key}' (it has: {keys})")
        try:
            if predictions:
                run = evaluator_predictions_import(evaluator=evaluator, path=predictions)
            elif evaluator.kind == Evaluator.Kind.IMPORT:
                raise CommandError(f"{key} is an imported evaluator: give its file with --predictions FILE")
            else:
                run, created = evaluator_run_request(evaluator=evaluator, documents=documents, here=True)
                if not created:
                    self.stderr.write(f"run {run.pk} of {key} is already {run.status}; showing that one")
        except BundleInvalid as error:
            raise CommandError(f"nothing was loaded:\n{error.describe()}") from None
        except (RunRefused, RunNotSent) as error:
            raise CommandError(str(error)) from None
        run.refresh_from_db()
        while wait and run.is_active:
            time.sleep(1)
            run.refresh_from_db()
        for line in run_summary(run):
            self.stdout.write(line)
        if run.status == run.Status.FAILED:
            raise CommandError(f"run {run.pk} failed: {run.error}")
        if run.results.filter(status=EvaluatorResult.Status.FAILED).exists():
            self.stderr.write(
                "some documents failed; run again to retry them (answered ones come from the cache)"
            )
