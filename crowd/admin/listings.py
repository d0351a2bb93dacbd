"""Listings in admin: make one (a dry-run row in the ledger first), publish it, read its
submissions from the platform, and plan approvals, rejections, bonuses, grants and messages."""

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from accounts.models import Worker
from annotations.models import Assignment
from qualification.models import QualificationResult
from studies.admin.scoping import StudyListFilter
from studies.models import Document, Study

from .. import ledger, listings, platforms
from ..bonuses import plan_bonuses
from ..forms import ListingForm, NotifyForm, RejectForm
from ..models import Listing, Platform
from ..pay import pay_of
from .scoping import ManagersOnlyAdmin
from .workforce import WorkforceViews

PLATFORM_PROBLEMS = (ledger.PlatformError, LookupError, ValueError)


def ledger_url(study, **filters):
    query = "&".join(f"{key}={value}" for key, value in {"study": study.pk, **filters}.items())
    return f"{reverse('admin:crowd_ledgerentry_changelist')}?{query}"


def default_places(study):
    """Every place the study's main documents have, as a first guess the researcher can change."""
    documents = study.documents.filter(kind=Document.Kind.MAIN).count()
    return max(1, documents * study.annotators_per_document)


@admin.register(Listing)
class ListingAdmin(WorkforceViews, ManagersOnlyAdmin):
    list_display = ["external_id", "study", "platform", "sandbox", "status", "places", "reward", "currency",
                    "created_at", "submissions_link", "ledger_link"]  # fmt: skip
    list_filter = [StudyListFilter, "platform", "sandbox"]
    list_select_related = ["study"]
    readonly_fields = ["study", "platform", "external_id", "sandbox", "title", "places", "reward", "currency",
                       "status", "qualification_type", "created_by", "created_at"]  # fmt: skip
    actions = ["plan_publish", "plan_approvals", "plan_bonuses_action", "plan_grants", "notify_workers"]

    def has_add_permission(self, request):
        return False  # made through "Create a listing", which plans the platform call first

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("create/", wrap(self.create_view), name="crowd_listing_create"),
            path(
                "<int:listing_id>/submissions/", wrap(self.submissions_view), name="crowd_listing_submissions"
            ),
            *self.workforce_urls(),
            *super().get_urls(),
        ]

    @admin.display(description="ledger")
    def ledger_link(self, listing):
        return format_html('<a href="{}">ledger</a>', ledger_url(listing.study))

    @admin.display(description="submissions")
    def submissions_link(self, listing):
        url = reverse("admin:crowd_listing_submissions", args=[listing.pk])
        return format_html('<a href="{}">submissions</a>', url)

    def _context(self, request, title, **extra):
        return {**self.admin_site.each_context(request), "opts": self.opts, "title": title, **extra}

    # --- making a listing ---

    def create_view(self, request):
        managed = Study.objects.managed_by(request.user)
        if not managed.exists():
            raise PermissionDenied("Only a study's researchers may list it on a crowd platform.")
        study_id = request.POST.get("study") or request.GET.get("study")
        study = managed.filter(pk=study_id).first() if str(study_id or "").isdigit() else None
        if study is None:
            context = self._context(
                request, "Create a listing: which study?", studies=managed.order_by("-created_at")
            )
            return TemplateResponse(request, "admin/crowd/listing/choose_study.html", context)
        minutes, minutes_how = listings.estimated_minutes(study)
        pay = pay_of(study)
        form = ListingForm(
            request.POST or None,
            initial={"places": default_places(study), "minutes": minutes,
                     "reward": listings.fair_reward(study, minutes) or pay.reward},
        )  # fmt: skip
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                client = platforms.client_for(data["platform"], sandbox=data["sandbox"])
                entry, created = client.plan_listing(
                    study, user=request.user, name=data["name"], places=data["places"], reward=data["reward"],
                    minutes=data["minutes"], sandbox=data["sandbox"],
                )  # fmt: skip
            except PLATFORM_PROBLEMS as problem:
                form.add_error(None, str(problem))
            else:
                said = "planned" if created else "was already planned (the same name): nothing new"
                self.message_user(request, f"The listing {said}. Check the dry run, then Send it.")
                return HttpResponseRedirect(
                    ledger_url(study, status__exact=entry.status, action__exact="create")
                )
        context = self._context(
            request, f"Create a listing of {study.title}", study=study, form=form, minutes_how=minutes_how,
            pay=pay, allowed=listings.allowed_platform_ids(study, Platform.PROLIFIC),
        )  # fmt: skip
        return TemplateResponse(request, "admin/crowd/listing/create.html", context)

    # --- submissions on the platform ---

    def submissions_view(self, request, listing_id):
        listing = self.get_queryset(request).filter(pk=listing_id).select_related("study").first()
        if listing is None:
            raise Http404("No listing with this id among the studies you manage.")
        found, problem = [], ""
        try:
            client = platforms.client_for(listing.platform, sandbox=listing.sandbox)
            found = client.submissions(listing)
        except PLATFORM_PROBLEMS as error:
            client, problem = None, str(error)
        form = RejectForm(request.POST or None)
        if request.method == "POST" and client is not None and form.is_valid():
            submission = next((s for s in found if s.id == form.cleaned_data["submission"]), None)
            if submission is None:
                form.add_error(None, "That submission is not in this listing (any more).")
            else:
                options = (
                    {"category": form.cleaned_data["category"]}
                    if listing.platform == Platform.PROLIFIC
                    else {}
                )
                try:
                    client.plan_rejection(
                        listing, submission, user=request.user, reason=form.cleaned_data["reason"], **options
                    )
                except PLATFORM_PROBLEMS as error:
                    form.add_error("reason", str(error))
                else:
                    self.message_user(request, "Rejection planned. Check the dry run, then Send it.")
                    return HttpResponseRedirect(ledger_url(listing.study, action__exact="reject"))
        context = self._context(
            request, f"Submissions of {listing}", listing=listing, submissions=found, problem=problem, form=form,
            matched=sum(1 for s in found if s.assignment is not None),
        )  # fmt: skip
        return TemplateResponse(request, "admin/crowd/listing/submissions.html", context)

    # --- actions: each plans rows; nothing leaves before Send in the ledger ---

    def _each(self, request, queryset, plan):
        for listing in queryset.select_related("study"):
            try:
                client = platforms.client_for(listing.platform, sandbox=listing.sandbox)
                said = plan(listing, client)
            except PLATFORM_PROBLEMS as error:
                self.message_user(request, f"{listing}: {error}", messages.ERROR)
                continue
            self.message_user(request, f"{listing}: {said} Check the dry run in the ledger, then Send.")

    @admin.action(description="Plan publishing the selected drafts (Prolific)")
    def plan_publish(self, request, queryset):
        def plan(listing, client):
            _, created = client.plan_publish(listing, user=request.user)
            return "publishing planned." if created else "publishing was already planned."

        self._each(request, queryset, plan)

    @admin.action(description="Plan approvals of the submitted work")
    def plan_approvals(self, request, queryset):
        def plan(listing, client):
            planned, unmatched = client.plan_approvals(listing, user=request.user)
            return (
                f"{len(planned)} approvals planned; {len(unmatched)} submissions held for you to look at "
                "(not matched to work here, or the worker failed an attention or quality check)."
            )

        self._each(request, queryset, plan)

    @admin.action(description="Plan the bonuses of the study's pay rules")
    def plan_bonuses_action(self, request, queryset):
        def plan(listing, client):
            rows = plan_bonuses(listing, user=request.user, client=client)
            return f"{sum(created for _, created in rows)} bonuses planned ({len(rows)} owed in all)."

        self._each(request, queryset, plan)

    @admin.action(description="Plan granting the qualification to the approved candidates (Mechanical Turk)")
    def plan_grants(self, request, queryset):
        def plan(listing, client):
            approved = QualificationResult.objects.filter(
                qualification__study=listing.study, status=QualificationResult.Status.APPROVED,
                worker__platform=listing.platform,
            ).select_related("worker")  # fmt: skip
            rows = [client.plan_grant(listing, result.worker, user=request.user) for result in approved]
            return f"{len(rows)} grants planned."

        self._each(request, queryset, plan)

    @admin.action(description="Message the workers of the selected listings")
    def notify_workers(self, request, queryset):
        form = NotifyForm(request.POST if "subject" in request.POST else None)
        if form.is_bound and form.is_valid():

            def plan(listing, client):
                workers = Worker.objects.filter(
                    platform=listing.platform, assignments__study=listing.study,
                    assignments__kind__in=(Assignment.Kind.MAIN, Assignment.Kind.QUALIFICATION),
                ).distinct().order_by("pk")  # fmt: skip
                rows = client.plan_notify(listing, list(workers), user=request.user, **form.cleaned_data)
                return f"{len(rows)} messages planned."

            self._each(request, queryset, plan)
            return None
        context = self._context(
            request, "Message the workers", form=form, listings=queryset,
            action_checkbox_name=ACTION_CHECKBOX_NAME,
        )  # fmt: skip
        return TemplateResponse(request, "admin/crowd/listing/notify.html", context)
