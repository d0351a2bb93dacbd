"""Load the demo studies, a researcher login and three demo workers' task links.

The demo studies: SNaC (span annotation of book summaries, the first one), and two translation
studies, German to English, with two raters' work in them (ESA and MQM), so the console shows
their reports; the demo workers each get a third rater's documents.

`make demo` runs it with --evaluators: the demo's evaluators then run too
(evaluators' demo_evaluators, called by name so this app does not import that
one), and the login comes last, where it does not scroll away under their output.
"""

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from accounts.models import StudyMembership
from accounts.services import researcher_create
from annotations.models import Assignment
from annotations.services import assignments_generate
from bundles.services import study_import_bundle
from studies.models import Study

DEMO = Path(settings.BASE_DIR) / "demo"
DEMO_BUNDLE = DEMO / "snac-demo"
DEMO_BUNDLES = (DEMO_BUNDLE, DEMO / "esa-demo", DEMO / "mqm-demo")  # the first one's task links come first
DEMO_WORKERS = ["demo-worker-1", "demo-worker-2", "demo-worker-3"]


class Command(BaseCommand):
    help = "Import the demo studies (once), create the 'researcher' login and print task links."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="researcher")
        parser.add_argument(
            "--evaluators", action="store_true", help="Also add and run the demo's evaluators (no network)."
        )
        parser.add_argument(
            "--model-port",
            type=int,
            default=8011,
            help="Port of the demo's local model server (0: any free one).",
        )

    def handle(self, username, evaluators, model_port, **options):
        studies = []
        for bundle in DEMO_BUNDLES:
            study = Study.objects.filter(slug=bundle.name).first()
            if study is None:
                study = study_import_bundle(directory=bundle).study
                self.stdout.write(f"Imported the demo study '{study.title}'.")
            studies.append(study)
        password = secrets.token_urlsafe(12)
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user = researcher_create(username=username, password=password)
        else:  # a fresh password every run, printed below; there is no default one
            user.set_password(password)
            user.save(update_fields=["password"])
        for study in studies:
            StudyMembership.objects.get_or_create(study=study, user=user)
            assignments_generate(study=study, worker_ids=DEMO_WORKERS)

        for study in studies:
            self.stdout.write("")
            self.stdout.write(f"Task links of the demo workers ({study.slug}):")
            assignments = (
                Assignment.objects.filter(study=study, worker__external_id__in=DEMO_WORKERS)
                .select_related("worker", "document")
                .order_by("worker__external_id", "document__position")
            )
            for assignment in assignments:
                self.stdout.write(
                    f"  {assignment.worker.external_id}\t{assignment.document.external_id}\t"
                    f"{settings.SITE_URL}{assignment.task_path}"
                )
        if evaluators:  # the SNaC study's
            self.stdout.write("")
            self.stdout.write("The demo's evaluators (docs/evaluators.md):")
            call_command("demo_evaluators", study=studies[0].slug, port=model_port, stdout=self.stdout)
        self.stdout.write("")
        self.stdout.write(f"Researcher console: {settings.SITE_URL}/console/")
        self.stdout.write(f"  username: {username}")
        self.stdout.write(f"  password: {password}  (a new one each run)")
