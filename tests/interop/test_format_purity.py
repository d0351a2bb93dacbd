"""The format modules import no Django, so they are tested (and usable) without a database."""

import subprocess
import sys

MODULES = [
    "interop.formats.doccano",
    "interop.formats.potato",
    "interop.formats.factgenie",
    "interop.formats.hf",
    "interop.formats.mqm_tsv",
]


def test_the_format_modules_load_no_django_in_a_clean_interpreter():
    script = (
        "import sys\n"
        f"for name in {MODULES!r}:\n"
        "    __import__(name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'falte_site')}))\n"
    )

    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)

    assert run.stdout.strip() == "[]"
