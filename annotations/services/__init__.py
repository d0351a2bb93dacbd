"""Writes on assignments, one named function per action (a protocol's own writes are in its app)."""

from .joining import JoinRefused, assignment_join, assignments_release_stale
from .planning import NOT_ASSIGNED, AssignmentPlan, AssignmentPlanError, assignments_generate
from .refusals import TaskClosed, TaskNotFound
from .task import TaskInputError, assignment_record_activity, assignment_submit
from .worker_feedback import assignment_save_feedback

__all__ = [
    "NOT_ASSIGNED",
    "AssignmentPlan",
    "AssignmentPlanError",
    "JoinRefused",
    "TaskClosed",
    "TaskInputError",
    "TaskNotFound",
    "assignment_join",
    "assignment_record_activity",
    "assignment_save_feedback",
    "assignment_submit",
    "assignments_generate",
    "assignments_release_stale",
]
