"""Keep the researchers group's model permissions in step with the models."""

from django.contrib.auth.models import Group, Permission

from studies import extensions, protocols

from .services import RESEARCHER_GROUP

# Researchers manage these models in admin; what they see is scoped per study.
RESEARCHER_MODELS = {
    "studies": ["study", "taxonomy", "category", "document", "segment"],
    "annotations": ["assignment"],
    "accounts": ["worker", "studymembership"],
    "reports": ["report"],
    "qualification": ["qualification", "qualificationresult"],
    "outbound": ["studycredential"],
}


def researcher_models():
    """{app label: model names} researchers manage: the core's and each protocol's and extension's."""
    models = {label: list(names) for label, names in RESEARCHER_MODELS.items()}
    for plugin in [*protocols.registered(), *extensions.registered()]:
        for label_model in plugin.researcher_models:
            label, model = label_model.split(".")
            models.setdefault(label, []).append(model)
    return models


def ensure_researcher_group(sender=None, **kwargs):
    group, _ = Group.objects.get_or_create(name=RESEARCHER_GROUP)
    models = researcher_models()
    wanted = Permission.objects.filter(content_type__app_label__in=models.keys())
    wanted = [
        permission
        for permission in wanted.select_related("content_type")
        if permission.content_type.model in models[permission.content_type.app_label]
    ]
    group.permissions.add(*wanted)
