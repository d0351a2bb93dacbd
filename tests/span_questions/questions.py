"""The questions of the tests' span studies: one of each kind, as a researcher writes them."""

import copy

from tests.factories import AssignmentFactory, make_span_study

QUESTIONS = [
    {"key": "coherence", "label": "How coherent is the text as a whole?", "kind": "likert",
     "scale": {"min": 1, "max": 5, "labels": {1: "not at all", 5: "fully"}}},
    {"key": "better", "label": "Which version reads better?", "kind": "single",
     "options": ["this one", "the other one", "no difference"]},
    {"key": "problems", "label": "What got in the way?", "kind": "multi",
     "options": ["names", "time jumps", "repetition"]},
    {"key": "notes", "label": "Anything else?", "kind": "text", "help": "Optional: a sentence or two."},
]  # fmt: skip


def questions():
    return copy.deepcopy(QUESTIONS)


def question_task(segments=3, **fields):
    """An open assignment of a span study with QUESTIONS, on a document of `segments` segments."""
    study = make_span_study(documents=1, segments=segments, config={"document_questions": questions()})
    return AssignmentFactory(document=study.documents.get(), study=study, **fields)
