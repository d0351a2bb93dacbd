"""Automatic evaluators of a study, their runs, and what each run produced per document.

An evaluator's output becomes the rows of a *model* assignment
(Assignment.Kind.MODEL) whose worker is the evaluator (Worker.Platform.MODEL,
external id = the evaluator's key): ErrorAnnotation rows in a span study,
TranslationError and SegmentScore rows in an MQM or ESA study. The people's
figures never count them; the evaluator comparison and the review loop read them.
"""

import math

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q

from studies.config import is_http_url
from studies.models import Study

key_validator = RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", "Letters, digits, '.', '-' and '_'.")


def http_url_validator(value):
    """Endpoints are absolute http(s) URLs: no file:, ftp:, javascript: or host-relative ones."""
    if not is_http_url(value):
        raise ValidationError("Give an absolute http:// or https:// URL.")


env_name_validator = RegexValidator(
    r"^[A-Za-z_][A-Za-z0-9_]*$", "The name of an environment variable, e.g. OPENAI_API_KEY."
)

# What every evaluator setting may be: (least, most), None for no limit. The model's validators
# (admin's form, study.yaml) and the database's constraints both come from here.
BOUNDS = {
    "concurrency": (1, 64),
    "timeout_seconds": (1, 600),
    "max_retries": (0, 10),
    "max_tokens": (1, 32_768),
    "temperature": (0, 2),
    "price_input_per_1k": (0, None),
    "price_output_per_1k": (0, None),
}
PROMPT_TEMPLATE_MAX_CHARS = 100_000


def finite(value):
    """NaN passes every comparison, so the bounds alone would let it through (YAML's .nan)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValidationError("Give a finite number.")


def bound_validators(field):
    least, most = BOUNDS[field]
    return [finite, MinValueValidator(least)] + ([MaxValueValidator(most)] if most is not None else [])


def _bound_constraints():
    nullable = {"max_tokens", "temperature"}
    constraints = []
    for field, (least, most) in BOUNDS.items():
        within = Q(**{f"{field}__gte": least})
        if most is not None:
            within &= Q(**{f"{field}__lte": most})
        if field in nullable:
            within |= Q(**{f"{field}__isnull": True})
        constraints.append(models.CheckConstraint(condition=within, name=f"evaluator_{field}_bounds"))
    return constraints


class EvaluatorQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))


class Evaluator(models.Model):
    """One automatic evaluator of one study: an LLM endpoint, a built-in detector or imported predictions."""

    class Kind(models.TextChoices):
        LLM = "llm", "LLM (OpenAI-compatible chat completions)"
        BUILTIN = "builtin", "Built-in detector"
        IMPORT = "import", "Imported predictions"

    class ResponseFormat(models.TextChoices):
        JSON_SCHEMA = "json_schema", "JSON schema (structured outputs)"
        JSON_OBJECT = "json_object", "JSON object mode"
        INSTRUCTED = "instructed", "Instructed in the prompt only"

    class Occurrences(models.TextChoices):
        ALL = "all", "Every occurrence"
        FIRST = "first", "The first occurrence"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="evaluators")
    key = models.CharField(max_length=64, validators=[key_validator], help_text="Its name as an annotator.")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    description = models.TextField(blank=True)
    # LLM endpoints
    # Any http(s) URL with a host: single-label hosts (a compose service, "gpu-box:8000") are common here.
    base_url = models.CharField(
        blank=True,
        max_length=500,
        validators=[http_url_validator],
        help_text="http(s) URL of an OpenAI-compatible API, e.g. http://host:8000/v1.",
    )
    model = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True, validators=bound_validators("temperature"))
    seed = models.BigIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(null=True, blank=True, validators=bound_validators("max_tokens"))
    api_key_env = models.CharField(
        max_length=100, blank=True, validators=[env_name_validator],
        help_text="An environment variable the operator allows as an evaluator key (EVALUATOR_KEY_VARIABLES).",
    )  # fmt: skip
    credential = models.CharField(
        max_length=64, blank=True, validators=[key_validator],
        help_text="Or the name of a key stored for this study (Study keys).",
    )  # fmt: skip
    response_format = models.CharField(
        max_length=16, choices=ResponseFormat.choices, default=ResponseFormat.JSON_SCHEMA
    )
    prompt_template = models.TextField(
        blank=True, validators=[MaxLengthValidator(PROMPT_TEMPLATE_MAX_CHARS)],
        help_text="Django template language; empty: the platform's default span prompt.",
    )  # fmt: skip
    timeout_seconds = models.FloatField(
        default=60.0, validators=bound_validators("timeout_seconds"), help_text="Seconds, 1 to 600."
    )
    max_retries = models.PositiveIntegerField(
        default=4,
        validators=bound_validators("max_retries"),
        help_text="On 429, 5xx and timeouts, with backoff (0 to 10).",
    )
    concurrency = models.PositiveIntegerField(
        default=4, validators=bound_validators("concurrency"), help_text="Calls in flight at once (1 to 64)."
    )
    price_input_per_1k = models.DecimalField(
        max_digits=12, decimal_places=6, default=0, validators=bound_validators("price_input_per_1k"),
        help_text="Price per 1,000 prompt tokens.",
    )  # fmt: skip
    price_output_per_1k = models.DecimalField(
        max_digits=12, decimal_places=6, default=0, validators=bound_validators("price_output_per_1k"),
        help_text="Price per 1,000 completion tokens.",
    )  # fmt: skip
    # Built-in detectors
    detector = models.CharField(max_length=64, blank=True, help_text="Built-in detector, e.g. repetition.")
    options = models.JSONField(default=dict, blank=True, help_text="Detector options, e.g. {'n': 4}.")
    # Where a span without offsets or an occurrence number lands
    occurrences = models.CharField(max_length=8, choices=Occurrences.choices, default=Occurrences.ALL)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EvaluatorQuerySet.as_manager()

    class Meta:
        ordering = ["study", "key"]
        constraints = [
            models.UniqueConstraint(fields=["study", "key"], name="evaluator_unique_key"),
            models.CheckConstraint(
                condition=Q(api_key_env="") | Q(credential=""), name="evaluator_one_key_source"
            ),
            *_bound_constraints(),
        ]

    def __str__(self):
        return f"{self.key} ({self.kind})"


class EvaluatorRunQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(evaluator__study__in=Study.objects.for_user(user))

    def active(self):
        return self.filter(status__in=[EvaluatorRun.Status.QUEUED, EvaluatorRun.Status.RUNNING])


class EvaluatorRun(models.Model):
    """One run of an evaluator over documents of its study: a Celery job, resumable per document."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    evaluator = models.ForeignKey(Evaluator, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    documents = models.JSONField(
        null=True, blank=True, help_text="External ids of the documents to evaluate; empty: all main ones."
    )
    total = models.PositiveIntegerField(default=0, help_text="Documents to evaluate.")
    finished = models.PositiveIntegerField(default=0, help_text="Documents with a result.")
    calls = models.PositiveIntegerField(default=0, help_text="Requests sent to the endpoint.")
    cached = models.PositiveIntegerField(default=0, help_text="Documents answered from the response cache.")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker started it.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When its job was last given to the broker."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = EvaluatorRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluator"],
                condition=Q(status__in=["queued", "running"]),
                name="evaluator_one_active_run",
            ),
        ]

    def __str__(self):
        return f"run {self.pk} of {self.evaluator.key} ({self.status})"

    @property
    def is_active(self):
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def study_id(self):
        return self.evaluator.study_id


class EvaluatorResult(models.Model):
    """What one run made of one document: the parsed items, the raw exchange, tokens and time.

    Written once per document when it is finished, so a run that resumes after
    a killed worker skips every document with a result.
    """

    class Status(models.TextChoices):
        OK = "ok", "Answered"
        MALFORMED = "malformed", "Malformed answer"
        REFUSED = "refused", "Refused"
        FAILED = "failed", "Call failed"

    run = models.ForeignKey(EvaluatorRun, on_delete=models.CASCADE, related_name="results")
    document = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices)
    items = models.JSONField(
        default=list, blank=True,
        help_text="The evaluator's errors as given, each with where it was found (locations) or why not (problem).",
    )  # fmt: skip
    scores = models.JSONField(
        default=list, blank=True,
        help_text="ESA judges: the segment scores as given, each with whether it counts (status) or why not.",
    )  # fmt: skip
    problem = models.TextField(
        blank=True, help_text="Why the answer could not be used (malformed, refused, failed)."
    )
    listed = models.PositiveIntegerField(default=0, help_text="Errors the answer listed.")
    placed = models.PositiveIntegerField(default=0, help_text="Of those, placed in the text.")
    request = models.JSONField(null=True, blank=True, help_text="The request body sent (no key).")
    response = models.TextField(blank=True, help_text="The raw answer, as received.")
    cached = models.BooleanField(default=False)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    latency_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Wall time of the call(s).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "document__position", "document_id"]
        constraints = [models.UniqueConstraint(fields=["run", "document"], name="evaluator_result_unique")]

    def __str__(self):
        return f"{self.status} on {self.document_id}"


class CachedResponse(models.Model):
    """An endpoint's answer to one exact request (endpoint, model, parameters, rendered prompt) of one study.

    A rerun of an unchanged evaluator of the study takes its answers from here
    and makes no call. Another study never gets them: the study is part of the
    key, so an answer paid for with one study's key is not handed to another.
    """

    study = models.ForeignKey(
        "studies.Study",
        null=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Whose answer it is.",
    )
    key = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the study and the request.")
    content = models.TextField(blank=True)
    refusal = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.key[:12]


class EvaluatorReview(models.Model):
    """A review study made from evaluators' spans (evaluators/review.py): its verdicts flow back
    into the source study's evaluator comparison."""

    source = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="evaluator_reviews")
    review = models.OneToOneField(
        "studies.Study", on_delete=models.CASCADE, related_name="evaluator_review_of"
    )
    evaluators = models.JSONField(
        default=list, help_text="Evaluator keys, in the order of their labels A, B, ..."
    )
    categories = models.JSONField(
        default=list, help_text="[document, item position, evaluator, category] of every review item."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"review {self.review_id} of study {self.source_id}"
