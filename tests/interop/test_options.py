"""A format's reading options, from the command line (--option NAME=VALUE) and from admin's upload."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from protocols.span.models import ErrorAnnotation
from studies.models import Study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
DOCCANO = FILES / "doccano" / "relations.jsonl"
EMOJI = '{"id": 1, "text": "I love 🍣 and 🍜!", "label": [[7, 9, "FOOD"]]}\n'  # UTF-16 units: the sushi


def texts_of(slug):
    rows = ErrorAnnotation.objects.filter(assignment__study__slug=slug).select_related("segment")
    return [row.segment.text[row.start : row.end] for row in rows]


def test_the_offsets_option_changes_how_doccano_is_read(tmp_path):
    path = tmp_path / "emoji.jsonl"
    path.write_text(EMOJI, encoding="utf-8")
    call_command("import_annotations", str(path), "--format", "doccano", "--slug", "units")
    call_command(
        "import_annotations",
        str(path),
        "--format",
        "doccano",
        "--slug",
        "points",
        "--option",
        "offsets=code-points",
    )
    assert texts_of("units") == ["🍣"]
    assert texts_of("points") == ["🍣 "]


@pytest.mark.parametrize(
    ("fmt", "option", "message"),
    [
        ("doccano", "colour=red", "format 'doccano' has no option 'colour'; its options: offsets, repeats"),
        (
            "factgenie",
            "offsets=utf-16",
            "format 'factgenie' has no option 'offsets'; its options: outputs, repeats",
        ),
        ("doccano", "offsets", "option 'offsets': give NAME=VALUE"),
        ("doccano", "=utf-16", "option '=utf-16': give NAME=VALUE"),
        ("potato", "offsets=utf-16", "format 'potato' has no option 'offsets'; its options: repeats"),
    ],
)
def test_a_bad_option_is_refused_naming_the_formats_options_and_nothing_is_written(fmt, option, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_annotations", str(DOCCANO), "--format", fmt, "--slug", "x", "--option", option)
    assert not Study.objects.exists()


def test_an_option_given_twice_is_refused():
    with pytest.raises(CommandError, match="option 'offsets' is given twice"):
        call_command(
            "import_annotations", str(DOCCANO), "--format", "doccano", "--slug", "x",
            "--option", "offsets=utf-16", "--option", "offsets=code-points",
        )  # fmt: skip


def test_a_bad_option_value_is_the_readers_problem():
    with pytest.raises(CommandError, match="1 problem"):
        call_command(
            "import_annotations",
            str(DOCCANO),
            "--format",
            "doccano",
            "--slug",
            "x",
            "--option",
            "offsets=bytes",
        )
    assert not Study.objects.exists()


def test_the_text_field_option_is_label_studios_text_field(tmp_path):
    call_command(
        "import_annotations", str(FILES / "label-studio-export.json"), "--format", "label-studio",
        "--slug", "ls", "--option", "text-field=text",
    )  # fmt: skip
    assert Study.objects.get(slug="ls").documents.count() == 2


def upload(client, content, *, name, fmt, options="", slug="uploaded"):
    data = {"file": SimpleUploadedFile(name, content), "format": fmt, "slug": slug, "options": options}
    return client.post(reverse("admin:studies_study_import_annotations"), data)


def test_admin_takes_options_as_name_value_lines(client, researcher):
    client.force_login(researcher)
    response = upload(
        client, EMOJI.encode(), name="emoji.jsonl", fmt="doccano", options="offsets=code-points\n"
    )
    assert response.status_code == 302
    assert texts_of("uploaded") == ["🍣 "]


@pytest.mark.parametrize(
    ("fmt", "options", "message"),
    [
        (
            "doccano",
            "colour=red",
            "format &#x27;doccano&#x27; has no option &#x27;colour&#x27;; its options: offsets, repeats",
        ),
        ("factgenie", "outputs=/etc/passwd", "factgenie&#x27;s outputs file is read on the server"),
    ],
)
def test_admin_refuses_a_bad_option_and_writes_nothing(client, researcher, fmt, options, message):
    client.force_login(researcher)
    page = upload(client, EMOJI.encode(), name="emoji.jsonl", fmt=fmt, options=options).content.decode()
    assert message in page
    assert not Study.objects.exists()
