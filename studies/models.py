"""Studies and what they are made of: taxonomies, categories, documents, segments."""

import secrets

from django.conf import settings
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q

from studies import protocols

color_validator = RegexValidator(r"^#[0-9a-fA-F]{6}$", "Give a colour as #rrggbb.")


class TaxonomyQuerySet(models.QuerySet):
    def for_user(self, user):
        """Taxonomies a user may see: their own and those of studies they belong to."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(Q(created_by=user) | Q(studies__memberships__user=user)).distinct()


class Taxonomy(models.Model):
    """An error taxonomy; several studies may share one (slug and version)."""

    slug = models.SlugField(max_length=64)
    name = models.CharField(max_length=200)
    version = models.CharField(max_length=32, default="1")
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="taxonomies",
    )

    objects = TaxonomyQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "taxonomies"
        constraints = [
            models.UniqueConstraint(fields=["slug", "version"], name="taxonomy_unique_version"),
        ]
        ordering = ["slug", "version"]

    def __str__(self):
        return f"{self.name} ({self.slug} v{self.version})"


class Category(models.Model):
    """One error category. A paired category also takes an earlier span."""

    class Kind(models.TextChoices):
        SINGLETON = "singleton", "Singleton (one span)"
        PAIRED = "paired", "Paired (also an earlier span)"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="categories")
    key = models.CharField(
        max_length=32,
        validators=[RegexValidator(r"^[A-Za-z][A-Za-z0-9_-]*$", "Letters, digits, - and _.")],
    )
    label = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SINGLETON)
    group = models.CharField(max_length=64, blank=True)
    color = models.CharField(max_length=7, default="#ffe08a", validators=[color_validator])
    shortcut = models.CharField(max_length=1, blank=True, help_text="One key, e.g. c.")
    whole_sentence = models.BooleanField(
        default=False, help_text="Selections snap to whole sentences (e.g. scene transitions)."
    )
    snap_to_words = models.BooleanField(
        default=False, help_text="A selection that cuts a word is widened to the whole word."
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "categories"
        ordering = ["taxonomy", "order", "key"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "key"], name="category_unique_key"),
            models.UniqueConstraint(
                fields=["taxonomy", "shortcut"],
                condition=~Q(shortcut=""),
                name="category_unique_shortcut",
            ),
        ]

    def __str__(self):
        return f"{self.key}: {self.label}"

    @property
    def is_paired(self):
        return self.kind == self.Kind.PAIRED


class StudyQuerySet(models.QuerySet):
    def for_user(self, user):
        """The studies `user` may see: all for a superuser, else their memberships."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(memberships__user=user).distinct()

    def managed_by(self, user):
        """The studies `user` may change: superuser, or a researcher membership."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(memberships__user=user, memberships__role="researcher").distinct()


def new_join_key():
    return secrets.token_urlsafe(12)


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    slug = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    # The installed protocol apps (studies/protocols.py); a callable, so adding one needs no migration.
    protocol = models.CharField(max_length=16, choices=protocols.choices, default=protocols.DEFAULT)
    taxonomy = models.ForeignKey(
        Taxonomy, null=True, blank=True, on_delete=models.PROTECT, related_name="studies"
    )
    instructions = models.TextField(blank=True, help_text="Markdown shown to workers.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    annotators_per_document = models.PositiveIntegerField(default=3, validators=[MinValueValidator(1)])
    max_documents_per_worker = models.PositiveIntegerField(
        null=True, blank=True, help_text="Empty: no limit."
    )
    config = models.JSONField(
        default=dict, blank=True, help_text="Protocol options: scale, tuple size, UI options."
    )
    join_key = models.CharField(max_length=32, unique=True, default=new_join_key, editable=False)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="accounts.StudyMembership",
        related_name="studies",
        blank=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = StudyQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(annotators_per_document__gte=1), name="study_annotators_positive"
            ),
        ]

    def __str__(self):
        return self.title


class DocumentQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))

    def with_text(self):
        """Documents with a segment of text (not only white space): the only ones a worker is given.

        A document without (added in admin before its text was asked for, or whose segments
        are blank) would show a worker "segment 1 of 0" and an empty box; every way of handing
        out documents (generating assignments, join links, qualification rounds, attention
        checks, blocks) starts from this queryset."""
        return self.filter(Exists(Segment.objects.filter(document=OuterRef("pk"), text__regex=r"\S")))

    def without_text(self):
        return self.exclude(pk__in=self.with_text().values("pk"))


class Document(models.Model):
    """One text to judge, split into segments. `input_id` groups systems' outputs."""

    class Kind(models.TextChoices):
        MAIN = "main", "Main"
        QUALIFICATION = "qualification", "Qualification"
        ATTENTION = "attention", "Attention check"

    # Document.meta key of an attention check that is a changed copy of a main document (a
    # translation quality check): the original's external_id. The join link hands such a check
    # only to a worker who has submitted the original (annotations/services/joining.py).
    COPY_OF = "original"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=255)
    input_id = models.CharField(max_length=255, blank=True)
    system = models.CharField(max_length=255, blank=True)
    source = models.TextField(blank=True, help_text="The input the text was generated from.")
    meta = models.JSONField(default=dict, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.MAIN)
    position = models.PositiveIntegerField(default=0, help_text="Order in the bundle.")
    block = models.CharField(
        max_length=64,
        blank=True,
        help_text="Rating studies: documents annotated together by the same workers.",
    )

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["study", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="document_unique_external_id"),
        ]

    def __str__(self):
        return self.external_id


class Segment(models.Model):
    """A piece of a document shown at once. Plain text; offsets are code points."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="segments")
    index = models.PositiveIntegerField()
    text = models.TextField()
    sentences = models.JSONField(default=list, help_text="[start, end) code-point offsets of each sentence.")

    class Meta:
        ordering = ["document", "index"]
        constraints = [
            models.UniqueConstraint(fields=["document", "index"], name="segment_unique_index"),
            models.CheckConstraint(condition=Q(index__gte=0), name="segment_index_nonnegative"),
            models.CheckConstraint(condition=~Q(text=""), name="segment_text_nonempty"),
        ]

    def __str__(self):
        return f"{self.document_id}#{self.index}"
