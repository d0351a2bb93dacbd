"""What the report page shows, taken from a finished report's JSON.

The body of the page is the study protocol's: its report_template, filled
with its report_context(result); each extension with a part in the report
adds its section after it (Extension.report_template and report_context).
"""

from studies import extensions, protocols


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
    sections = []
    for extension in extensions.registered():
        if extension.report_key and extension.report_key in result:
            extra = extension.report_context(result)
            if extra is not None:
                sections.append({"template": extension.report_template, **extra})
    return {
        "ready": True,
        "section_template": protocol.report_template,
        "extension_sections": sections,
        **context,
    }
