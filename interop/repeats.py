"""What becomes of a person's (or a model's) repeated annotations of one item (docs/interop.md,
"Repeated annotations"): nothing is dropped, one is their main annotation and the others retests.
"""

from bundles.problems import located

RETEST, LATEST = "retest", "latest"
REPEATS = {
    RETEST: "the default: a person's later annotations of an item are their retests",
    LATEST: "the latest is their main annotation, the earlier ones retests",
}
STORED_RETEST = "retest"  # Assignment.Kind.RETEST


def named(annotation):
    """How a problem or a note names an annotation: by the file's item, else by document and annotator."""
    return annotation.item or f"document {annotation.document}, annotator {annotation.annotator}"


def repeated(annotations):
    """The groups of two or more annotations of one annotator, of one kind, of one document, each
    in the file's order: a person's repeated annotations of an item (Label Studio lets a user
    annotate a task several times)."""
    groups = {}
    for annotation in annotations:
        groups.setdefault((annotation.document, annotation.kind, annotation.annotator), []).append(annotation)
    return [group for group in groups.values() if len(group) > 1]


def stored_kinds(annotations, documents, repeats, name, notes):
    """{id(annotation): the assignment kind it is stored as}, for the repeated ones (`repeated`):
    RETEST keeps the first as the annotator's main (gold, model) annotation and makes each later
    one a retest of the same worker; LATEST keeps the last as the main one and makes the earlier
    ones retests. Each retest is said in `notes`, naming the main one."""
    documents = {document.id: document for document in documents}
    kinds = {}
    for group in repeated(annotations):
        main = group[0] if repeats == RETEST else group[-1]
        document = documents.get(group[0].document)
        of = document.item if document is not None and document.item else f"document {group[0].document!r}"
        main_named = named(main) + (f" on line {main.line}" if main.line else "")
        for number, annotation in enumerate(group, start=1):
            if annotation is main:
                continue
            kinds[id(annotation)] = STORED_RETEST
            notes.append(f"{located(name, annotation.line)}: {named(annotation)}: annotation {number} of {of} by "
                         f"annotator {annotation.annotator!r}, imported as a retest (repeats={repeats}); their "
                         f"main one is {main_named}")  # fmt: skip
    return kinds
