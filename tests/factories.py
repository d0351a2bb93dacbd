"""Factories for test data: a span study with the SNaC-like taxonomy and documents."""

import factory
from django.contrib.auth import get_user_model

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from studies.models import Category, Document, Segment, Study, Taxonomy
from studies.sentences import sentence_offsets


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("pass-w0rd-for-tests")


class TaxonomyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Taxonomy

    slug = factory.Sequence(lambda n: f"taxonomy-{n}")
    name = factory.Sequence(lambda n: f"Taxonomy {n}")


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category

    taxonomy = factory.SubFactory(TaxonomyFactory)
    key = factory.Sequence(lambda n: f"Cat{n}")
    label = factory.LazyAttribute(lambda c: f"Label of {c.key}")
    kind = Category.Kind.SINGLETON
    group = "coherence"


class StudyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Study

    slug = factory.Sequence(lambda n: f"study-{n}")
    title = factory.Sequence(lambda n: f"Study {n}")
    taxonomy = factory.SubFactory(TaxonomyFactory)
    status = Study.Status.OPEN


class DocumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Document

    study = factory.SubFactory(StudyFactory)
    external_id = factory.Sequence(lambda n: f"doc-{n}")
    system = "sysA"


class SegmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Segment

    document = factory.SubFactory(DocumentFactory)
    index = factory.Sequence(lambda n: n)
    text = "Anna met Ben at the mill. They talked for hours."
    sentences = factory.LazyAttribute(lambda s: sentence_offsets(s.text))


class WorkerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Worker

    platform = Worker.Platform.LINK
    external_id = factory.Sequence(lambda n: f"worker-{n}")


class AssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Assignment

    document = factory.SubFactory(DocumentFactory)
    study = factory.LazyAttribute(lambda a: a.document.study)
    worker = factory.SubFactory(WorkerFactory)


class ErrorAnnotationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ErrorAnnotation

    assignment = factory.SubFactory(AssignmentFactory)
    segment = factory.SubFactory(SegmentFactory)
    category = factory.SubFactory(CategoryFactory)
    start = 0
    end = 4
    text = "Anna"
    client_id = factory.Sequence(lambda n: f"client-{n}")


def make_span_study(*, documents=2, segments=3, researcher=None, **study_fields):
    """A study with a paired and two singleton categories and documents of segments."""
    study = StudyFactory(**study_fields)
    taxonomy = study.taxonomy
    CategoryFactory(taxonomy=taxonomy, key="CharE", group="coherence", shortcut="c")
    CategoryFactory(taxonomy=taxonomy, key="RepE", group="language", kind=Category.Kind.PAIRED)
    CategoryFactory(taxonomy=taxonomy, key="SceneE", group="coherence", whole_sentence=True)
    for d in range(documents):
        document = DocumentFactory(study=study, external_id=f"{study.slug}-doc{d}", position=d)
        for s in range(segments):
            SegmentFactory(document=document, index=s, text=f"Segment {s} of document {d}. Anna met Ben.")
    if researcher is not None:
        StudyMembership.objects.create(study=study, user=researcher)
    return study
