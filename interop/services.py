"""Other tools' annotation files as studies, and studies as their files (docs/interop.md)."""

import inspect
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bundles.importing import import_bundle
from bundles.problems import BundleInvalid, Problems
from bundles.reading import plain, read_yaml

from .exporting import study_corpus
from .formats.registry import TRANSLATION, format_module
from .importing import write_corpus_bundle
from .mqm import STUDY_FIELDS as MQM_STUDY_FIELDS
from .mqm import export_mqm, import_mqm
from .parts import Parts, WholeCorpus
from .pearmut import import_campaign
from .repeats import REPEATS, RETEST
from .reviewing import write_review_bundle

SPAN, REVIEW = "span", "review"
INTO = {SPAN: "span study", REVIEW: "review study of the evaluators' annotations"}


@dataclass
class AnnotationsImport:
    """What an import made, and what it read but did not take (`notes`: a cancelled annotation...)."""

    result: object  # bundles.importing.ImportResult
    notes: list = field(default_factory=list)

    def describe(self):
        return self.result.describe()


def study_import_annotations(*, path, fmt, slug, name=None, settings_path=None, settings_name=None,
                             sentences_per_segment=None, options=None, user=None, into=SPAN, weights=None):  # fmt: skip
    """Read `path` in format `fmt` and import it as the new study `slug` (all or nothing).

    `into` SPAN: a span study of every annotation; REVIEW: a review study whose items are
    the evaluators' (kind model) spans (interop.reviewing). `settings_path`: a study.yaml
    whose taxonomy (and title, instructions, config) the study takes; without it the
    taxonomy is the labels the file uses (into REVIEW: a review study.yaml, whose questions
    the study takes). `options` are the format's own reading options (Label Studio:
    text_field) and `repeats` (RETEST or LATEST: what a person's repeated annotations of an
    item become, docs/interop.md "Repeated annotations"). A translation format (registry.TRANSLATION,
    an MQM TSV) is imported as a study of its own protocol (interop/mqm): its study.yaml gives the
    title, instructions, status and config, `weights` the MQM weights. Raises FormatUnavailable, or
    BundleInvalid listing every problem as `file:line: item: message`; nothing is written then.
    """
    if into not in INTO:
        raise ValueError(f"into {into!r}: one of {', '.join(INTO)}")
    module = format_module(fmt, reading=True)
    name = name or Path(path).name
    if fmt in TRANSLATION:
        return _translation_import(path=path, fmt=fmt, slug=slug, name=name, settings_path=settings_path,
                                   settings_name=settings_name, sentences_per_segment=sentences_per_segment,
                                   options=options, user=user, into=into, weights=weights)  # fmt: skip
    problems = Problems()
    options = {key: value for key, value in (options or {}).items() if value is not None}
    repeats = options.pop("repeats", RETEST)
    if repeats not in REPEATS:
        said = " or ".join(f"{value} ({meaning})" for value, meaning in REPEATS.items())
        problems.add(name, 0, f"repeats {repeats!r}: say {said}")
    accepted = inspect.signature(module.read).parameters
    for key in options:
        if key not in accepted:
            problems.add(name, 0, f"format {fmt!r} has no option {key!r}")
    reading = {k: v for k, v in options.items() if k in accepted}
    if hasattr(module, "read_parts"):  # a part at a time (parts.py)
        corpus = module.read_parts(path, name, problems, **reading)
    else:
        corpus = module.read(path, name, problems, **reading)
    # In the file's order, whatever the reader's (items of a one-line file, line None, in the reader's).
    problems.items.sort(key=lambda problem: problem.line or 0)
    settings = None
    if settings_path is not None:
        settings_name = settings_name or Path(settings_path).name
        settings = read_yaml(settings_path, settings_name, problems)
    problems.raise_if_any()
    with tempfile.TemporaryDirectory(prefix="interop-import-") as directory:
        shared = {"name": name, "fmt": fmt, "slug": slug, "problems": problems, "settings": settings,
                  "settings_name": settings_name, "sentences_per_segment": sentences_per_segment}  # fmt: skip
        parts = corpus if isinstance(corpus, Parts) else WholeCorpus(corpus)
        notes = list(parts.survey.notes)
        if into == REVIEW:  # an evaluator's repeated annotations are all reviewed (reviewing.py)
            lines = write_review_bundle(parts, directory, notes=notes, **shared)
        else:
            lines = write_corpus_bundle(parts, directory, notes=notes, repeats=repeats, **shared)
        problems.raise_if_any()
        try:
            result = import_bundle(directory, user=user)
        except BundleInvalid as invalid:
            raise BundleInvalid(
                [lines.translate(problem) for problem in invalid.problems], invalid.summary
            ) from None
    return AnnotationsImport(result=result, notes=notes)


def _translation_import(*, path, fmt, slug, name, settings_path, settings_name, sentences_per_segment, options,
                        user, into, weights):  # fmt: skip
    """An MQM TSV file as a new MQM study (interop/mqm), a Pearmut campaign's items as a new study
    of its protocol (pearmut.py): a given study.yaml gives the title, instructions, status and
    config (MQM TSV: severities, weights); the option `title` the title."""
    problems = Problems()
    what, segments = {
        "mqm-tsv": ("an MQM TSV file", "its seg_ids"),
        "pearmut": ("a Pearmut campaign", "its items"),
    }[fmt]
    if into != SPAN:
        problems.add(
            name, 0, f"{what} is imported as a translation study of its own, not into a {INTO[into]}"
        )
    if sentences_per_segment is not None:
        problems.add(name, 0, f"{what}'s segments are {segments}; it is not cut into sentences")
    options = {key: value for key, value in (options or {}).items() if value is not None}
    for key in options:
        if key not in TRANSLATION[fmt]:
            problems.add(
                name, 0, f"format {fmt!r} has no option {key!r}; its options: {', '.join(TRANSLATION[fmt])}"
            )
    settings = {}
    if settings_path is not None:
        settings_name = settings_name or Path(settings_path).name
        raw = read_yaml(settings_path, settings_name, problems)
        raw = plain(raw) if raw is not None else {}
        if not isinstance(raw, dict):
            problems.add(settings_name, 1, "must be a mapping (title, instructions, status, config)")
            raw = {}
        unknown = sorted(set(raw) - {*MQM_STUDY_FIELDS, "slug"})
        if unknown:
            problems.add(settings_name, 1, f"{', '.join(unknown)}: {what} takes {', '.join(MQM_STUDY_FIELDS)} from a "
                                           "study.yaml (its protocol and categories are its own)")  # fmt: skip
        settings = {key: raw[key] for key in MQM_STUDY_FIELDS if key in raw}
    problems.raise_if_any()
    if fmt == "pearmut":
        done = import_campaign(
            path, slug=slug, name=name, title=options.get("title"), settings=settings, user=user
        )
    else:
        done = import_mqm(path, slug=slug, name=name, title=options.get("title"), weights=weights,
                          settings=settings, user=user)  # fmt: skip
    return AnnotationsImport(result=done, notes=done.notes)


def study_export_annotations(*, study, fmt, path, identities=True):
    """Write the span study `study` to `path` in format `fmt` (a translation format: an MQM or
    ESA study; returns what interop.mqm.export_mqm wrote).

    identities=False names annotators by their pseudonym in the study (for analysts).
    """
    module = format_module(fmt, reading=False)
    if fmt in TRANSLATION:
        return export_mqm(study=study, path=path, identities=identities)
    corpus = study_corpus(study, fmt=fmt, identities=identities)
    module.write(corpus, path)
    return corpus
