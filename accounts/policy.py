"""The one access policy: who may see or change what, and which fields each role sees.

Every surface asks this module (admin querysets, fields, list_editable,
actions and custom views; the REST API; exports; reports; pages). Nothing
else decides on its own. docs/api.md and docs/deployment.md state it as a
table; tests/test_access_matrix.py sends every role to every surface.

Roles, per study: a superuser manages every study; a member is a researcher
(manages the study), an analyst (reads it) or an expert (annotates gold,
reads it). Workers never log in: their task token is their only key and
reaches nothing but their own assignment.

What readers who do not manage a study never see: worker identities
(platform ids such as a PROLIFIC_PID, worker names, `platform_ids`), task
tokens and links, completion codes, the study's join link and its crowd
platform completion URL. They see annotators under `annotator_pseudonym`.
"""

from dataclasses import dataclass

from django.db.models import Q

from accounts.models import StudyMembership
from studies import extensions, protocols
from studies.models import Study

SUPERUSER = "superuser"
RESEARCHER = "researcher"
ANALYST = "analyst"
EXPERT = "expert"
MANAGING_ROLES = frozenset({SUPERUSER, RESEARCHER})

_ROLES_CACHE = "_policy_study_roles"


def study_roles(user):
    """{study id: membership role} of `user`, read once per user object (one request)."""
    roles = getattr(user, _ROLES_CACHE, None)
    if roles is None:
        roles = dict(StudyMembership.objects.filter(user=user).values_list("study_id", "role"))
        setattr(user, _ROLES_CACHE, roles)
    return roles


def forget_roles(user):
    """Call after the user's memberships changed within the request (e.g. they created a study)."""
    if hasattr(user, _ROLES_CACHE):
        delattr(user, _ROLES_CACHE)


def study_role(user, study_id):
    """The user's role in the study: "superuser", their membership role, or None."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return SUPERUSER
    return study_roles(user).get(study_id)


def may_manage_study(user, study_id):
    """Change the study and its objects, request its reports, see its workers' identities."""
    return study_role(user, study_id) in MANAGING_ROLES


def sees_identities(user, study_id):
    """Worker identities, task links, completion codes and crowd platform URLs of the study."""
    return may_manage_study(user, study_id)


# Study config keys only who manages the study sees: the crowd platform's
# completion link carries the code that marks a submission complete there;
# a worker allow-list (workers.allow) is a list of platform ids.
CONFIG_SECRETS = ("prolific_completion_url",)
NESTED_CONFIG_SECRETS = {"workers": ("allow",)}


def config_without_secrets(config):
    """`config` without what only who manages the study may see."""
    config = config if isinstance(config, dict) else {}
    public = {key: value for key, value in config.items() if key not in CONFIG_SECRETS}
    for key, secrets in NESTED_CONFIG_SECRETS.items():
        if isinstance(public.get(key), dict):
            public[key] = {name: value for name, value in public[key].items() if name not in secrets}
    return public


def readable_config(user, study):
    """The study's config as `user` may see it."""
    config = study.config if isinstance(study.config, dict) else {}
    if sees_identities(user, study.pk):
        return config
    return config_without_secrets(config)


def readable_studies(user):
    """The studies `user` may read (all for a superuser, else their memberships)."""
    return Study.objects.for_user(user)


def managed_studies(user):
    return Study.objects.managed_by(user)


def readable_study_ids(user):
    """A subquery of the ids of the studies `user` may read (no DISTINCT in the outer query)."""
    return readable_studies(user).values("pk")


def managed_study_ids(user):
    """The set of ids of the studies `user` manages, read once per user object."""
    return {study_id for study_id, role in study_roles(user).items() if role == RESEARCHER}


def in_readable_studies(queryset, user, study_path="study"):
    """`queryset`'s rows whose study (at `study_path`) the user may read."""
    if user is None or not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    return queryset.filter(**{f"{study_path}__in": readable_study_ids(user)})


def readable_rows(queryset, user, study_path="study"):
    """`queryset`'s rows `user` may read under its model's rule: of a study they read, or, where
    the rule says read="managers" (e.g. study keys), of a study they manage."""
    rows = in_readable_studies(queryset, user, study_path)
    if rule_for(queryset.model).read == "managers" and user is not None and user.is_authenticated:
        rows = rows.filter(managed_condition(user, study_path))
    return rows


def managed_condition(user, study_path="study"):
    """A Q() of the rows (study at `study_path`) that `user` manages."""
    if user.is_superuser:
        return Q()
    return Q(**{f"{study_path}__in": list(managed_study_ids(user))})


# --- The table: per model, who reads, who changes, what readers do not see ---


@dataclass(frozen=True)
class ModelRule:
    """The policy for the rows of one model.

    read: who sees rows ("members" of the row's study, "managers" only, or
    "superusers"); change: who may add, change or delete them through the
    generic surfaces ("managers", "superusers" or "nobody": the platform's
    own services write them); identity_fields: fields that name a worker or
    hold a worker's secret, shown only to those who manage the row's study.
    """

    study_path: str | None
    read: str = "members"
    change: str = "managers"
    identity_fields: frozenset = frozenset()
    note: str = ""


IDENTITY_OF_ASSIGNMENT = frozenset(
    {
        "worker",
        "platform_ids",
        "token",
        "task_url",
        "completion_code",
        "worker_platform",
        "worker_external_id",
    }
)

RULES = {
    "studies.study": ModelRule(
        "pk",
        identity_fields=frozenset(
            {"join_key", "join_link", "config.prolific_completion_url", "config.workers.allow"}
        ),
    ),
    "studies.taxonomy": ModelRule(
        None,
        note="read: its creator and members of studies using it; change: superuser, or who manages "
        "every study using it (its creator only while no one else's study uses it)",
    ),
    "studies.category": ModelRule(None, note="as its taxonomy"),
    "studies.document": ModelRule("study"),
    "studies.segment": ModelRule("document__study"),
    "accounts.studymembership": ModelRule("study"),
    "accounts.worker": ModelRule(
        None,
        read="managers",
        change="superusers",
        note="read: researchers of a study the worker works in; an identity shared by studies",
    ),  # fmt: skip
    "annotations.assignment": ModelRule("study", identity_fields=IDENTITY_OF_ASSIGNMENT),
    "annotations.allocationrecord": ModelRule(
        "study", change="nobody", note="written by the allocation service"
    ),
    "qualification.qualification": ModelRule("study"),
    "qualification.qualificationresult": ModelRule(
        "qualification__study", identity_fields=frozenset({"worker", "feedback_link", "feedback_token"})
    ),
    "reports.report": ModelRule(
        "study",
        change="nobody",
        note="requested (created) by who manages the study; reports name annotators by pseudonym only",
    ),  # fmt: skip
    "exports.export": ModelRule("study", change="nobody", note="read: its requester only"),
    "outbound.studycredential": ModelRule(
        "study",
        read="managers",
        note="the key itself is never shown to anyone, its name and dates to managers",
    ),
}


def rule_for(model):
    """The policy row of a model: the core's RULES, or the access_rules of its protocol or extension.

    KeyError for a model the policy does not know: add it.
    """
    label = model._meta.label_lower
    if label in RULES:
        return RULES[label]
    for protocol in [*protocols.registered(), *extensions.registered()]:
        if label in protocol.access_rules:
            return protocol.access_rules[label]
    raise KeyError(label)


def hidden_fields(user, model, study_id):
    """The fields of a row of `model` in study `study_id` that `user` may not see."""
    rule = rule_for(model)
    if sees_identities(user, study_id):
        return frozenset()
    return rule.identity_fields
