"""docs/interop.md's worked example, run as the page shows it: the figures pasted there are these."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "label-studio-export.json"


def test_the_documented_label_studio_example_imports_and_reports_the_documented_figures(tmp_path):
    out = StringIO()
    call_command("import_annotations", str(EXAMPLE), "--format", "label-studio", "--slug", "stories",
                 "--sentences-per-segment", "2", stdout=out)  # fmt: skip
    assert out.getvalue().splitlines() == [
        "imported stories: 4 documents, 8 segments, 13 assignments, 16 annotations",
        "note: label-studio-export.json:560: task 204, annotation 13: cancelled (was_cancelled), not imported",
    ]
    call_command("study_report", "stories", "--output", str(tmp_path / "report.json"), stdout=StringIO())
    report = json.loads((tmp_path / "report.json").read_text())
    rounded = json.loads(json.dumps({"categories": report["categories"], "groups": report["groups"]}),
                         parse_float=lambda text: round(float(text), 2))  # fmt: skip
    assert rounded == {
        "categories": {
            "CharE": {"spans": 8, "token_alpha": 0.4, "token_alpha_union": 0.4, "two_agree_pct": 71.43,
                      "two_agree_pct_union": 71.43},
            "InconE": {"spans": 7, "token_alpha": 0.63, "token_alpha_union": 0.7, "two_agree_pct": 100.0,
                       "two_agree_pct_union": 100.0},
        },
        "groups": {
            "CharE": {"segment_alpha": 0.1, "sentence_alpha": 0.27},
            "InconE": {"segment_alpha": 0.61, "sentence_alpha": 0.67},
        },
    }  # fmt: skip
    assert report["annotators_per_document"] == 3
    assert sorted(report["evaluator_comparison"]["by_evaluator"]) == ["char-detector-v1"]


def test_the_documented_example_exports_back_to_an_equivalent_file(tmp_path):
    from tests.interop.test_label_studio import exported

    call_command("import_annotations", str(EXAMPLE), "--format", "label-studio", "--slug", "stories",
                 "--sentences-per-segment", "2", stdout=StringIO())  # fmt: skip
    call_command("export_annotations", "stories", "--format", "label-studio", str(tmp_path / "back.json"),
                 stdout=StringIO())  # fmt: skip
    assert exported(tmp_path / "back.json") == exported(EXAMPLE)
