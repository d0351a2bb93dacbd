"""Translation studies for tests: documents with a source beside each segment, one per system."""

from studies.models import Category, Document, Segment
from tests.factories import CategoryFactory, StudyFactory

SOURCES = ["Der Hund bellt.", "Die Katze schläft auf dem Sofa.", "Es regnet."]
TARGETS = {
    "sysA": ["The dog barks.", "The cat sleeps on the sofa.", "It is raining."],
    "sysB": ["The dog barked loudly.", "The cat sleeps.", "It rains."],
    "sysC": ["Dog bark.", "Cat sofa.", "Rain."],
}


def make_translation_study(protocol="mqm", *, systems=("sysA", "sysB"), documents=1, config=None, **fields):
    """A study of `protocol` whose documents are each system's translation of `documents` source
    documents (input ids src-0, src-1, ...), three segments each, sources in Document.meta."""
    study = StudyFactory(protocol=protocol, config=config or {}, **fields)
    contrastive = protocol.startswith("contrastive-")
    if protocol in ("mqm", "contrastive-mqm"):
        taxonomy = study.taxonomy
        CategoryFactory(taxonomy=taxonomy, key="Mistranslation", label="Accuracy/Mistranslation", group="accuracy",
                        shortcut="m")  # fmt: skip
        CategoryFactory(
            taxonomy=taxonomy, key="Omission", label="Accuracy/Omission", group="accuracy", shortcut="o"
        )
        CategoryFactory(taxonomy=taxonomy, key="Punctuation", label="Fluency/Punctuation", group="fluency",
                        shortcut="p")  # fmt: skip
        CategoryFactory(taxonomy=taxonomy, key="NonTranslation", label="Non-translation", group="other",
                        whole_sentence=True, kind=Category.Kind.SINGLETON)  # fmt: skip
    position = 0
    for d in range(documents):
        for system in systems:
            document = Document.objects.create(
                study=study, external_id=f"src-{d}-{system}", input_id=f"src-{d}", system=system,
                meta={"sources": SOURCES, "references": TARGETS["sysA"]}, position=position,
                block=f"src-{d}" if contrastive else "",
            )  # fmt: skip
            position += 1
            for index, text in enumerate(TARGETS[system]):
                Segment.objects.create(document=document, index=index, text=text)
    return study
