"""The documents a run covers and their segments, read once per run."""

from studies.models import Document, Segment


class UnknownDocuments(ValueError):
    """A run names documents its study does not have."""


def documents_to_run(evaluator, external_ids):
    """The documents a run covers: the named ones (all must exist), else every main document."""
    documents = evaluator.study.documents.all()
    if not external_ids:
        return list(documents.filter(kind=Document.Kind.MAIN).order_by("position", "id"))
    found = {d.external_id: d for d in documents.filter(external_id__in=external_ids)}
    unknown = [name for name in external_ids if name not in found]
    if unknown:
        raise UnknownDocuments(
            f"unknown document(s) of study {evaluator.study.slug}: {', '.join(map(str, unknown[:10]))}"
        )
    return [found[name] for name in dict.fromkeys(external_ids)]


def segment_texts(document_ids):
    """{document id: [segment texts]} and {document id: [segment ids]}, in segment order."""
    texts = {pk: [] for pk in document_ids}
    ids = {pk: [] for pk in document_ids}
    rows = Segment.objects.filter(document_id__in=document_ids).order_by("document_id", "index")
    for pk, document_id, text in rows.values_list("id", "document_id", "text").iterator(chunk_size=20_000):
        texts[document_id].append(text)
        ids[document_id].append(pk)
    return texts, ids
