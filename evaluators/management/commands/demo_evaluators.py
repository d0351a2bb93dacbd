"""Give the demo study two evaluators and run them with no network: a repetition detector and an
"LLM" answered by the local OpenAI-compatible server (evaluators/fake_llm.py)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from accounts.models import Worker
from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer, marking_responder
from evaluators.models import Evaluator
from evaluators.services import RunRefused, evaluator_run_request
from evaluators.suggesting import latest_finished_run, use_run_as_suggestions
from evaluators.summary import run_summary
from protocols.span.assistance.sources import SuggestionsRefused
from studies.models import Study

# What the demo's local "LLM" marks: some planted errors of demo/snac-demo/ERRORS.md, one partly.
DEMO_MARKS = {
    "Rosalie": "CharE", "Corentin": "CharE", "Ingrid": "CharE", "Marguerite": "CharE",
    "After the incident at the customs house": "RefE", "the the": "GramE", "Louvre": "SceneE",
}  # fmt: skip
DEMO_PORT = 8011


class Command(BaseCommand):
    help = (
        "Add a repetition detector and a local 'LLM' evaluator to the demo study and run both (no network)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", default="snac-demo")
        parser.add_argument(
            "--port", type=int, default=DEMO_PORT, help="Port of the local server (0: any free one)."
        )

    def handle(self, study, port, **options):
        found = Study.objects.filter(slug=study).first()
        if found is None:
            raise CommandError(f"no study '{study}': run load_demo first")
        Evaluator.objects.get_or_create(
            study=found, key="repetition",
            defaults={"kind": "builtin", "detector": "repetition", "options": {"category": "RepE", "n": 5},
                      "description": "Repeated 5-word sequences, marked as RepE with their first occurrence."},
        )  # fmt: skip
        try:
            server = FakeChatServer(responder=marking_responder(DEMO_MARKS), port=port).start()
        except OSError:
            server = FakeChatServer(responder=marking_responder(DEMO_MARKS)).start()
        # The demo's own setting: its local model server, and nothing else local, may be called.
        allowed = [*settings.OUTBOUND_ALLOWED_HOSTS, f"127.0.0.1:{server.port}"]
        try:
            llm, _ = Evaluator.objects.update_or_create(
                study=found, key="local-llm",
                defaults={"kind": "llm", "base_url": server.base_url, "model": "local-fake", "temperature": 0.0,
                          "seed": 1, "concurrency": 4, "price_input_per_1k": "0.15", "price_output_per_1k": "0.6",
                          "description": "A local OpenAI-compatible server that marks a fixed list of words."},
            )  # fmt: skip
            with override_settings(OUTBOUND_ALLOWED_HOSTS=allowed):
                for evaluator in found.evaluators.order_by("key"):
                    try:
                        run, _ = evaluator_run_request(evaluator=evaluator, here=True)
                    except RunRefused as refused:
                        raise CommandError(f"{evaluator.key}: {refused}") from None
                    run.refresh_from_db()
                    for line in run_summary(run):
                        self.stdout.write(f"  {line}")
        finally:
            server.stop()
        self.show_assistance(found, llm)

    def show_assistance(self, study, llm):
        """Turn the local LLM's spans into suggestions and print one task link for each arm."""
        run = latest_finished_run(llm)
        if run is None:
            return
        if not isinstance(study.config.get("assistance"), dict):
            study.config = {**study.config, "assistance": {"share": 0.5, "seed": 1}}
            study.save(update_fields=["config"])
        try:
            count, documents = use_run_as_suggestions(run)
            self.stdout.write(
                f"  suggestions: {count} on {documents} documents from run {run.pk} of {llm.key}"
                " (one per place an error was found)"
            )
        except SuggestionsRefused:
            pass  # decided on in an earlier demo session: kept as they are
        document = study.documents.filter(kind="main").order_by("position").first()
        self.stdout.write("Assisted annotation (docs/assisted-annotation.md), one task link per arm:")
        for arm in ("suggestions", "control"):
            worker, _ = Worker.objects.get_or_create(platform=Worker.Platform.LINK, external_id=f"demo-{arm}")
            assignment, _ = Assignment.objects.get_or_create(
                study=study,
                document=document,
                worker=worker,
                kind=Assignment.Kind.MAIN,
                defaults={"arm": arm},
            )
            self.stdout.write(f"  {arm}\t{document.external_id}\t{settings.SITE_URL}{assignment.task_path}")
