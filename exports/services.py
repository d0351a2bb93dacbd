"""Writes of exports: background export jobs and their files."""

import logging
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from falte_site.celery import task

from .models import Export
from .parquet import parquet_chunks
from .rows import csv_chunks, jsonl_lines, row_count

log = logging.getLogger(__name__)
WRITE_TASK = "exports.tasks.export_write_task"  # exports/tasks.py
# Each yields bytes: the CSV through the protocol's COPY fast path where there is one.
WRITERS = {
    Export.Format.CSV: csv_chunks,
    Export.Format.JSONL: lambda study, **options: (text.encode() for text in jsonl_lines(study, **options)),
    Export.Format.PARQUET: parquet_chunks,
}


@transaction.atomic
def export_request(*, study, user, format, with_platform_ids=False):
    """Queue an export job (for exports too large to stream in one request)."""
    export = Export.objects.create(
        study=study, requested_by=user, format=format, with_platform_ids=with_platform_ids
    )
    transaction.on_commit(lambda: task(WRITE_TASK).delay(export.pk))
    return export


def export_write(*, export_id):
    """Write the export's file under MEDIA_ROOT/exports/ (the job's body; safe to repeat)."""
    export = Export.objects.select_related("study").get(pk=export_id)
    if export.status == Export.Status.DONE:
        return export
    Export.objects.filter(pk=export_id).update(status=Export.Status.RUNNING)
    relative = Path("exports") / f"{export.study.slug}-annotations-{export.pk}.{export.format}"
    path = Path(settings.MEDIA_ROOT) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        rows = row_count(export.study)
        with open(path.with_suffix(".part"), "wb") as handle:
            for chunk in WRITERS[export.format](export.study, with_platform_ids=export.with_platform_ids):
                handle.write(chunk)
        path.with_suffix(".part").replace(path)  # a download never sees half a file
    except Exception as error:
        log.exception("export %s failed", export_id)
        Export.objects.filter(pk=export_id).update(
            status=Export.Status.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
    else:
        Export.objects.filter(pk=export_id).update(
            status=Export.Status.DONE, file=str(relative), rows=rows, finished_at=timezone.now()
        )
    export.refresh_from_db()
    return export
