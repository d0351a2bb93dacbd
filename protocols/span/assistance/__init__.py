"""Model-assisted annotation with a control arm (docs/assisted-annotation.md).

A span study with `assistance` in its config randomises the workers who join
into two arms: "suggestions" sees a model's candidate spans (Suggestion rows,
taken from an evaluator run or a bundle) in each segment and decides on each
one; "control" sees the ordinary page. Decisions are SuggestionDecision rows;
the report's `assistance` part compares the arms.
"""

from studies.assistance import CONTROL, SUGGESTIONS  # noqa: F401 (the arms' names, read from here)
