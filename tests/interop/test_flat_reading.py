"""doccano, Potato and factgenie files read once onto a Shelf (interop/shelf.py) and imported a
document at a time: the same corpus as read whole, nothing of it held in memory, and a problem
late in the last file still named by file and line, with nothing imported."""

import gc
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bundles.problems import Problems
from interop.corpus import Annotation, Document
from interop.formats import doccano, factgenie, potato
from interop.importing import write_corpus_bundle
from interop.parts import Parts
from interop.reviewing import write_review_bundle
from protocols.review.models import ReviewItem
from studies.models import Study

DOCUMENTS = 120
ANNOTATORS = ("alice", "bob", "chen")
TEXT = "Mara watched the ship {number}. Jonas counted 🚢 crates at dawn."


def text(number):
    return TEXT.format(number=number)


def doccano_folder(folder):
    """One {annotator}.jsonl per annotator, each labelling every document (UTF-16 offsets: the
    emoji counts two)."""
    folder.mkdir()
    for annotator in ANNOTATORS:
        with (folder / f"{annotator}.jsonl").open("w", encoding="utf-8") as handle:
            for number in range(1, DOCUMENTS + 1):
                labels = [
                    [0, 4, "CharE"],
                    [text(number).index("Jonas"), text(number).index(" counted"), "GramE"],
                ]
                handle.write(json.dumps({"id": number, "text": text(number), "label": labels}) + "\n")
    return folder


def potato_folder(folder):
    """Potato's output folder: <annotator>/annotated_instances.jsonl, each annotating every
    instance (code-point offsets)."""
    for annotator in ANNOTATORS:
        (folder / annotator).mkdir(parents=True)
        with (folder / annotator / potato.FILE).open("w", encoding="utf-8") as handle:
            for number in range(1, DOCUMENTS + 1):
                start, end = text(number).index("Jonas"), text(number).index(" counted")
                spans = [{"start": 0, "end": 4, "span": "Mara", "annotation": "CharE"},
                         {"start": start, "end": end, "span": "Jonas", "annotation": "GramE"}]  # fmt: skip
                record = {"id": f"inst_{number}", "displayed_text": text(number), "label_annotations": {},
                          "span_annotations": spans, "behavioral_data": {"time_string": "Time spent: 0d 0h 0m 9s "}}  # fmt: skip
                handle.write(json.dumps(record) + "\n")
    return folder


def factgenie_campaign(folder, mode="external"):
    """An external campaign (or an LLM one, `mode` llm_eval): files/<annotator>.jsonl, each annotating
    every output; the outputs of even example_idx are given in an outputs file beside the
    campaign, not in the records."""
    (folder / "files").mkdir(parents=True)
    categories = [{"name": "CharE"}, {"name": "GramE"}]
    metadata = {"id": "campaign-1", "mode": mode, "config": {"annotation_span_categories": categories}}
    (folder / "metadata.json").write_text(json.dumps(metadata))
    key = {"dataset": "weather", "split": "test", "setup_id": "sys"}
    with (folder.parent / "outputs.jsonl").open("w", encoding="utf-8") as outputs:
        for number in range(0, DOCUMENTS + 1, 2):
            outputs.write(json.dumps({**key, "example_idx": number, "output": text(number)}) + "\n")
    for annotator in ANNOTATORS:
        with (folder / "files" / f"{annotator}.jsonl").open("w", encoding="utf-8") as handle:
            for number in range(1, DOCUMENTS + 1):
                spans = [{"text": "Mara", "start": 0, "type": 0, "reason": "not in the data"},
                         {"text": "Jonas", "start": text(number).index("Jonas"), "type": 1, "reason": ""}]  # fmt: skip
                record = {
                    **key,
                    "example_idx": number,
                    "annotations": spans,
                    "metadata": {"annotator_id": annotator},
                }
                if number % 2:
                    record["output"] = text(number)
                handle.write(json.dumps(record) + "\n")
    return folder


def last_line(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return len(lines), json.loads(lines[-1])


def rewrite_last_line(path, record):
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines[:-1], json.dumps(record, ensure_ascii=False)]) + "\n", encoding="utf-8")


def by_document(corpus):
    """(document, its annotations in the file's order) of each document, as parts give them."""
    return [
        ([document], [a for a in corpus.annotations if a.document == document.id])
        for document in corpus.documents
    ]


def held():
    """(Documents, Annotations) alive in the process; each count walks every object in it."""
    gc.collect()
    kinds = [type(item) for item in gc.get_objects()]
    return kinds.count(Document), kinds.count(Annotation)


FORMATS = {"doccano": (doccano, doccano_folder, {}), "potato": (potato, potato_folder, {}),
           "factgenie": (factgenie, factgenie_campaign, {"outputs": "outputs.jsonl"})}  # fmt: skip


def options(fmt, folder):
    return {key: folder.parent / value for key, value in FORMATS[fmt][2].items()}


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_parts_are_the_corpus_read_whole_a_document_at_a_time(tmp_path, fmt):
    module, make, _ = FORMATS[fmt]
    folder = make(tmp_path / "export")
    corpus = module.read(folder, "export", Problems(), **options(fmt, folder))

    parts = module.read_parts(folder, "export", Problems(), **options(fmt, folder))

    assert list(parts.parts()) == by_document(corpus)
    assert len(corpus.documents) == DOCUMENTS
    assert len(corpus.annotations) == DOCUMENTS * len(ANNOTATORS)
    assert parts.survey.labels == ["CharE", "GramE"]
    assert parts.survey.annotators_per_document == len(ANNOTATORS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_document_or_annotation_is_held_in_memory_between_the_files_and_the_bundle(tmp_path, fmt):
    module, make, _ = FORMATS[fmt]
    folder = make(tmp_path / "export")
    before = held()

    parts = module.read_parts(folder, "export", Problems(), **options(fmt, folder))
    after_reading = held()
    most = 0
    for number, (documents, annotations) in enumerate(parts.parts()):
        del documents, annotations
        if number % 50 == 49:  # counting walks every object in the process: a few times will do
            most = max(most, held()[0] - before[0])

    assert after_reading == before
    assert most <= 1  # the part being written, never the study's


def problems_of(path, fmt, *given):
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_annotations", str(path), "--format", fmt, "--slug", "flat", *given, stderr=err)
    assert not Study.objects.exists()
    return err.getvalue().splitlines()


@pytest.mark.django_db
def test_doccano_a_span_wrong_in_the_last_line_of_the_last_file_writes_nothing(tmp_path):
    folder = doccano_folder(tmp_path / "export")
    number, record = last_line(folder / "chen.jsonl")
    record["label"][1] = [40, 400, "GramE"]
    rewrite_last_line(folder / "chen.jsonl", record)

    assert problems_of(folder, "doccano") == [
        f"export/chen.jsonl:{number}: document '{DOCUMENTS}': label 2: end 400 is past the text's end "
        f"({len(text(DOCUMENTS)) + 1} UTF-16 code units)"
    ]


@pytest.mark.django_db
def test_doccano_a_text_that_differs_in_the_last_file_writes_nothing(tmp_path):
    folder = doccano_folder(tmp_path / "export")
    number, record = last_line(folder / "chen.jsonl")
    record["text"] += " And more."
    rewrite_last_line(folder / "chen.jsonl", record)

    assert problems_of(folder, "doccano") == [
        f"export/chen.jsonl:{number}: document '{DOCUMENTS}': its text differs from the one on "
        f"export/alice.jsonl line {DOCUMENTS}"
    ]


@pytest.mark.django_db
def test_potato_a_span_wrong_in_the_last_line_of_the_last_file_writes_nothing(tmp_path):
    folder = potato_folder(tmp_path / "output")
    number, record = last_line(folder / "chen" / potato.FILE)
    record["span_annotations"][1]["span"] = "Jonah"
    rewrite_last_line(folder / "chen" / potato.FILE, record)

    assert problems_of(folder, "potato") == [
        f"output/chen/{potato.FILE}:{number}: instance 'inst_{DOCUMENTS}': span 2: text 'Jonah' is not the text "
        "its offsets cover ('Jonas')"
    ]


@pytest.mark.django_db
def test_potato_a_text_that_differs_in_the_last_file_writes_nothing(tmp_path):
    folder = potato_folder(tmp_path / "output")
    number, record = last_line(folder / "chen" / potato.FILE)
    record["displayed_text"] += " And more."
    rewrite_last_line(folder / "chen" / potato.FILE, record)

    assert problems_of(folder, "potato") == [
        f"output/chen/{potato.FILE}:{number}: instance 'inst_{DOCUMENTS}': its displayed_text differs from the one "
        f"on output/alice/{potato.FILE} line {DOCUMENTS}"
    ]


@pytest.mark.django_db
def test_factgenie_a_span_wrong_in_the_last_record_of_the_last_file_writes_nothing(tmp_path):
    campaign = factgenie_campaign(tmp_path / "campaign")
    number, record = last_line(campaign / "files" / "chen.jsonl")
    record["annotations"][1]["start"] += 1
    rewrite_last_line(campaign / "files" / "chen.jsonl", record)

    assert problems_of(campaign, "factgenie", "--option", f"outputs={tmp_path / 'outputs.jsonl'}") == [
        f"campaign/files/chen.jsonl:{number}: output 'weather/test/sys/{DOCUMENTS}': annotation 2: text 'Jonas' "
        "is not the text its offsets cover ('onas ')"
    ]


@pytest.mark.django_db
def test_factgenie_an_output_that_no_file_gives_writes_nothing(tmp_path):
    campaign = factgenie_campaign(tmp_path / "campaign")
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(outputs.read_text().splitlines(keepends=True)[:-1]))

    assert problems_of(campaign, "factgenie", "--option", f"outputs={outputs}") == [
        f"campaign/files/{annotator}.jsonl:{DOCUMENTS}: output 'weather/test/sys/{DOCUMENTS}': the record has no "
        "'output' text and no outputs file gives it (pass the factgenie outputs the campaign annotated)"
        for annotator in ANNOTATORS
    ]


@pytest.mark.django_db
def test_doccano_a_folder_is_imported_with_every_annotators_spans(tmp_path):
    folder = doccano_folder(tmp_path / "export")

    call_command(
        "import_annotations", str(folder), "--format", "doccano", "--slug", "flat", stdout=StringIO()
    )

    study = Study.objects.get(slug="flat")
    assert study.documents.count() == DOCUMENTS
    assert study.assignments.count() == DOCUMENTS * len(ANNOTATORS)
    assert Path(folder).is_dir()


class Watched(Parts):
    """Parts that count the Documents alive in the process now and then, as the writer takes them."""

    def __init__(self, parts):
        self.inner, self.survey, self.most = parts, parts.survey, 0

    def parts(self):
        for number, part in enumerate(self.inner.parts()):
            if number % 50 == 49:
                self.most = max(self.most, held()[0])
            yield part


@pytest.mark.parametrize("writer", [write_corpus_bundle, write_review_bundle], ids=["span", "review"])
def test_the_bundle_is_written_holding_a_part_or_two_never_the_study(tmp_path, writer):
    campaign = factgenie_campaign(tmp_path / "campaign", mode="llm_eval")
    (tmp_path / "bundle").mkdir()
    problems, before = Problems(), held()[0]
    parts = Watched(factgenie.read_parts(campaign, "campaign", problems, outputs=tmp_path / "outputs.jsonl"))

    writer(
        parts, tmp_path / "bundle", name="campaign", fmt="factgenie", slug="flat", problems=problems, notes=[]
    )

    assert problems.items == []
    written = "assignments.jsonl" if writer is write_corpus_bundle else "review_items.jsonl"
    per_document = 1 if writer is write_corpus_bundle else 2  # an assignment, or a review item per span
    assert (tmp_path / "bundle" / written).read_text().count("\n") == DOCUMENTS * len(
        ANNOTATORS
    ) * per_document
    assert (tmp_path / "bundle" / "documents.jsonl").read_text().count("\n") == DOCUMENTS
    # The part being written and the one before it (still named by the writer's loop variables).
    assert parts.most - before <= 2


@pytest.mark.django_db
def test_review_a_span_across_segments_in_the_last_record_writes_nothing(tmp_path):
    campaign = factgenie_campaign(tmp_path / "campaign", mode="llm_eval")
    number, record = last_line(campaign / "files" / "chen.jsonl")
    record["annotations"].append({"text": "ship 120. Jonas", "start": 17, "type": 1, "reason": "both"})
    rewrite_last_line(campaign / "files" / "chen.jsonl", record)

    assert problems_of(campaign, "factgenie", "--option", f"outputs={tmp_path / 'outputs.jsonl'}", "--into",
                       "review", "--sentences-per-segment", "1") == [
        f"campaign:{number}: output 'weather/test/sys/{DOCUMENTS}', annotator 'chen', annotation 3: GramE "
        "[17, 32) crosses the border between segments 0 and 1"
    ]  # fmt: skip


@pytest.mark.django_db
def test_review_of_a_large_llm_campaign_has_every_span_as_an_item(tmp_path):
    campaign = factgenie_campaign(tmp_path / "campaign", mode="llm_eval")

    call_command("import_annotations", str(campaign), "--format", "factgenie", "--slug", "flat", "--into", "review",
                 "--option", f"outputs={tmp_path / 'outputs.jsonl'}", stdout=StringIO())  # fmt: skip

    study = Study.objects.get(slug="flat")
    assert study.documents.count() == DOCUMENTS
    assert ReviewItem.objects.filter(document__study=study).count() == DOCUMENTS * len(ANNOTATORS) * 2
