from django.core.management.base import BaseCommand, CommandError

from accounts.models import Worker
from annotations.services import NOT_ASSIGNED, AssignmentPlanError, assignments_generate
from studies.models import Study


class Command(BaseCommand):
    help = "Assign every main document of a study to K of the given workers; print their task links."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--workers", required=True, help="Comma-separated worker ids.")
        parser.add_argument("--per-document", type=int, default=None,
                            help="Annotators per document (default: the study's).")  # fmt: skip
        parser.add_argument("--platform", default=Worker.Platform.LINK,
                            choices=Worker.Platform.values)  # fmt: skip

    def handle(self, slug, workers, per_document, platform, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study with slug '{slug}'")
        try:
            plan = assignments_generate(study=study, worker_ids=workers.split(","),
                                        per_document=per_document, platform=platform)  # fmt: skip
        except AssignmentPlanError as error:
            raise CommandError(str(error)) from None
        for assignment in plan.created:
            target = (
                assignment.document.external_id if assignment.document_id else f"block:{assignment.block}"
            )
            self.stdout.write(f"{assignment.worker.external_id}\t{target}\t{assignment.task_path}")
        for document, missing in plan.short.items():
            self.stderr.write(f"{document}: still needs {missing} annotator(s) (workers at their limit)")
        for document in plan.empty:
            self.stderr.write(f"{document}: {NOT_ASSIGNED}")
