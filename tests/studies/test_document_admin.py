"""Admin's add and change pages of a document: its text is entered there, and a document without
text cannot be saved (workers would be handed an empty page)."""

import pytest
from django.urls import reverse

from studies.models import Document, Segment
from studies.sentences import sentence_offsets
from studies.services import document_segments_replace
from tests.factories import AssignmentFactory, DocumentFactory, SegmentFactory, make_span_study

pytestmark = pytest.mark.django_db

ADD = "admin:studies_document_add"


def change_url(document):
    return reverse("admin:studies_document_change", args=[document.pk])


def form_data(study, **fields):
    return {"study": study.pk, "external_id": "new-doc", "input_id": "", "system": "", "kind": "main",
            "position": "0", "source": "", "meta": "{}", **fields}  # fmt: skip


def test_the_add_page_asks_for_the_text(client, researcher):
    make_span_study(researcher=researcher)
    client.force_login(researcher)
    page = client.get(reverse(ADD)).content.decode()
    assert 'name="text"' in page and "blank line" in page


@pytest.mark.parametrize("text", ["", "   \r\n\r\n  \t "], ids=["no-text", "white-space"])
def test_a_document_without_text_is_refused_and_not_saved(client, researcher, text):
    study = make_span_study(researcher=researcher, documents=0)
    client.force_login(researcher)
    response = client.post(reverse(ADD), form_data(study, text=text))
    assert response.status_code == 200
    assert "A document needs its text" in response.content.decode()
    assert not Document.objects.filter(external_id="new-doc").exists()


def test_paragraphs_become_segments_with_their_sentences(client, researcher):
    study = make_span_study(researcher=researcher, documents=0)
    client.force_login(researcher)
    text = "  Anna met Ben. They talked.\r\n\r\n\r\nRosalie waved.\r\nBen left.\r\n"
    response = client.post(reverse(ADD), form_data(study, text=text))
    assert response.status_code == 302, response.content.decode()
    document = Document.objects.get(external_id="new-doc")
    segments = list(document.segments.order_by("index").values_list("text", "sentences"))
    assert segments == [
        ("Anna met Ben. They talked.", sentence_offsets("Anna met Ben. They talked.")),
        ("Rosalie waved.\nBen left.", sentence_offsets("Rosalie waved.\nBen left.")),
    ]
    assert [len(sentences) for _, sentences in segments] == [2, 2]


def test_the_change_page_shows_the_text_and_a_new_text_replaces_the_segments(client, researcher):
    study = make_span_study(researcher=researcher, documents=1, segments=2)
    document = study.documents.get()
    client.force_login(researcher)
    page = client.get(change_url(document)).content.decode()
    text = "Segment 0 of document 0. Anna met Ben.\n\nSegment 1 of document 0. Anna met Ben."
    assert text in page
    # Saved as the browser sends it back (CRLF), the same text keeps the same segments.
    segment_ids = list(document.segments.values_list("pk", flat=True))
    data = form_data(study, external_id=document.external_id, system="sysB", text=text.replace("\n", "\r\n"))
    assert client.post(change_url(document), data).status_code == 302
    assert list(document.segments.values_list("pk", flat=True)) == segment_ids
    data = form_data(study, external_id=document.external_id, text="One paragraph now.")
    assert client.post(change_url(document), data).status_code == 302
    assert list(document.segments.values_list("text", flat=True)) == ["One paragraph now."]


def test_an_assigned_documents_text_cannot_change(client, researcher):
    study = make_span_study(researcher=researcher, documents=1, segments=1)
    document = study.documents.get()
    AssignmentFactory(document=document)
    client.force_login(researcher)
    page = client.get(change_url(document)).content.decode()
    assert "Assigned to workers: the text cannot change" in page
    data = form_data(study, external_id=document.external_id, system="sysB", text="Something else.")
    assert client.post(change_url(document), data).status_code == 302
    document.refresh_from_db()
    assert document.system == "sysB"
    assert list(document.segments.values_list("text", flat=True)) == [
        "Segment 0 of document 0. Anna met Ben."
    ]


def test_an_empty_document_made_before_cannot_be_saved_without_text(client, researcher):
    study = make_span_study(researcher=researcher, documents=0)
    empty = DocumentFactory(study=study, external_id="empty")
    blank = DocumentFactory(study=study, external_id="blank")
    SegmentFactory(document=blank, index=0, text="  \n ")
    client.force_login(researcher)
    for document in (empty, blank):
        # Assigned or not: nothing can point into a text that is not there, so the text may be given now.
        AssignmentFactory(document=document)
        response = client.post(
            change_url(document), form_data(study, external_id=document.external_id, text="")
        )
        assert "A document needs its text" in response.content.decode()
        data = form_data(study, external_id=document.external_id, text="Now it has text.")
        assert client.post(change_url(document), data).status_code == 302
        assert list(document.segments.values_list("text", flat=True)) == ["Now it has text."]
    assert Segment.objects.filter(document__study=study).count() == 2


@pytest.mark.parametrize("segments", [[], ["  "], ["Fine.", "\n"]], ids=["none", "blank", "one-blank"])
def test_the_service_refuses_segments_without_text(segments):
    document = SegmentFactory(index=0).document
    with pytest.raises(ValueError, match="at least one"):
        document_segments_replace(document=document, segments=segments)
    assert document.segments.count() == 1
