"""Writes on assignments and annotations, one named function per action."""

from .joining import JoinRefused, assignment_join, assignments_release_stale
from .planning import AssignmentPlan, AssignmentPlanError, assignments_generate
from .task import (
    TaskClosed,
    TaskInputError,
    annotation_add,
    annotation_remove,
    assignment_move,
    assignment_record_activity,
    assignment_submit,
)

__all__ = [
    "AssignmentPlan",
    "AssignmentPlanError",
    "JoinRefused",
    "TaskClosed",
    "TaskInputError",
    "annotation_add",
    "annotation_remove",
    "assignment_join",
    "assignment_move",
    "assignment_record_activity",
    "assignment_submit",
    "assignments_generate",
    "assignments_release_stale",
]
