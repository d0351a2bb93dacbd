"""What the report page shows, taken from a finished report's JSON.

The body of the page is the study protocol's: its report_template, filled
with its report_context(result).
"""

from studies import protocols


def report_page_context(report):
    result = report.result or {}
    if report.status != "done":
        return {"ready": False}
    try:
        protocol = protocols.get(result.get("protocol") or report.study.protocol)
    except protocols.UnknownProtocol:
        return {"ready": False}
    context = protocol.report_context(result)
    if context is None:
        return {"ready": False}
    return {"ready": True, "section_template": protocol.report_template, **context}
