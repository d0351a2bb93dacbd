"""The contract between the core and the apps that extend studies of a protocol (docs/architecture.md).

An *extension* is an app above the protocols: it may build on them (the
evaluators app writes span annotations and creates review studies), and the
core reaches it only through this registry, as it reaches protocols through
studies/protocols.py. Its AppConfig.ready() registers one Extension object.
Every hook's default means "none of that".
"""


class Extension:
    key = ""
    # {"app_label.model": accounts.policy.ModelRule}: who reads and changes the extension's models.
    access_rules = {}
    # Model names (lower case) that researchers manage in admin (the researchers group's permissions).
    researcher_models = ()
    # REST API resources: (prefix, dotted path of a viewset, basename), under /api/.
    api_routes = ()
    # A top-level key of study.yaml that the extension reads and writes ("" for none).
    study_yaml_key = ""
    # The report's own key (e.g. "evaluator_comparison") and its section of the report page.
    report_key = ""
    report_template = ""
    # Study config options the extension reads, for studies of every protocol: {name: check(value, path)}.
    config_options = {}
    # Admin pages that make a new study, beside "Import study bundle" on the study list, for who may add
    # studies: (route under admin/studies/study/, dotted path of a view(model_admin, request), URL name
    # (without "admin:"), link text).
    study_admin_imports = ()
    # The researcher console's links to the extension's tools for a study, per workflow tab:
    # (tab: "design" | "pilot" | "run" | "analyse" | "publish", link text, URL name, "study" or
    # "changelist": the URL takes the study's id, or is a changelist filtered to the study).
    console_links = ()
    # Other files whose texts can become a study's documents in the console's documents step:
    # {format key: label}; document_texts reads one.
    document_formats = {}

    def study_yaml_check(self, value, spec, problems, name, line):
        """Check the value of `study_yaml_key` (spec: the checked StudySpec, or None); return what
        study_yaml_write needs, after adding every problem to `problems` (file `name`)."""
        return value

    def study_yaml_write(self, study, checked, directory):
        """Write what study_yaml_check returned, in the import's transaction."""

    def study_yaml_export(self, study):
        """The value of `study_yaml_key` for `study`, or None to leave the key out."""
        return None

    def report(self, study, progress):
        """The report's `report_key` part for `study`, or None when it has none."""
        return None

    # A report computed in parts (reports/parts.py): each part's tallies, then the part from them all.
    def report_part(self, study, part):
        """What the part `part` (the protocol's spec, e.g. its documents) adds to the `report_key`
        part, JSON-ready; None when the extension reads the study whole in the merge (report)."""
        return None

    def report_from_parts(self, study, tallies, progress):
        """The `report_key` part from every part's report_part, in study order (the same figures as
        report gives in one pass); `tallies` is read a part at a time each time it is iterated."""
        return self.report(study, progress)

    def report_context(self, result):
        """Template context of the report page's section from the whole report JSON, or None."""
        return None

    def document_texts(self, path, name, fmt):
        """[(line, document)] of a file in one of `document_formats` (documents as documents.jsonl
        lines: id, system, segments, sentences); bundles.problems.BundleInvalid names file, line and
        problem."""
        raise NotImplementedError

    def study_summary(self, study, result):
        """[(label, text)] the researcher console shows for `study` on its home page, from its latest
        finished report's JSON `result` (None: no report yet); [] for nothing."""
        return []

    def __repr__(self):
        return f"<Extension {self.key}>"


_registry = {}


def register(extension):
    if extension.key in _registry and _registry[extension.key] is not extension:
        raise ValueError(f"extension {extension.key!r} is registered twice")
    _registry[extension.key] = extension


def registered():
    return list(_registry.values())


def study_yaml_keys():
    return {extension.study_yaml_key for extension in _registry.values() if extension.study_yaml_key}
