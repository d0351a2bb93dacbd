"""What the interop app gives the core through the extension registry (studies/extensions.py)."""

from studies.extensions import Extension


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


EXTENSION = InteropExtension()
