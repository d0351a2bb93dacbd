"""A shared taxonomy changes only with the consent of every study using it; imports graft onto no one's."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from bundles import BundleInvalid
from bundles.services import study_import_bundle
from studies.models import Category, Study, Taxonomy
from tests.bundles import TAXONOMY, study_yaml, write_bundle
from tests.factories import CategoryFactory, StudyFactory, TaxonomyFactory

pytestmark = pytest.mark.django_db


def taxonomy_post(taxonomy, category, label):
    return {
        "slug": taxonomy.slug, "name": taxonomy.name, "version": taxonomy.version, "description": "",
        "categories-TOTAL_FORMS": "1", "categories-INITIAL_FORMS": "1",
        "categories-MIN_NUM_FORMS": "0", "categories-MAX_NUM_FORMS": "1000",
        "categories-0-id": str(category.pk), "categories-0-taxonomy": str(taxonomy.pk),
        "categories-0-key": category.key, "categories-0-label": label, "categories-0-description": "",
        "categories-0-kind": category.kind, "categories-0-group": category.group,
        "categories-0-color": category.color, "categories-0-shortcut": "", "categories-0-order": "1",
    }  # fmt: skip


@pytest.fixture
def shared(researcher, other_researcher):
    """A taxonomy `researcher` created, used by a study of `other_researcher` only."""
    taxonomy = TaxonomyFactory(created_by=researcher)
    category = CategoryFactory(taxonomy=taxonomy, key="CharE", label="New character")
    theirs = StudyFactory(taxonomy=taxonomy)
    theirs.memberships.create(user=other_researcher, role="researcher")
    return taxonomy, category, theirs


def test_creator_cannot_edit_a_taxonomy_another_researchers_study_uses(client, researcher, shared):
    taxonomy, category, _ = shared
    client.force_login(researcher)
    url = reverse("admin:studies_taxonomy_change", args=[taxonomy.pk])

    page = client.get(url)
    response = client.post(url, taxonomy_post(taxonomy, category, "Renamed under them"))

    assert page.status_code == 200 and b'name="categories-0-label"' not in page.content
    assert response.status_code == 403
    category.refresh_from_db()
    assert category.label == "New character"


def test_creator_who_manages_every_study_using_it_may_edit(client, researcher, other_researcher, shared):
    taxonomy, category, theirs = shared
    theirs.memberships.create(user=researcher, role="researcher")
    client.force_login(researcher)

    response = client.post(
        reverse("admin:studies_taxonomy_change", args=[taxonomy.pk]),
        taxonomy_post(taxonomy, category, "Better"),
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    category.refresh_from_db()
    assert category.label == "Better"


def test_creator_may_edit_a_taxonomy_no_study_uses_and_a_superuser_any(client, researcher, superuser, shared):
    unused = TaxonomyFactory(created_by=researcher)
    draft = CategoryFactory(taxonomy=unused, key="Draft", label="Draft")
    taxonomy, category, _ = shared
    client.force_login(researcher)
    mine = client.post(
        reverse("admin:studies_taxonomy_change", args=[unused.pk]), taxonomy_post(unused, draft, "D2")
    )
    client.force_login(superuser)
    root = client.post(
        reverse("admin:studies_taxonomy_change", args=[taxonomy.pk]),
        taxonomy_post(taxonomy, category, "By root"),
    )

    assert (mine.status_code, root.status_code) == (302, 302)
    draft.refresh_from_db()
    category.refresh_from_db()
    assert (draft.label, category.label) == ("D2", "By root")


# Bundle import --------------------------------------------------------------


def stored_snac_test(owner):
    """The bundle's own taxonomy (snac-test v1, same categories) already stored by `owner`'s study."""
    study_import_bundle(
        directory=write_bundle(owner["path"], study=study_yaml(slug=owner["slug"])), user=owner["user"]
    )
    return Taxonomy.objects.get(slug="snac-test", version="1")


def import_problems(directory, user):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=directory, user=user)
    return [str(problem) for problem in caught.value.problems]


TAKEN = (
    "study.yaml:{line}: taxonomy 'snac-test' version 1 is already taken: a study shares a stored taxonomy "
    "only when you can see it and its categories are exactly these; choose another slug or version"
)


def taxonomy_line(directory):
    lines = (directory / "study.yaml").read_text().splitlines()
    return 1 + next(n for n, line in enumerate(lines, start=1) if line.startswith("taxonomy:"))


def test_import_never_attaches_to_a_taxonomy_the_user_cannot_see(tmp_path, researcher, other_researcher):
    existing = stored_snac_test({"path": tmp_path / "theirs", "slug": "theirs", "user": other_researcher})
    same = write_bundle(tmp_path / "same", study=study_yaml(slug="mine"))
    changed_yaml = study_yaml(slug="mine")
    changed_yaml["taxonomy"] = {**TAXONOMY, "categories": TAXONOMY["categories"][:2]}
    changed = write_bundle(tmp_path / "changed", study=changed_yaml)

    invisible_same = import_problems(same, researcher)
    invisible_changed = import_problems(changed, researcher)

    # The same message whether the stored one is identical or not: it tells nothing about someone else's taxonomy.
    assert invisible_same == [TAKEN.format(line=taxonomy_line(same))]
    assert invisible_changed == [TAKEN.format(line=taxonomy_line(changed))]
    assert list(Study.objects.values_list("slug", flat=True)) == ["theirs"]
    assert existing.categories.count() == 4


def test_import_refuses_a_visible_taxonomy_with_other_categories_with_the_same_message(tmp_path, researcher):
    stored_snac_test({"path": tmp_path / "first", "slug": "first", "user": researcher})
    changed_yaml = study_yaml(slug="second")
    changed_yaml["taxonomy"] = {**TAXONOMY, "categories": TAXONOMY["categories"][:2]}
    changed = write_bundle(tmp_path / "changed", study=changed_yaml)

    assert import_problems(changed, researcher) == [TAKEN.format(line=taxonomy_line(changed))]


def test_import_shares_a_visible_identical_taxonomy(tmp_path, researcher, other_researcher):
    existing = stored_snac_test({"path": tmp_path / "theirs", "slug": "theirs", "user": other_researcher})
    Study.objects.get(slug="theirs").memberships.create(user=researcher, role="analyst")

    study_import_bundle(
        directory=write_bundle(tmp_path / "mine", study=study_yaml(slug="mine")), user=researcher
    )

    assert Study.objects.get(slug="mine").taxonomy == existing
    assert Taxonomy.objects.count() == 1


def test_import_study_command_is_the_operators_and_shares_any_identical_taxonomy(tmp_path, other_researcher):
    existing = stored_snac_test({"path": tmp_path / "theirs", "slug": "theirs", "user": other_researcher})

    call_command("import_study", str(write_bundle(tmp_path / "ops", study=study_yaml(slug="ops"))))

    assert Study.objects.get(slug="ops").taxonomy == existing
    assert Category.objects.count() == 4


def test_a_superuser_importing_in_admin_may_share_any_identical_taxonomy(
    tmp_path, superuser, other_researcher
):
    existing = stored_snac_test({"path": tmp_path / "theirs", "slug": "theirs", "user": other_researcher})

    study_import_bundle(
        directory=write_bundle(tmp_path / "root", study=study_yaml(slug="root")), user=superuser
    )

    assert Study.objects.get(slug="root").taxonomy == existing


def test_a_taxonomy_created_without_a_study_is_visible_to_its_creator_only(
    tmp_path, researcher, other_researcher
):
    TaxonomyFactory(slug="snac-test", version="1", created_by=other_researcher)
    bundle = write_bundle(tmp_path / "mine", study=study_yaml(slug="mine"))

    assert import_problems(bundle, researcher) == [TAKEN.format(line=taxonomy_line(bundle))]
