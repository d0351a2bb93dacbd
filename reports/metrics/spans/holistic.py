"""Answers about the whole document, and how error counts go with holistic ratings.

SNaC (Goyal et al. 2022, Table 3) asks annotators for a holistic coherence
rating of each summary after they marked its errors, and correlates the number
of errors of each category with that rating. Here, for every Likert question:

- the pairs are (annotator, document): one per submitted main assignment that
  answered the question; x = the annotator's number of error spans of the
  category in the document (primary spans: a paired annotation counts once),
  y = that annotator's own rating of the document;
- "all" counts the spans of every category;
- Pearson's r and Spearman's rho (ties get average ranks), each with its
  two-sided p-value from scipy.stats (r's from the t distribution with n - 2
  degrees of freedom, rho's likewise on the ranks), and n;
- undefined (null with a reason) when n < 3 or when the counts or the ratings
  are all the same (no variance: the coefficient divides by zero).

Plain inputs in, a JSON-ready dict out; no Django.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from reports.metrics.nullable import put_value

ALL = "all"
FEWEST_PAIRS = 3


@dataclass(frozen=True)
class DocumentQuestion:
    """A question about the whole document; ``low``/``high`` bound a Likert scale."""

    key: str
    kind: str  # likert | single | multi | text
    label: str = ""
    options: tuple = ()
    low: int = 1
    high: int = 5


@dataclass
class DocumentAnswers:
    """One submitted main assignment: whose, of which document, its answers and error counts."""

    annotator: str
    document: str
    answers: dict
    errors: dict = field(default_factory=dict)  # category key -> number of spans


def document_questions_report(questions, assignments, categories):
    """``{question key: figures}`` over ``assignments`` (:class:`DocumentAnswers`).

    ``categories`` are the taxonomy's keys, in order. Every question has
    ``position``, ``label``, ``kind`` and ``answered`` (assignments with an
    answer) out of ``assignments``; choice questions their ``options`` and
    ``counts`` per option (a multi-choice answer counts once per option ticked);
    Likert questions ``scale``, ``counts`` per point, ``mean``, ``sd`` (sample
    SD) and ``n``, and ``correlations`` per category and "all".
    """
    report = {}
    for position, question in enumerate(questions):
        given = [a for a in assignments if _answered(a.answers.get(question.key))]
        figures = {
            "position": position, "label": question.label, "kind": question.kind,
            "answered": len(given), "assignments": len(assignments),
        }  # fmt: skip
        if question.kind in ("single", "multi"):
            figures["options"] = list(question.options)
            figures["counts"] = _option_counts(question, [a.answers[question.key] for a in given])
        elif question.kind == "likert":
            figures.update(_likert_figures(question, given, categories))
        report[question.key] = figures
    return report


def _answered(value):
    return value is not None and value != "" and value != []


def _option_counts(question, values):
    counts = Counter()
    for value in values:
        counts.update(value if isinstance(value, list) else [value])
    return {option: counts[option] for option in question.options}


def _likert_figures(question, given, categories):
    ratings = np.array([a.answers[question.key] for a in given], dtype=np.float64)
    figures = {"scale": {"min": question.low, "max": question.high}}
    figures["counts"] = {
        str(point): int(np.count_nonzero(ratings == point))
        for point in range(question.low, question.high + 1)
    }
    put_value(figures, "mean", float(ratings.mean()) if ratings.size else None, "no ratings")
    put_value(
        figures, "sd", float(ratings.std(ddof=1)) if ratings.size >= 2 else None, "fewer than two ratings"
    )
    figures["n"] = int(ratings.size)
    figures["correlations"] = {
        key: correlation([_errors(a, key, categories) for a in given], ratings) for key in (ALL, *categories)
    }
    return figures


def _errors(assignment, key, categories):
    if key == ALL:
        return sum(assignment.errors.get(category, 0) for category in categories)
    return assignment.errors.get(key, 0)


def correlation(counts, ratings):
    """Pearson's r and Spearman's rho of ``counts`` against ``ratings``, with p-values and n.

    ``{"n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p"}``; each
    coefficient and p-value is null with a ``<key>_reason`` when undefined.
    """
    x = np.asarray(counts, dtype=np.float64)
    y = np.asarray(ratings, dtype=np.float64)
    n = int(x.size)
    reason = None
    if n < FEWEST_PAIRS:
        reason = f"fewer than {FEWEST_PAIRS} rated documents (n = {n})"
    elif np.all(x == x[0]):
        reason = f"every error count is {_plain(x[0])}: no variance"
    elif np.all(y == y[0]):
        reason = f"every rating is {_plain(y[0])}: no variance"
    result = {"n": n}
    if reason is not None:
        for key in ("pearson_r", "pearson_p", "spearman_rho", "spearman_p"):
            put_value(result, key, None, reason)
        return result
    pearson = stats.pearsonr(x, y)
    spearman = stats.spearmanr(x, y)
    result.update(
        pearson_r=float(pearson.statistic), pearson_p=float(pearson.pvalue),
        spearman_rho=float(spearman.statistic), spearman_p=float(spearman.pvalue),
    )  # fmt: skip
    return result


def _plain(value):
    return int(value) if float(value).is_integer() else float(value)
