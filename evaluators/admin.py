"""Evaluators in admin: declare them, run them, watch and cancel runs, read each document's exchange."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from outbound.credentials import key_variables
from protocols.review.models import ReviewItem
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin, forget_managed_studies, manages_study
from studies.models import Study

from .checks import settings_problems
from .models import Evaluator, EvaluatorResult, EvaluatorRun
from .review import ReviewRefused, review_study_create
from .services import (
    RunNotSent,
    RunRefused,
    evaluator_run_cancel,
    evaluator_run_request,
    evaluator_runs_requeue_stale,
)
from .suggesting import REFUSED, latest_finished_run, use_run_as_suggestions
from .summary import run_summary
from .work import category_kinds


class EvaluatorForm(forms.ModelForm):
    class Meta:
        model = Evaluator
        fields = [
            "study", "key", "kind", "description", "occurrences", "base_url", "model", "api_key_env",
            "credential", "temperature", "seed", "max_tokens", "response_format", "prompt_template",
            "timeout_seconds", "max_retries", "concurrency", "price_input_per_1k", "price_output_per_1k",
            "detector", "options",
        ]  # fmt: skip

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What this server offers (names and hosts only: whether a variable is set is never shown).
        offered = [
            f"{name} (for {variable.hosts_text()})" for name, variable in sorted(key_variables().items())
        ]
        if "api_key_env" not in self.fields:
            return  # a read-only view of the evaluator
        self.fields["api_key_env"].help_text = (
            "A key variable the operator allows: " + "; ".join(offered) if offered
            else "This server allows no key variable: store the study's own key under Study keys and name it "
            "in 'credential'."
        )  # fmt: skip

    def clean(self):
        data = super().clean()
        study = data.get("study")
        if study is None:
            return data
        # The same rules as study.yaml and the run request, on the values entered.
        evaluator = Evaluator(**{name: data.get(name) for name in self.Meta.fields if name in data})
        for field, message in settings_problems(evaluator, category_kinds(study), study=study):
            self.add_error(field if field in self.fields else None, message)
        return data


@admin.register(Evaluator)
class EvaluatorAdmin(StudyScopedAdmin):
    form = EvaluatorForm
    list_display = ["key", "study", "kind", "model", "detector", "last_run"]
    list_filter = [StudyListFilter, "kind"]
    list_select_related = ["study"]
    search_fields = ["key", "model", "detector"]
    actions = ["run_evaluators", "cancel_runs", "review_spans", "use_as_suggestions"]
    fieldsets = [
        (None, {"fields": ["study", "key", "kind", "description", "occurrences"]}),
        (
            "LLM endpoint",
            {
                "fields": [
                    "base_url",
                    "model",
                    "api_key_env",
                    "credential",
                    "temperature",
                    "seed",
                    "max_tokens",
                    "response_format",
                    "prompt_template",
                    "timeout_seconds",
                    "max_retries",
                    "concurrency",
                    "price_input_per_1k",
                    "price_output_per_1k",
                ],
                "description": "The key sent with each call: a key variable the operator allows for this "
                "endpoint (api_key_env), or a key stored for the study under Study keys (credential); "
                "neither for a local server that needs none. Calls go only to addresses the operator allows.",
            },
        ),  # fmt: skip
        ("Built-in detector", {"fields": ["detector", "options"]}),
    ]

    @admin.display(description="last run")
    def last_run(self, evaluator):
        run = evaluator.runs.first()
        if run is None:
            return "—"
        url = reverse("admin:evaluators_evaluatorrun_change", args=[run.pk])
        return format_html(
            '<a href="{}">{} ({} of {})</a>', url, run.get_status_display(), run.finished, run.total
        )

    @admin.action(description="Run the selected evaluators on every main document")
    def run_evaluators(self, request, queryset):
        for evaluator in queryset.select_related("study"):
            try:
                run, created = evaluator_run_request(evaluator=evaluator, user=request.user)
            except (RunRefused, RunNotSent) as error:
                messages.error(request, format_html("{}: {}", evaluator.key, error))
                continue
            state = "queued" if created else f"already {run.status}"
            messages.info(request, format_html("{}: run {} {}.", evaluator.key, run.pk, state))

    @admin.action(description="Cancel the active runs of the selected evaluators")
    def cancel_runs(self, request, queryset):
        for run in EvaluatorRun.objects.active().filter(evaluator__in=queryset):
            evaluator_run_cancel(run=run)
            messages.info(request, format_html("run {} of {}: {}.", run.pk, run.evaluator.key, run.status))

    @admin.action(description="Create a review study of the selected evaluators' spans")
    def review_spans(self, request, queryset):
        evaluators = list(queryset.select_related("study"))
        studies = {evaluator.study_id for evaluator in evaluators}
        if len(studies) != 1:
            messages.error(request, "Choose evaluators of one study.")
            return None
        source = evaluators[0].study
        slug = _free_slug(f"{source.slug}-review")
        try:
            review = review_study_create(evaluators=evaluators, slug=slug, user=request.user)
        except ReviewRefused as refused:
            messages.error(request, str(refused))
            return None
        forget_managed_studies(request)
        messages.success(request, format_html("Review study {} created with {} items.", review.slug,
                                              ReviewItem.objects.filter(document__study=review).count()))  # fmt: skip
        return redirect("admin:studies_study_change", review.pk)

    @admin.action(description="Use the latest finished run's spans as the study's suggestions")
    def use_as_suggestions(self, request, queryset):
        evaluators = list(queryset.select_related("study"))
        if len(evaluators) != 1:
            messages.error(
                request, "Choose one evaluator: its latest finished run becomes the suggestion source."
            )
            return
        evaluator = evaluators[0]
        run = latest_finished_run(evaluator)
        if run is None:
            messages.error(request, format_html("{} has no finished run yet.", evaluator.key))
            return
        try:
            count, documents = use_run_as_suggestions(run)
        except REFUSED as refused:
            messages.error(request, str(refused))
            return
        messages.success(
            request, format_html("{} suggestions on {} documents from run {} of {}.", count, documents, run.pk,
                                 evaluator.key),
        )  # fmt: skip
        if not isinstance(evaluator.study.config.get("assistance"), dict):
            messages.warning(
                request,
                "The study's config has no 'assistance': no worker is drawn into the suggestion arm, "
                "so nobody sees them. Add assistance: {share: 0.5} to the study's config.",
            )


def _free_slug(base):
    slug, number = base, 1
    while Study.objects.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


class ResultInline(admin.TabularInline):
    model = EvaluatorResult
    fields = [
        "document",
        "status",
        "problem",
        "items_found",
        "cached",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    @admin.display(description="spans placed / listed")
    def items_found(self, result):
        placed = sum(1 for item in result.items or () if item.get("status") == "found")
        return f"{placed} / {len(result.items or ())}"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(EvaluatorRun)
class EvaluatorRunAdmin(StudyScopedAdmin):
    study_path = "evaluator__study"
    list_display = [
        "__str__",
        "study",
        "status",
        "progress",
        "calls",
        "cached",
        "cost",
        "created_at",
        "finished_at",
    ]
    list_filter = [StudyListFilter, "status"]
    list_select_related = ["evaluator__study"]
    readonly_fields = ["summary", *[f.name for f in EvaluatorRun._meta.fields]]
    inlines = [ResultInline]

    @admin.display(description="study", ordering="evaluator__study__title")
    def study(self, run):
        return run.evaluator.study

    @admin.display(description="progress")
    def progress(self, run):
        return f"{run.finished} of {run.total}"

    @admin.display(description="summary")
    def summary(self, run):
        return format_html("{}", "\n".join(run_summary(run)))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        if run is not None and run.is_active:
            evaluator_runs_requeue_stale()  # a researcher waiting on a dead worker's run revives it
            run.refresh_from_db()
        extra = {
            "cancel_url": reverse("admin:evaluators_evaluatorrun_cancel", args=[run.pk])
            if run is not None and run.is_active and manages_study(request, run.evaluator.study_id)
            else None,
            "run_active": run is not None and run.is_active,
        }
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path(
                "<int:run_id>/cancel/",
                wrap(require_POST(self.cancel_view)),
                name="evaluators_evaluatorrun_cancel",
            ),
            *super().get_urls(),
        ]

    def cancel_view(self, request, run_id):
        run = get_object_or_404(self.get_queryset(request), pk=run_id)
        if not manages_study(request, run.evaluator.study_id):
            raise PermissionDenied
        evaluator_run_cancel(run=run)
        messages.info(request, f"Run {run.pk}: {run.get_status_display()}.")
        return redirect("admin:evaluators_evaluatorrun_change", run.pk)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(EvaluatorResult)
class EvaluatorResultAdmin(StudyScopedAdmin):
    """One document's exchange: the request sent, the raw answer, and where each item was placed."""

    study_path = "run__evaluator__study"
    list_display = ["__str__", "run", "document", "status", "cached", "latency_ms"]
    list_filter = [StudyListFilter, "status"]
    list_select_related = ["run__evaluator", "document"]
    readonly_fields = [f.name for f in EvaluatorResult._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
