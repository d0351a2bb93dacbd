"""ESA-AI and MQM-AI: a judge's errors pre-filled for one arm of the study's workers, with a
control arm beside it, so the report can measure what the pre-filled errors did
(docs/translation-studies.md, "A judge's errors as pre-filled suggestions").

A study with `assistance` in its config draws the workers who join into two arms (the
core draws them: annotations/services/joining.py, through Protocol.arm_design). The
suggestion arm's assignment starts with the judge's errors of its document as its own
errors, marked as suggested: the worker removes those they disagree with and adds what
is missing. The control arm starts empty and its page holds nothing of the suggestions.
"""

from studies.assistance import CONTROL, SUGGESTIONS  # noqa: F401 (the arms' names, read from here)
