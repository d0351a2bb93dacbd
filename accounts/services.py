"""Writes on accounts: researcher logins and study membership."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

RESEARCHER_GROUP = "researchers"


@transaction.atomic
def researcher_create(*, username, password, email=""):
    """A staff login in the researchers group: it sees only the studies it is a member of."""
    user = get_user_model().objects.create_user(
        username=username, password=password, email=email, is_staff=True
    )
    user.groups.add(Group.objects.get(name=RESEARCHER_GROUP))
    return user
