"""Keep the researchers group's model permissions in step with the models."""

from django.contrib.auth.models import Group, Permission

from .services import RESEARCHER_GROUP

# Researchers manage these models in admin; what they see is scoped per study.
RESEARCHER_MODELS = {
    "studies": ["study", "taxonomy", "category", "document", "segment"],
    "annotations": ["assignment", "errorannotation"],
    "accounts": ["worker", "studymembership"],
    "reports": ["report"],
    "qualification": ["qualification", "qualificationresult"],
}


def ensure_researcher_group(sender=None, **kwargs):
    group, _ = Group.objects.get_or_create(name=RESEARCHER_GROUP)
    wanted = Permission.objects.filter(
        content_type__app_label__in=RESEARCHER_MODELS.keys(),
    )
    wanted = [
        permission
        for permission in wanted.select_related("content_type")
        if permission.content_type.model in RESEARCHER_MODELS[permission.content_type.app_label]
    ]
    group.permissions.add(*wanted)
