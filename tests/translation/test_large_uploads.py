"""A translation study's documents step with a large upload: a problem on the last rows is still
named by file and line and adds nothing, the documents are given one at a time and not held (the
big-campaigns issue: memory that does not grow), and they are grouped as the reader that held the
file whole grouped them, however the rows of a document are spread across the table."""

import csv
import gc
import io
import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from bundles.problems import BundleInvalid
from protocols.translation.documents import read_translations
from studies.models import Study

from .test_console_setup import CSV, JSONL

pytestmark = pytest.mark.django_db

SOURCE_DOCUMENTS = 500  # x 2 systems x 6 segments: 6,000 rows, more than Django keeps in memory (2.5 MB)
SEGMENTS = 6
SYSTEMS = ("sysA", "sysB")
SENTENCE = "Der Hafenmeister zählte die Schiffe, die vor dem Sturm einliefen, und schrieb sie auf."


@pytest.fixture
def client(researcher):
    client = Client()
    client.force_login(researcher)
    return client


def segment_rows(documents=SOURCE_DOCUMENTS, segments=SEGMENTS):
    """{column: value} of every row: each system's translation of each source document, a row per
    segment; the sources depend only on the document and the segment."""
    return [
        {"doc_id": f"doc-{number}", "system": system, "seg_id": str(index),
         "source": f"{SENTENCE} ({number}.{index})", "target": f"The harbour master counted ({number}.{index}, {system})."}
        for system in SYSTEMS
        for number in range(1, documents + 1)
        for index in range(1, segments + 1)
    ]  # fmt: skip


def table(rows, columns=("doc_id", "system", "seg_id", "source", "target")):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def new_study(client, protocol, title):
    client.post(reverse("console:new"), {"title": title, "protocol": protocol})
    return Study.objects.get(title=title)


def upload(client, study, name, content):
    return client.post(
        reverse("console:documents", args=[study.pk]),
        {"files": SimpleUploadedFile(name, content if isinstance(content, bytes) else content.encode())},
    )


def problems_on_page(response):
    assert response.status_code == 200
    return response.content.decode().replace("&#x27;", "'")


def test_a_duplicate_seg_id_on_the_last_row_of_a_large_csv_names_its_line_and_adds_nothing(client):
    study = new_study(client, "esa", "Late duplicate seg_id")
    rows = segment_rows()
    content = table([*rows, {**rows[0], "target": "Once more."}])
    page = problems_on_page(upload(client, study, "segments.csv", content))
    assert (
        f"segments.csv:{len(rows) + 2}: seg_id 1 of doc_id 'doc-1', system 'sysA' is already on line 2"
        in page
    )
    assert study.documents.count() == 0


def test_a_source_that_differs_on_the_last_row_of_a_large_csv_names_its_document_and_adds_nothing(client):
    """The last document of sysB translates another last source than sysA's: named at its first row."""
    study = new_study(client, "mqm", "Late source")
    rows = segment_rows()
    rows[-1] = {**rows[-1], "source": "Ein anderer Satz."}
    page = problems_on_page(upload(client, study, "segments.csv", table(rows)))
    last, first_of_a = len(rows) + 1 - (SEGMENTS - 1), SOURCE_DOCUMENTS * SEGMENTS + 1 - (SEGMENTS - 1)
    assert (
        f"segments.csv:{last}: doc_id 'doc-{SOURCE_DOCUMENTS}', system 'sysB': the source of segment "
        f"{SEGMENTS - 1} is not the one system 'sysA' (line {first_of_a}) translates"
    ) in page
    assert study.documents.count() == 0


@pytest.mark.parametrize("mark", [b"", b"\xef\xbb\xbf"], ids=["plain", "byte-order mark"])
def test_a_byte_that_is_not_utf8_late_in_a_large_csv_is_named_by_its_offset(client, mark):
    study = new_study(client, "esa", f"Not UTF-8 {mark!r}")
    content = table(segment_rows()).encode()
    data = mark + content + "doc-1,sysA,99,Caf\u00e9,Coffee.\n".encode("latin-1")
    page = problems_on_page(upload(client, study, "segments.csv", data))
    at = len(content) + len(b"doc-1,sysA,99,Caf")
    assert f"segments.csv:0: not UTF-8 text (invalid continuation byte at byte {at})" in page
    assert study.documents.count() == 0


def test_a_large_csv_is_added_whole_with_its_sources(client):
    study = new_study(client, "esa", "Large table")
    assert upload(client, study, "segments.csv", table(segment_rows())).status_code == 302
    assert study.documents.count() == SOURCE_DOCUMENTS * len(SYSTEMS)
    last = study.documents.get(external_id=f"doc-{SOURCE_DOCUMENTS}#sysB")
    assert last.meta["sources"][-1] == f"{SENTENCE} ({SOURCE_DOCUMENTS}.{SEGMENTS})"


def _alive():
    """(records, Translations) the interpreter holds: documents.jsonl records (dicts with an
    input_id and a list of segments) and the reader's Translation objects."""
    gc.collect()
    objects = gc.get_objects()
    records = sum(
        1 for o in objects if type(o) is dict and "input_id" in o and isinstance(o.get("segments"), list)
    )
    return records, sum(1 for o in objects if type(o).__name__ == "Translation")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_the_step_holds_one_translation_at_a_time_not_the_file(client, monkeypatch, fmt):
    """While the 1,000th document is written to documents.jsonl, count the documents alive (beyond
    those that earlier tests left alive)."""
    study = new_study(client, "esa", f"One at a time {fmt}")
    held, dumps = [], json.dumps

    def counting_dumps(value, *args, **kwargs):
        if isinstance(value, dict) and "input_id" in value:
            counting_dumps.documents += 1
            if counting_dumps.documents == 1000:
                held.append(_alive())
        return dumps(value, *args, **kwargs)

    counting_dumps.documents = 0
    if fmt == "csv":
        content = table(segment_rows())
    else:
        rows = segment_rows()
        content = "".join(
            dumps({"doc_id": rows[at]["doc_id"], "system": rows[at]["system"],
                   "segments": [{"source": r["source"], "target": r["target"]} for r in rows[at : at + SEGMENTS]]}) + "\n"
            for at in range(0, len(rows), SEGMENTS)
        )  # fmt: skip
    records_before, translations_before = _alive()
    monkeypatch.setattr(json, "dumps", counting_dumps)
    assert upload(client, study, f"segments.{fmt}", content).status_code == 302
    held = [(records - records_before, translations - translations_before) for records, translations in held]
    assert held == [(1, 1)], f"(records, Translations) held while writing the 1,000th: {held}"


def grouped_as_before(rows, numbered):
    """The records of valid rows, grouped as the reader that held the file whole grouped them: by
    (doc_id, system) in the order of first appearance, the segments by seg_id or else by row."""
    documents = {}
    for number, row in enumerate(rows):
        documents.setdefault((row["doc_id"], row["system"]), []).append(
            (int(row["seg_id"]) if numbered else number, row["source"], row["target"])
        )
    return [
        {"id": f"{doc_id}#{system}", "input_id": doc_id, "system": system,
         "segments": [target for _, _, target in sorted(segments)],
         "meta": {"sources": [source for _, source, _ in sorted(segments)]}}
        for (doc_id, system), segments in documents.items()
    ]  # fmt: skip


@pytest.mark.parametrize("numbered", [True, False], ids=["seg_id", "row order"])
def test_rows_of_a_document_spread_across_the_table_are_grouped_as_before(tmp_path, numbered):
    rows = segment_rows(documents=60, segments=12)  # seg_id 10 comes after 9, not after 1
    random.Random(7).shuffle(rows)
    columns = (
        ("doc_id", "system", "seg_id", "source", "target")
        if numbered
        else ("doc_id", "system", "source", "target")
    )
    path = tmp_path / "shuffled.csv"
    path.write_text(table(rows, columns))
    if not numbered:  # the rows' order is the segments' order: every system's in the same order
        rows.sort(key=lambda row: (row["doc_id"], int(row["seg_id"])))
        path.write_text(table(rows, columns))
    read = list(read_translations(path, "shuffled.csv", "csv"))
    assert [record for _, record in read] == grouped_as_before(rows, numbered)
    assert len(read) == 60 * len(SYSTEMS)


def test_the_console_fixtures_give_the_records_they_always_gave(tmp_path):
    (tmp_path / "news.csv").write_text(CSV)
    (tmp_path / "news.jsonl").write_text(JSONL)
    from_csv = list(read_translations(tmp_path / "news.csv", "news.csv", "csv", contrastive=True))
    assert from_csv == [
        (2, {"id": "news-1#sysA", "input_id": "news-1", "system": "sysA", "segments": ["The dog barks.", "It rains."],
             "meta": {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", "It is raining."]},
             "block": "news-1"}),
        (4, {"id": "news-1#sysB", "input_id": "news-1", "system": "sysB", "segments": ["The dog barked.", "Rain."],
             "meta": {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", "It is raining."]},
             "block": "news-1"}),
        (6, {"id": "news-2#sysA", "input_id": "news-2", "system": "sysA", "segments": ["Good morning,\nshe said."],
             "meta": {"sources": ["Guten Morgen,\nsagte sie."]}, "block": "news-2"}),
    ]  # fmt: skip
    from_jsonl = list(read_translations(tmp_path / "news.jsonl", "news.jsonl", "jsonl"))
    assert from_jsonl == [
        (1, {"id": "news-1#sysA", "input_id": "news-1", "system": "sysA", "segments": ["The dog barks.", "It rains."],
             "meta": {"sources": ["Der Hund bellt.", "Es regnet."], "source_lang": "de", "target_lang": "en"}}),
        (3, {"id": "news-1#sysB", "input_id": "news-1", "system": "sysB", "segments": ["Dog.", "Rain."],
             "meta": {"sources": ["Der Hund bellt.", "Es regnet."], "references": ["The dog is barking.", ""]}}),
    ]  # fmt: skip


def test_problems_come_in_the_order_they_always_did(tmp_path):
    """The rows' cell counts first, then their values row by row, then the sources of each system."""
    path = tmp_path / "t.csv"
    path.write_text(
        "doc_id,system,source,target,seg_id\n"
        "d,A,Eins.,One.,1\n"
        "d,B,Ein.,One.,1\n"
        "d,A,Zwei.,,2\n"
        "d,A,Drei.,Three.,1\n"
        "d,A,Vier.,Four.,4,x\n"
    )
    with pytest.raises(BundleInvalid) as invalid:
        list(read_translations(path, "t.csv", "csv"))
    assert [(p.line, p.message.split(":")[0]) for p in invalid.value.problems] == [
        (6, "6 cells, but the header has 5 columns"),
        (4, "the target is empty"),
        (5, "seg_id 1 of doc_id 'd', system 'A' is already on line 2"),
        (3, "doc_id 'd', system 'B'"),
    ]
