"""A corpus as parts: what the whole file decides, then its documents and annotations a part at a time.

Writing a file's corpus as a bundle needs a few facts of the whole file (the labels
in their order, which are paired, the models, the most people on one document);
everything else can be written one document at a time. A format that reads its file
twice (Label Studio: interop/reading.py) gives the facts from a first reading and its
parts from a second, so that nothing the size of the file is held; any other format's
corpus, read whole, is one part (`WholeCorpus`). A format module offers the first as
`read_parts(path, name, problems, **options)`, beside its `read`; the import takes it
when it is there (services.py).

A part holds its documents and every annotation of them: a person's repeated
annotations of a document are told apart within the part, and an annotation's
document comes in the same part (or an earlier one).
"""

from dataclasses import dataclass, field

from . import corpus as c
from .links import LinkPlan, LinkPlanning


@dataclass
class Survey:
    """What the whole file says that decides how each of its parts is written."""

    labels: list = field(default_factory=list)  # in the order the file declares or first uses them
    plan: LinkPlan = field(default_factory=LinkPlan)  # links.link_plan over the whole file
    models: list = field(default_factory=list)  # the annotators of kind model, in their order
    annotators_per_document: int = 0  # the most people (kind main) annotating one document
    notes: list = field(default_factory=list)  # what was read but not taken


class Surveying:
    """A Survey built from the annotations as they are read, a document's (or more) at a time."""

    def __init__(self, labels=(), notes=()):
        self.labels = dict.fromkeys(labels)
        self.models = {}
        self.planning = LinkPlanning()
        self.most_people = 0
        self.notes = list(notes)

    def add(self, annotations):
        """Annotations of some documents, each document's all in one call."""
        people = {}
        for annotation in annotations:
            self.labels.update(dict.fromkeys(region.label for region in annotation.regions))
            if annotation.kind == c.MODEL:
                self.models.setdefault(annotation.annotator)
            elif annotation.kind == c.MAIN:
                people.setdefault(annotation.document, set()).add(annotation.annotator)
            self.planning.add(annotation)
        self.most_people = max([self.most_people, *map(len, people.values())])

    def survey(self):
        return Survey(labels=list(self.labels), plan=self.planning.plan(), models=list(self.models),
                      annotators_per_document=self.most_people, notes=self.notes)  # fmt: skip


class Parts:
    """A corpus read a part at a time: its `survey`, and `parts()`: (documents, annotations) of each."""

    survey: Survey

    def parts(self):
        raise NotImplementedError


class WholeCorpus(Parts):
    """A corpus read whole, as one part."""

    def __init__(self, corpus):
        self.corpus = corpus
        surveying = Surveying(corpus.labels, corpus.notes)
        surveying.add(corpus.annotations)
        self.survey = surveying.survey()

    def parts(self):
        yield self.corpus.documents, self.corpus.annotations
