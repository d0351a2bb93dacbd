"""Writes on studies. Each is one transaction; see studies/bundle for formats."""

from django.db import transaction

from .bundle.exporting import export_study
from .bundle.importing import import_bundle, import_documents


def study_import_bundle(*, directory, locate=False, user=None):
    """Import a bundle directory as a new study (all or nothing).

    Raises studies.bundle.BundleInvalid listing every problem as file:line.
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
