"""Label Studio's JSON export: an array of tasks, each with `data`, `annotations` and `predictions`.

A task's text is one string field of `data` (the one present in every task,
or `text_field`). Spans are results of type `labels` (`value.start`, `end`,
`text`, `labels`, the region `id`); results of type `relation` (`from_id`,
`to_id`, `direction`, `labels`) link two regions. `completed_by` (a user id,
or an object with `id` and `email`) is the annotator; `predictions` (with
`model_version`) are an automatic evaluator's spans.

Offsets: current Label Studio counts code points, as we do; older versions
counted UTF-16 code units, which differ after any character outside the
Basic Multilingual Plane (most emoji). Every span is checked against its
`value.text`: the file's convention is the one its spans match, a span that
matches only the other is read by the other, and a span matching neither is
a problem naming the task, the annotation and the region. Writing always
counts code points.
"""

from .reading import read, read_parts
from .writing import write

__all__ = ["read", "read_parts", "write"]
