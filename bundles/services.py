"""Bundle imports and exports as services: each import is one transaction (docs/bundle-format.md)."""

from django.db import transaction

from .exporting import export_study
from .importing import import_bundle, import_documents


def study_import_bundle(*, directory, locate=False, user=None):
    """Import a bundle directory as a new study (all or nothing).

    Raises bundles.BundleInvalid listing every problem as file:line.
    """
    return import_bundle(directory, locate=locate, user=user)


@transaction.atomic
def study_add_documents(*, study, path, name):
    """Add a documents file (documents.jsonl or FALTE documents.json) to `study`."""
    return import_documents(study, path, name)


def study_export_bundle(*, study, directory, identities=True):
    """Write `study` as a bundle directory (round-trips through study_import_bundle).

    identities=False: annotators by pseudonym, no crowd platform secrets (for readers).
    """
    export_study(study, directory, identities=identities)
