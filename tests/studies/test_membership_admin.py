"""Members are added by username: the admin never lists the site's accounts to a researcher."""

import pytest
from django.urls import reverse

from accounts.models import StudyMembership
from tests.factories import UserFactory, make_span_study

pytestmark = pytest.mark.django_db

NO_SUCH_USER = "There is no active user with this username."


@pytest.fixture
def study(researcher):
    return make_span_study(researcher=researcher, documents=0)


@pytest.fixture
def bystander(db):
    return UserFactory(username="bystander-not-in-any-study")


def study_post(study, *rows):
    data = {
        "title": study.title, "slug": study.slug, "protocol": study.protocol, "status": study.status,
        "taxonomy": str(study.taxonomy_id), "annotators_per_document": "3", "max_documents_per_worker": "",
        "instructions": "", "config": "{}",
        "memberships-TOTAL_FORMS": str(len(rows)), "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0", "memberships-MAX_NUM_FORMS": "1000",
    }  # fmt: skip
    for number, (username, role) in enumerate(rows):
        data.update({f"memberships-{number}-study": str(study.pk), f"memberships-{number}-user": username,
                     f"memberships-{number}-role": role})  # fmt: skip
    return data


def test_study_page_lists_no_account_outside_the_study(client, researcher, study, bystander):
    StudyMembership.objects.filter(study=study).delete()
    study.memberships.create(user=researcher, role="researcher")
    client.force_login(researcher)

    page = client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()

    assert bystander.username not in page
    assert f'value="{researcher.username}"' in page  # the existing member shows by name
    assert 'name="memberships-0-user"' in page and '<select name="memberships-0-user"' not in page


def test_researcher_adds_a_colleague_by_username(client, researcher, study, other_researcher):
    client.force_login(researcher)
    url = reverse("admin:studies_study_change", args=[study.pk])

    response = client.post(url, study_post(study, (other_researcher.username, "analyst")))

    assert response.status_code == 302, response.content.decode()[:3000]
    assert study.memberships.get(user=other_researcher).role == "analyst"


@pytest.mark.parametrize("who", ["missing", "inactive"])
def test_an_unknown_or_inactive_username_gives_one_error(client, researcher, study, who):
    UserFactory(username="retired", is_active=False)
    username = "nobody-by-this-name" if who == "missing" else "retired"
    client.force_login(researcher)

    response = client.post(
        reverse("admin:studies_study_change", args=[study.pk]), study_post(study, (username, "analyst"))
    )

    assert response.status_code == 200
    errors = response.context["inline_admin_formsets"][0].formset.errors
    assert errors == [{"user": [NO_SUCH_USER]}]
    assert study.memberships.count() == 1


def test_superuser_adds_a_member_by_username_too(client, superuser, study, other_researcher):
    client.force_login(superuser)

    response = client.post(
        reverse("admin:studies_study_change", args=[study.pk]),
        study_post(study, (other_researcher.username, "researcher")),
    )

    assert response.status_code == 302
    assert study.memberships.get(user=other_researcher).role == "researcher"


def test_membership_admin_takes_a_username_and_lists_no_account(
    client, researcher, study, bystander, other_researcher
):
    client.force_login(researcher)
    url = reverse("admin:accounts_studymembership_add")

    page = client.get(url).content.decode()
    missing = client.post(url, {"study": str(study.pk), "user": "nobody-by-this-name", "role": "analyst"})
    added = client.post(url, {"study": str(study.pk), "user": other_researcher.username, "role": "analyst"})

    assert bystander.username not in page and other_researcher.username not in page
    assert missing.status_code == 200
    assert missing.context["adminform"].form.errors["user"] == [NO_SUCH_USER]
    assert added.status_code == 302
    membership = study.memberships.get(user=other_researcher)
    change = client.get(
        reverse("admin:accounts_studymembership_change", args=[membership.pk])
    ).content.decode()
    assert f'value="{other_researcher.username}"' in change
