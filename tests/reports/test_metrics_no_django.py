"""reports.metrics is pure: importing it must not load Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_metrics_import_without_django():
    check = (
        "import reports.metrics, reports.metrics.spans, reports.metrics.ratings, reports.metrics.allocation, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
