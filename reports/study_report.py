"""The report of one study as JSON-ready data: the same for the job and the command."""

from studies import protocols


def study_report_data(study, progress=None):
    """Compute the report of `study` (DESIGN.md "Report JSON"; docs/reports.md).

    The body is the study protocol's (Protocol.report); the header is the same for all.
    """
    progress = progress or (lambda fraction: None)
    header = {"study": study.slug, "protocol": study.protocol}
    return {**header, **protocols.of(study).report(study, progress)}
