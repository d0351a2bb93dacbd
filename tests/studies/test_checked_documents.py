"""The checked documents an import keeps on disk until its write (bundles/checked_documents.py)."""

from bundles import checked_documents
from bundles.checked_documents import CheckedDocuments
from bundles.specs import DocumentSpec


def spec(external_id, block="", input_id="", system="", line=1, digest=b"x"):
    return DocumentSpec(external_id=external_id, segments=None, block=block, input_id=input_id,
                        system=system, line=line, digest=digest)  # fmt: skip


def stored(*specs):
    documents = CheckedDocuments()
    for one in specs:
        documents.add(one)
    return documents


def test_the_documents_come_back_in_the_order_they_were_checked_with_what_was_checked():
    documents = stored(spec("z", block="b2", line=3), spec("a", block="b1", line=5), spec("m", line=None))
    assert [d.external_id for d in documents] == ["z", "a", "m"]
    assert list(documents) == [
        spec("z", block="b2", line=3),
        spec("a", block="b1", line=5),
        spec("m", line=None),
    ]
    assert [d.line for d in documents] == [3, 5, None] and len(documents) == 3 and documents
    assert "a" in documents and "b" not in documents and documents.line_of("a") == 5
    assert not CheckedDocuments()


def test_blocks_come_in_the_order_of_their_first_document_without_the_unblocked():
    documents = stored(spec("d1", block="b2"), spec("d2"), spec("d3", block="b1"), spec("d4", block="b2"))
    grouped = [
        (block, [(m.position, m.external_id) for m in members]) for block, members in documents.by_block()
    ]
    assert grouped == [("b2", [(0, "d1"), (3, "d4")]), ("b1", [(2, "d3")])]


def test_a_block_is_read_when_asked_for_and_still_right_after_leaving_the_memory(monkeypatch):
    monkeypatch.setattr(checked_documents, "RECENT_BLOCKS", 1)
    documents = stored(
        spec("d1", block="b1"), spec("d2", block="b2", system="B"), spec("d3", block="b1"), spec("d4")
    )
    blocks = documents.blocks()
    for _ in range(2):  # the second round reads each block again from disk
        assert blocks["b1"] == {"d1", "d3"} and blocks["b2"] == {"d2"}
    assert blocks[""] == {"d4"} and "b3" not in blocks and blocks.get("b3") is None
    only_b2 = documents.blocks(lambda members: {m.external_id for m in members if m.system == "B"} or None)
    assert "b1" not in only_b2 and only_b2["b2"] == {"d2"}


def test_outputs_of_one_input_with_the_same_text_and_another_system_are_paired_with_the_first():
    documents = stored(
        spec("a1", input_id="in1", system="A", digest=b"same", line=1),
        spec("b1", input_id="in1", system="B", digest=b"other", line=2),
        spec("c1", input_id="in1", system="C", digest=b"same", line=3),
        spec("a2", input_id="in1", system="A", digest=b"same", line=4),  # the first's own system: no tie
        spec("x", input_id="in2", system="B", digest=b"same", line=5),  # another input
        spec("n1", system="A", digest=b"same", line=6),  # no input: never compared
        spec("n2", system="B", digest=b"same", line=7),
        spec("d1", input_id="in1", system="D", digest=b"same", line=8),
    )
    pairs = [(later.external_id, first.external_id) for later, first in documents.identical_outputs()]
    assert pairs == [("c1", "a1"), ("d1", "a1")]


def test_a_document_is_read_back_by_its_id():
    documents = stored(spec("a", block="b1", line=2), spec("b", input_id="in", system="S", line=3))
    assert documents.get("b") == spec("b", input_id="in", system="S", line=3) and documents.get("c") is None
