"""Automatic evaluators (LLMs, detectors) against the people of a span study.

An evaluator's spans are the annotations of kind "model" whose annotator is
the evaluator's key (one per document; a repeated one keeps the last). The
people are the submitted main annotations, the experts the gold ones. Only
the primary span of a paired category counts, and a span touches a unit
(token or sentence) when they share a character.

Evaluator against a reference, per category (Goyal et al. 2022, Table 6,
carried from sentences down to tokens as well):

- unit = (token, category) or (sentence, category) of a compared document;
  predicted = units the evaluator's spans of the category touch;
- references, and the documents compared with each (all of them need the
  evaluator's annotation, which may hold no span):
  ``union``: units touched by any person's span, documents with one or more
  people's annotations; ``two_agree``: units touched by spans of two or more
  distinct people, documents with two or more; ``gold``: units touched by
  any gold span, documents with one or more gold annotations;
- correct = predicted and in the reference; precision = correct / predicted,
  recall = correct / reference, F1 their harmonic mean (0.0 when both are 0);
  undefined (null plus a reason) when a denominator is 0;
- sentence level also gives "overlap" as :class:`ReferenceTally` does: among
  correct units, the share where an evaluator span and a reference span
  share a character inside that sentence. The reference spans are the gold
  spans for ``gold`` and every person's span for ``union`` and ``two_agree``
  (a sentence two people marked is matched by overlapping either of them);
- ``all`` pools every category: sums of the counts over (unit, category).

Intervals: 95% percentile bootstrap over documents. Each reference draws its
documents (those a person or expert annotated as it needs) with replacement,
``resamples`` times from ``numpy.random.default_rng(seed)``, and every
evaluator and category is scored on the same draws, so their intervals are
comparable (references with the same documents share their draws); an
evaluator adds nothing from a drawn document it did not annotate. A
resample where a value is undefined is left out of that value's interval;
fewer than two compared documents give no interval.

One more annotator (token level, per category): binary nominal token alpha
(as the people's report computes it) of the people over the documents with
two or more people's annotations and the evaluator's annotation; then, for
each person with an annotation there, the alpha after the evaluator's marks
stand in for that person's on their documents (the number of coders stays
the same). ``replaced_mean``/``min``/``max`` are over the people whose
replaced alpha is defined (``replacements`` of them).

How it is computed at scale: every category's units are laid on one line
and cut into pieces wherever a person's, an expert's or an evaluator's marks
begin or end (a line shorter than that list of ends is taken unit by unit),
so each piece has one state (how many people mark it, whether the experts
and each evaluator do) and every count is a sum of piece lengths, kept per
document. A resample is how often it drew each document, so the sums of all
resamples are one product with the per-document counts. Binary alpha needs
only how many units have each (coders, marked) pair; a replacement moves the
pieces where the person and the evaluator differ from one pair to the next,
so every replacement costs a few sums, not a new alpha.
"""

from .comparison import evaluator_comparison

__all__ = ["evaluator_comparison"]
