"""Which studies an evaluator judges, and what a run does on each (the mode RunWork follows):

- a span study with a taxonomy: error spans of its categories (span_mode.py);
- an MQM or ESA translation study, contrastive or not: errors with a severity (and, MQM, a
  category of the taxonomy; ESA, a 0-100 score per segment) on the people's scale
  (translation/mode.py). The judge reads one translation at a time either way.
"""

from protocols.translation.keys import CONTRASTIVE, ESA, MQM, scheme

from .models import Evaluator
from .span_mode import SpanMode
from .translation.mode import TranslationMode

SPAN = "span"
TRANSLATION = (MQM, ESA, *(key for key, base in CONTRASTIVE.items() if base in (MQM, ESA)))


def study_problem(evaluator):
    """Why the evaluator cannot judge its study's documents, or None."""
    study = evaluator.study
    if study.protocol == SPAN:
        return None if study.taxonomy_id else "evaluators run on span studies with a taxonomy"
    if study.protocol in TRANSLATION:
        if scheme(study.protocol) == MQM and not study.taxonomy_id:
            return "an MQM study needs a taxonomy: its categories are the judge's"
        if evaluator.kind == Evaluator.Kind.BUILTIN:
            return "built-in detectors mark span studies; a translation study's judge is an LLM evaluator"
        return None
    return f"evaluators run on span studies and on MQM and ESA translation studies, not on {study.protocol} studies"


def mode_for(evaluator, documents):
    """The mode of the evaluator's study over `documents` (study_problem says whether there is one)."""
    if evaluator.study.protocol in TRANSLATION:
        return TranslationMode(evaluator, documents)
    return SpanMode(evaluator, documents)
