"""The report of one study as JSON-ready data: the same for the job and the command."""

from studies import extensions, protocols


def study_report_data(study, progress=None, parts=None):
    """Compute the report of `study` (DESIGN.md "Report JSON"; docs/reports.md).

    The body is the study protocol's (Protocol.report), then each extension's part under
    its own key (Extension.report, e.g. evaluator_comparison); the header is the same for all.
    `parts`: the tallies of every part of a report computed in parts (reports/parts.py
    PartTallies, read a part at a time on each iteration), which the protocol merges into
    the body, and an extension that tallied its part in each (Extension.report_part) into
    its own, instead of reading the study in one pass.
    """
    progress = progress or (lambda fraction: None)
    header = {"study": study.slug, "protocol": study.protocol}
    # What the parts of one report may share (e.g. the span study as loaded from the
    # database, which the protocol's part and the evaluators' part both read); gone after.
    study.report_cache = {}
    try:
        protocol = protocols.of(study)
        if parts is None:
            body = protocol.report(study, progress)
        else:
            body = protocol.report_from_parts(study, parts, progress)
        result = {**header, **body}
        for extension in extensions.registered():
            if not extension.report_key:
                continue
            tallies = parts.section("extensions", extension.report_key) if parts is not None else None
            if tallies is not None and tallies.in_every_part():
                section = extension.report_from_parts(study, tallies, progress)
            else:
                section = extension.report(study, progress)
            if section is not None:
                result[extension.report_key] = section
    finally:
        del study.report_cache
    return result
