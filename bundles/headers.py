"""The fields every line of assignments.jsonl has, whatever the protocol."""

import re

from django.utils.dateparse import parse_datetime

from accounts.models import Worker
from annotations.models import WORKER_FEEDBACK_MAX_CHARS, Assignment

from .fields import is_int

HEADER_FIELDS = {
    "annotator", "platform", "kind", "block", "active_seconds", "submitted_at", "arm", "feedback",
}  # fmt: skip
ARM = re.compile(r"[a-z][a-z0-9_-]{0,31}")
# Once: the enums build their lists anew on each use, and a study has a line per worker and block.
PLATFORMS, ASSIGNMENT_KINDS = tuple(Worker.Platform.values), tuple(Assignment.Kind.values)


def check_header(value, file, line, problems):
    """The fields every assignment line has: annotator, platform, kind, block, time,
    and the arm and the worker's feedback when there are any.

    Returns them as a dict for AssignmentSpec, or None when one is wrong.
    """
    ok = True
    annotator = value.get("annotator")
    if is_int(annotator):
        annotator = str(annotator)
    if not isinstance(annotator, str) or not annotator.strip():
        problems.add(file, line, "'annotator' is required")
        ok = False
    platform = value.get("platform", Worker.Platform.IMPORT)
    if platform not in PLATFORMS:
        problems.add(file, line, f"unknown platform '{platform}' (one of {', '.join(PLATFORMS)})")
        ok = False
    kind = value.get("kind", Assignment.Kind.MAIN)
    if kind not in ASSIGNMENT_KINDS:
        problems.add(file, line, f"unknown assignment kind '{kind}' (one of {', '.join(ASSIGNMENT_KINDS)})")
        ok = False
    active_seconds = value.get("active_seconds", 0)
    if not is_int(active_seconds) or active_seconds < 0:
        problems.add(file, line, "'active_seconds' must be a whole number")
        ok = False
    block = value.get("block", "")
    block = str(block) if is_int(block) else block
    if not isinstance(block, str):
        problems.add(file, line, "'block' must be text")
        ok = False
    submitted_at = value.get("submitted_at")
    if submitted_at is not None and (
        not isinstance(submitted_at, str) or parse_datetime(submitted_at) is None
    ):
        problems.add(file, line, f"'submitted_at' must be an ISO 8601 date and time, not {submitted_at!r}")
        ok = False
    arm = value.get("arm", "")
    if not isinstance(arm, str) or (arm and not ARM.fullmatch(arm)):
        problems.add(
            file, line, f"'arm' must be a lower-case name such as suggestions or control, not {arm!r}"
        )
        ok = False
    feedback = value.get("feedback", "")
    if not isinstance(feedback, str):
        problems.add(file, line, "'feedback' must be text (what the worker wrote to the researchers)")
        ok = False
    elif len(feedback) > WORKER_FEEDBACK_MAX_CHARS:
        problems.add(file, line, f"'feedback' is {len(feedback):,} characters long; at most "
                                 f"{WORKER_FEEDBACK_MAX_CHARS:,} fit")  # fmt: skip
        ok = False
    if not ok:
        return None
    return {"annotator": annotator, "platform": platform, "kind": kind, "block": block,
            "active_seconds": active_seconds, "submitted_at": submitted_at, "arm": arm,
            "feedback": feedback}  # fmt: skip


def unique_block_lines(records, problems, check_line, into=None):
    """The specs of a block study's assignments.jsonl lines, `check_line(record)` checking each,
    appended to `into` (a list by default; a Spool keeps them on disk) and returned.

    A second line for the same annotator, block and kind is a problem; the first one stands.
    """
    specs, first_line = [] if into is None else into, {}
    for record in records:
        spec = check_line(record)
        if spec is None:
            continue
        identity = (spec.block, spec.platform, spec.annotator, spec.kind)
        if identity in first_line:
            problems.add(record.file, record.line, f"annotator '{spec.annotator}' already has a {spec.kind} "
                                                   f"assignment for block '{spec.block}' (line {first_line[identity]})")  # fmt: skip
            continue
        first_line[identity] = record.line
        specs.append(spec)
    return specs
