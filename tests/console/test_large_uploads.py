"""The documents step with files larger than Django keeps in memory: a problem on the last line is
still named by file and line and adds nothing, and the step reads the upload in chunks and holds
one document at a time, not the file (the big-campaigns issue: memory that does not grow)."""

import gc
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, TemporaryFileUploadHandler
from django.urls import reverse

from studies.models import Study

pytestmark = pytest.mark.django_db

DOCUMENTS = 1500  # 3.4 MB of text: more than FILE_UPLOAD_MAX_MEMORY_SIZE, so Django spools it to disk
PARAGRAPH = "The harbour master counted the ships that came in before the storm. " * 12


def big_csv(rows=DOCUMENTS):
    """A .csv of `rows` documents, each a quoted text of two paragraphs over three lines; the number
    of lines it has."""
    lines = ["id,text,system"]
    for number in range(1, rows + 1):
        lines.append(f'd{number},"{PARAGRAPH}\n\n{PARAGRAPH}",sys-{number % 3}')
    return "\n".join(lines) + "\n", 1 + 3 * rows


def big_txt(documents=DOCUMENTS):
    """A .txt of `documents` documents of two paragraphs apart by ---; the line each starts on."""
    lines, starts = [], []
    for _ in range(documents):
        starts.append(len(lines) + 1)
        lines += [PARAGRAPH, "", PARAGRAPH, "---"]
    return "\n".join(lines[:-1]) + "\n", starts


def new_study(client, title):
    client.post(reverse("console:new"), {"title": title, "protocol": "span"})
    return Study.objects.get(title=title)


def upload(client, study, name, content, file_format=""):
    data = {"files": SimpleUploadedFile(name, content.encode())}
    if file_format:  # another tool's export, whose texts become the documents
        data["file_format"] = file_format
    return client.post(reverse("console:documents", args=[study.pk]), data)


def doccano_export(documents=DOCUMENTS):
    """A doccano JSONL export of `documents` texts of two paragraphs (labels left out: texts only)."""
    return "".join(
        json.dumps({"id": number, "text": f"{PARAGRAPH}\n\n{PARAGRAPH}", "label": []}) + "\n"
        for number in range(1, documents + 1)
    )


def test_an_empty_text_on_the_last_row_of_a_large_csv_names_its_line_and_adds_nothing(client):
    study = new_study(client, "Late empty row")
    content, lines = big_csv()
    content += f"d{DOCUMENTS + 1},,sys-1\n"
    page = upload(client, study, "texts.csv", content)
    assert page.status_code == 200
    assert f"texts.csv:{lines + 1}: the text is empty: a document needs text" in page.content.decode()
    assert study.documents.count() == 0


def test_a_duplicate_id_on_the_last_row_of_a_large_csv_is_placed_at_its_line_and_adds_nothing(client):
    """The bundle import finds this one in documents.jsonl: its line there is placed back in the .csv."""
    study = new_study(client, "Late duplicate")
    content, lines = big_csv()
    content += 'd7,"One more text.",sys-1\n'
    page = upload(client, study, "texts.csv", content).content.decode()
    assert f"texts.csv:{lines + 1}: duplicate document id &#x27;d7&#x27;" in page
    assert study.documents.count() == 0


def test_a_late_document_of_a_large_txt_already_in_the_study_is_placed_at_its_line(client):
    study = new_study(client, "Late txt")
    assert upload(client, study, "first.csv", f"id,text\nbig-{DOCUMENTS},Already here.\n").status_code == 302
    content, starts = big_txt()
    page = upload(client, study, "big.txt", content).content.decode()
    assert f"big.txt:{starts[-1]}: document id &#x27;big-{DOCUMENTS}&#x27; is already in the study" in page
    assert list(study.documents.values_list("external_id", flat=True)) == [f"big-{DOCUMENTS}"]


@pytest.mark.parametrize("mark", [b"", b"\xef\xbb\xbf"], ids=["plain", "byte-order mark"])
def test_a_byte_that_is_not_utf8_late_in_a_large_txt_is_named_by_its_offset(client, mark):
    """The offset counts from after a byte-order mark, as it always did."""
    study = new_study(client, f"Not UTF-8 {mark!r}")
    content, _ = big_txt()
    data = mark + content.encode() + "Caf\u00e9 ".encode("latin-1") + b"au lait.\n"
    response = client.post(
        reverse("console:documents", args=[study.pk]), {"files": SimpleUploadedFile("big.txt", data)}
    )
    at = len(content.encode()) + 3
    assert f"big.txt:0: not UTF-8 text (invalid continuation byte at byte {at})" in response.content.decode()
    assert study.documents.count() == 0


def test_a_large_txt_and_csv_are_added_whole(client):
    study = new_study(client, "Large files")
    csv_content, _ = big_csv()
    txt_content, _ = big_txt()
    response = client.post(
        reverse("console:documents", args=[study.pk]),
        {"files": [SimpleUploadedFile("texts.csv", csv_content.encode()),
                   SimpleUploadedFile("big.txt", txt_content.encode())]},
    )  # fmt: skip
    assert response.status_code == 302
    assert study.documents.count() == 2 * DOCUMENTS
    last = study.documents.get(external_id=f"big-{DOCUMENTS}")
    assert [s.text for s in last.segments.order_by("index")] == [PARAGRAPH, PARAGRAPH]


class _ChunksOnly(TemporaryUploadedFile):
    """An upload that refuses to be read whole: read() without a size is what the step must not do."""

    def read(self, size=-1):
        if size is None or size < 0:
            raise AssertionError(f"{self.name} was read whole")
        return self.file.read(size)


class ChunksOnlyUploadHandler(TemporaryFileUploadHandler):
    def new_file(self, *args, **kwargs):
        FileUploadHandler.new_file(self, *args, **kwargs)
        self.file = _ChunksOnly(self.file_name, self.content_type, 0, self.charset, self.content_type_extra)


@pytest.mark.parametrize("name", ["texts.csv", "big.txt", "documents.jsonl"])
def test_the_step_reads_an_upload_in_chunks_never_whole(client, settings, name):
    settings.FILE_UPLOAD_HANDLERS = [f"{__name__}.ChunksOnlyUploadHandler"]
    study = new_study(client, f"Chunks {name}")
    if name == "documents.jsonl":
        content = "".join(
            json.dumps({"id": f"j{n}", "segments": [PARAGRAPH]}) + "\n" for n in range(DOCUMENTS)
        )
    else:
        content, _ = big_csv() if name.endswith(".csv") else big_txt()
    response = upload(client, study, name, content)
    assert response.status_code == 302
    assert study.documents.count() == DOCUMENTS


def _documents_alive():
    """The addresses of the documents (dicts of an id and a list of segments) the interpreter holds."""
    gc.collect()
    return {
        id(o)
        for o in gc.get_objects()
        if type(o) is dict and isinstance(o.get("id"), str) and isinstance(o.get("segments"), list)
    }


def documents_held_at_the_1000th(monkeypatch, send):
    """[the documents alive while the 1,000th is written to documents.jsonl] during `send()`,
    counting only those made after it began (other tests in the same process may have left some)."""
    held, dumps = [], json.dumps

    def counting_dumps(value, *args, **kwargs):
        if isinstance(value, dict) and "segments" in value:
            counting_dumps.documents += 1
            if counting_dumps.documents == 1000:
                held.append(len(_documents_alive() - before))
        return dumps(value, *args, **kwargs)

    counting_dumps.documents = 0
    before = _documents_alive()
    monkeypatch.setattr(json, "dumps", counting_dumps)
    response = send()
    monkeypatch.undo()
    assert response.status_code == 302
    return held


def test_the_step_holds_one_document_at_a_time_not_the_file(client, monkeypatch):
    study = new_study(client, "One at a time")
    content, _ = big_csv()
    held = documents_held_at_the_1000th(monkeypatch, lambda: upload(client, study, "texts.csv", content))
    assert held == [1], f"{held} documents held while writing the 1,000th"


def test_another_tools_export_is_written_a_document_at_a_time(client, monkeypatch):
    """A doccano export on the documents step: read onto a shelf on disk, its texts written to
    documents.jsonl one by one, not gathered first."""
    study = new_study(client, "doccano texts")
    content = doccano_export()
    held = documents_held_at_the_1000th(
        monkeypatch, lambda: upload(client, study, "alice.jsonl", content, file_format="doccano")
    )
    assert held == [1], f"{held} documents held while writing the 1,000th"
    assert study.documents.count() == DOCUMENTS


def test_a_repeated_id_on_the_last_line_of_another_tools_export_names_it_and_adds_nothing(client):
    study = new_study(client, "doccano late problem")
    content = doccano_export() + json.dumps({"id": 7, "text": "Again.", "label": []}) + "\n"
    page = upload(client, study, "alice.jsonl", content, file_format="doccano")
    assert page.status_code == 200
    assert f"alice.jsonl:{DOCUMENTS + 1}: document &#x27;7&#x27;" in page.content.decode()
    assert study.documents.count() == 0


def test_text_read_a_line_at_a_time_cuts_documents_where_the_whole_text_reader_did():
    """Blank lines (even of spaces) beside a --- belong to neither document; before the first ---
    the text is kept as it is; a document's line is that of its first text."""
    from console.documents import documents_from_lines

    text = "  \n  Lead.\n---\n  \n  After a blank line of spaces.\n \n---\n\n---\nLast.\n  "
    assert list(documents_from_lines(io.StringIO(text), prefix="t")) == [
        (2, {"id": "t-1", "segments": ["  \n  Lead."]}),
        (5, {"id": "t-2", "segments": ["  After a blank line of spaces."]}),
        (10, {"id": "t-3", "segments": ["Last.\n  "]}),
    ]
