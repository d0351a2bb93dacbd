"""The report of one study as JSON-ready data: the same for the job and the command."""

from qualification.selectors import qualification_report
from reports.loading import span_study_for
from reports.metrics.ratings import rating_report
from reports.metrics.spans import span_report
from reports.rating_loading import rating_study_for
from reports.review_loading import review_report_for
from studies.models import Study


def study_report_data(study, progress=None):
    """Compute the report of `study` (DESIGN.md "Report JSON"; docs/reports.md)."""
    progress = progress or (lambda fraction: None)
    header = {"study": study.slug, "protocol": study.protocol}
    if study.protocol in (Study.Protocol.LIKERT, Study.Protocol.BWS):
        data = rating_study_for(study)
        progress(0.3)
        return {**header, **rating_report(data)}
    if study.protocol == Study.Protocol.REVIEW:
        return {**header, **review_report_for(study)}
    data = span_study_for(study)
    progress(0.2)
    result = span_report(data, progress=lambda fraction: progress(0.2 + 0.8 * fraction))
    qualification = qualification_report(study)
    if qualification is not None:
        result["qualification"] = qualification
    return {**header, **result}
