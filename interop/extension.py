"""What the interop app gives the core through the extension registry (studies/extensions.py)."""

from studies.extensions import Extension

from .documents import TEXT_FORMATS, texts_of


class InteropExtension(Extension):
    key = "interop"
    study_admin_imports = (
        (
            "import-annotations/",
            "interop.admin.import_annotations",
            "studies_study_import_annotations",
            "Import annotations (Label Studio, doccano, ...)",
        ),
    )
    console_links = (
        (
            "design",
            "Import another tool's annotations as a new study",
            "admin:studies_study_import_annotations",
            "changelist",
        ),
    )

    document_formats = TEXT_FORMATS

    def document_texts(self, path, name, fmt):
        return texts_of(path, name, fmt)


EXTENSION = InteropExtension()
