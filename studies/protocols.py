"""The contract between the core and the protocols (docs/architecture.md).

A protocol (span annotation, Likert, BWS, review, pairwise comparison, ...) is
a Django app under `protocols/`. Its AppConfig.ready() registers one Protocol
object per protocol key it serves; the core (studies, accounts, annotations,
bundles, reports, exports, api, qualification) asks the registry and never
imports a protocol module. Every hook has a default that means "this protocol
has none of that", so a protocol fills in only what it does.

Names a protocol's Study rows store in `Study.protocol` are the registry's
keys; a key whose app is no longer installed is refused by forms and imports
and shown as-is in admin.
"""

from dataclasses import dataclass, field


class UnknownProtocol(LookupError):
    """A study names a protocol no installed app registers."""


@dataclass(frozen=True)
class BundleWork:
    """What a protocol found in a bundle's work files, checked and ready to write."""

    assignments: list = field(default_factory=list)
    extra: object = None  # the protocol's own (e.g. a review study's evaluator items)
    located: object = None  # a LocateCount when spans were located by their text
    annotations: int = 0  # judgments, spans or answers, for the import summary


@dataclass(frozen=True)
class ArmDesign:
    """A study's randomised arms: workers are drawn into them at join, in proportion to
    their shares (which sum to 1), and every document gets that share of its annotators."""

    arms: tuple  # ((name, share), ...)
    seed: int = 0


class Protocol:
    """One protocol. Subclass it in the protocol's app and register an instance.

    Hooks take core objects (Study, Assignment, Document) and return plain
    data, responses or None; none of them may rely on another protocol.
    """

    key = ""  # the value of Study.protocol
    label = ""
    # "document": an assignment is one document (span, review); "block": a
    # block of items handed out whole (Likert, BWS, pairwise).
    works_on = "document"
    needs_taxonomy = False
    # {option name: check(value, path) -> [studies.config.ConfigProblem]}
    config_options = {}
    # {"app_label.model": accounts.policy.ModelRule}: who reads and changes the protocol's models.
    access_rules = {}
    # Model names (lower case) of the protocol's app that researchers manage in admin.
    researcher_models = ()
    # Dotted path of a URLconf with the protocol's task API (under /api/task/<token>/), or "".
    task_urls = ""
    # REST API resources: (prefix, dotted path of a viewset, basename), under /api/.
    api_routes = ()
    # The report page's section: a template, filled with report_context(result).
    report_template = ""

    # The worker's task page and its JSON API.
    def page(self, request, assignment):
        """The task page of an assignment (an HttpResponse)."""
        raise NotImplementedError

    def state(self, assignment):
        """What the task page loads: a JSON-ready dict."""
        raise NotImplementedError

    def missing(self, assignment):
        """Why the assignment cannot be submitted yet, or "" when it can."""
        return ""

    def submit_ready(self, assignment):
        """A condition on the assignment's row that holds exactly when `missing` finds nothing left
        (annotations.services.task.rows_at_least builds one), or None. With it, submit stores the
        status with that condition in its UPDATE and asks `missing` only when the UPDATE found
        something left, to say what: a complete block is submitted without a query of its own."""
        return None

    def arm_design(self, study):
        """The study's randomised arms (an ArmDesign), or None when it has none."""
        return None

    def allocation_scores(self, study):
        """{document id: score} of the main documents with submitted main work (the mean of their
        ratings), for a study whose config.allocation spends ratings where the ranking is uncertain
        (annotations/services/allocation.py); a protocol that offers the `allocation` option
        gives it."""
        return {}

    # True when an allocation score is relative to the outputs judged with it (a BWS tuple's, a
    # pairwise pair's): two systems are then compared only where they were judged together, and
    # the allocation grid's item is an input within a block, not the input across blocks.
    allocation_judged_together = False

    # How each annotator agrees with the others so far (the workforce dashboard): the rule in words.
    annotator_agreement_rule = ""

    def annotator_agreement(self, study):
        """{annotator pseudonym: (agreement with the others in [0, 1], pairs compared)}; {} for none."""
        return {}

    def block_items(self, study, block, rng):
        """A block study: one worker's items of `block` (stored in Assignment.items), shuffled by `rng`."""
        return []

    def after_submit(self, assignment):
        """Called inside the submit's transaction, after the assignment is marked submitted and
        after the assignment_submitted receivers (the qualification workflow's scoring) ran."""

    # Gold: qualification rounds and attention checks.
    def score_against_gold(self, assignments):
        """Scores of one worker's assignments against gold, or None when nothing has gold."""
        return None

    def feedback_documents(self, assignments):
        """Per qualification assignment: what the feedback page shows (template context)."""
        return []

    feedback_template = ""

    # Bundles (bundles/): the protocol's part of a bundle's files, a module with
    # check_work, write_work and export_work (the hooks below call them), and
    # check_documents when the protocol reads its own part of the documents (their meta); or None.
    bundle = None

    def bundle_check_documents(self, documents, problems, file):
        """Check the protocol's own part of checked documents (DocumentSpec, `file` their file), for a
        whole bundle and for documents added to a study; returns the ids of those refused."""
        if self.bundle is None or not hasattr(self.bundle, "check_documents"):
            return set()
        return self.bundle.check_documents(documents, problems, file, self.key)

    def bundle_document_check(self, problems, file):
        """bundle_check_documents one DocumentSpec at a time, for documents added to a study: a
        callable given each good spec while it still has its texts and meta (True when the spec is
        good), or None when the bundle module has no `document_check`. The import then keeps
        neither, and its memory does not grow with them."""
        if self.bundle is None or not hasattr(self.bundle, "document_check"):
            return None
        return self.bundle.document_check(problems, file, self.key)

    def bundle_needs_texts(self, directory):
        """Whether the checks after the documents' own (bundle_check_documents, bundle_check) read
        their segment texts; `directory` is the bundle's, None when documents are added to a study.
        When they do not, an import keeps none of the texts between checking and writing (it reads
        the documents file again to write it). The bundle module's `needs_texts(directory)` answers;
        without one, the texts are kept."""
        if self.bundle is None:
            return False
        if hasattr(self.bundle, "needs_texts"):
            return self.bundle.needs_texts(directory)
        return True

    def bundle_texts_by_document(self):
        """Whether the checks that need texts read them only by document id (the bundle module's
        TEXTS_BY_DOCUMENT): the import then keeps them on disk (bundles/texts.py), not in the
        documents' specs, and hands them to bundle_check as `texts`."""
        return getattr(self.bundle, "TEXTS_BY_DOCUMENT", False)

    def bundle_check(self, directory, spec, documents, broken, locate, problems, texts=None):
        """Read and check the work files (assignments.jsonl, ...) into a BundleWork. `texts` maps
        document id -> segment texts when bundle_texts_by_document(); then `documents` carry none."""
        if self.bundle is None:
            return BundleWork()
        if texts is not None:
            return self.bundle.check_work(directory, spec, documents, broken, locate, problems, texts=texts)
        return self.bundle.check_work(directory, spec, documents, broken, locate, problems)

    def bundle_write(self, study, work):
        """Write a checked BundleWork of a new study (inside the import's transaction)."""
        if self.bundle is not None:
            self.bundle.write_work(study, work)

    def bundle_export(self, study, assignments, directory, who):
        """Write the study's work files; `assignments` are the submitted ones as lists of a few
        hundred, in the order of the bundle's lines (bundles/exporting.in_line_order), `who(assignment)`
        gives (annotator, platform)."""
        if self.bundle is not None:
            self.bundle.export_work(study, assignments, directory, who)

    # The researcher console's new-study flow (console/). Files the protocol reads its own way in
    # the documents step, by their ending without the dot: {"csv": "what the file holds"}; a
    # protocol that has some takes only those (its documents need more than a text each).
    document_formats = {}

    def document_texts(self, path, name, fmt):
        """[(line, document)] of an uploaded file in one of `document_formats` (documents as
        documents.jsonl lines); bundles.problems.BundleInvalid names file (`name`), line and problem."""
        raise NotImplementedError

    def setup_form(self, study, data=None):
        """The form of the protocol's own settings in the "categories or scale" step: a Django form
        bound to `data` (None: unbound, showing the study's settings) whose `config()` gives the
        options to merge into the study's config once it is valid; None when the protocol has none."""
        return None

    def design_facts(self, study):
        """[(label, text)] of the study's settings the console's Design tab lists; [] for none."""
        return []

    def quality_check_form(self, study, data=None):
        """The form that makes the study's quality checks from the console's Design tab: a Django
        form bound to `data` (None: unbound), with `summary()` (the checks so far, in words) and
        `make()` (makes them; the line to show, or None with the refusal as the form's error);
        None when the protocol has none."""
        return None

    # Reports and exports.
    def report(self, study, progress):
        """The study report's body (the report JSON without its header); `progress(fraction)`."""
        return {}

    def report_parts(self, study, documents_per_part):
        """Split the report into parts of about `documents_per_part` documents each, to be computed
        on several workers: a list of JSON-ready part descriptions, or None to compute it in one
        pass (report). A protocol that splits also gives report_part and report_from_parts."""
        return None

    def report_part(self, study, part):
        """The sufficient statistics (JSON-ready) of one part from report_parts."""
        raise NotImplementedError

    def report_from_parts(self, study, tallies, progress):
        """The report's body from every part's report_part, in the order of report_parts; it must be
        the body report() gives. `tallies` is read from the database a part at a time each time it
        is iterated: keep running sums and packed arrays across parts, not the parts themselves."""
        raise NotImplementedError

    def report_context(self, result):
        """Template context of report_template from a finished report's JSON (None: nothing to show)."""
        return {}

    def report_headline(self, result):
        """The one agreement figure the researcher console shows for a finished report: a dict
        {"label": "what it is, in words", "value": float or None, "reason": why None} or None."""
        return None

    def publish_tables(self, result):
        """The report's main tables for a paper (reports/publish.py writes them as LaTeX and CSV):
        [reports.publish.Table], or [] when the protocol has none."""
        return []

    def export_columns(self, study):
        """The annotation table's columns (exports/rows.py adds the identity columns)."""
        return []

    def export_rows(self, study):
        """The table's rows of submitted work: (row, (worker platform, worker external id)) pairs."""
        return iter(())

    def export_row_count(self, study):
        return 0

    def export_types(self, study):
        """{column: "int" | "float" | "bool"} for typed files (Parquet); a column not named is text."""
        return {}

    def export_csv_copy(self, study, *, with_platform_ids=False):
        """A fast path for the CSV table: bytes chunks of its rows (no header), the same bytes
        exports.rows.csv_lines writes, worker_feedback and platform ids included; or None
        (no fast path for this study or database: the Python writer runs)."""
        return None

    def export_arrow_batches(self, study, *, schema, with_platform_ids=False):
        """A bulk path for the Parquet table on PostgreSQL: Arrow record batches of `schema`
        (exports.parquet.parquet_schema), the values export_rows gives; or None (the rows are
        built from export_rows a chunk at a time)."""
        return None

    def __repr__(self):
        return f"<Protocol {self.key}>"


# The protocol of a study.yaml without `protocol:` (and Study.protocol's default).
DEFAULT = "span"

_registry = {}  # in registration order: INSTALLED_APPS order


def register(protocol):
    """Register a Protocol instance; an app's AppConfig.ready() calls this."""
    if not protocol.key:
        raise ValueError(f"{type(protocol).__name__} has no key")
    if protocol.key in _registry and type(_registry[protocol.key]) is not type(protocol):
        raise ValueError(f"protocol '{protocol.key}' is registered twice")
    _registry[protocol.key] = protocol
    return protocol


def get(key):
    """The registered protocol of `key` (raises UnknownProtocol)."""
    try:
        return _registry[key]
    except KeyError:
        raise UnknownProtocol(
            f"unknown protocol '{key}' (installed: {', '.join(installed_keys())})"
        ) from None


def of(study):
    return get(study.protocol)


def installed_keys():
    return list(_registry)


def registered():
    return list(_registry.values())


def choices():
    """Study.protocol's choices: the installed protocols (a callable, so adding one needs no migration)."""
    return [(protocol.key, protocol.label) for protocol in registered()]
