"""{% task_progress assignment %}: where a candidate is in a qualification round taken as one task."""

from django import template
from django.utils.html import format_html

from annotations import selectors

register = template.Library()


@register.simple_tag
def task_progress(assignment):
    """'Text 1 of 2' in the header of every page of a round's document; nothing elsewhere."""
    progress = selectors.task_progress(assignment) if assignment else None
    if progress is None:
        return ""
    return format_html(
        '<span class="task-progress" id="task-progress">Text {} of {}</span>',
        progress["position"],
        progress["total"],
    )
