"""The review protocol's options in a study's config (studies/config.py checks them)."""

from studies.config import ConfigProblem

from .questions import check_questions


def questions_problems(value, path):
    return [
        ConfigProblem(path if index is None else (*path, index), message)
        for index, message in check_questions(value)
    ]


OPTIONS = {"questions": questions_problems}
