"""A category's snap_to_words option: in the bundle, round trip, admin and the task page's data."""

import copy

import pytest
import yaml

from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.span.selectors import task_page_data
from studies.models import Category, Study
from tests.bundles import TAXONOMY, study_yaml, write_bundle
from tests.factories import AssignmentFactory

pytestmark = pytest.mark.django_db


def snapping_taxonomy(value=True):
    taxonomy = copy.deepcopy(TAXONOMY)
    taxonomy["slug"] = "snap-test"
    taxonomy["categories"].append({"key": "GramE", "label": "Ungrammatical", "snap_to_words": value})
    return taxonomy


def test_snap_to_words_is_imported_exported_and_imported_again_unchanged(tmp_path):
    study = study_import_bundle(
        directory=write_bundle(tmp_path / "in", study=study_yaml(taxonomy=snapping_taxonomy()))
    ).study
    snapping = dict(study.taxonomy.categories.values_list("key", "snap_to_words"))
    assert snapping == {"CharE": False, "SceneE": False, "InconE": False, "RepE": False, "GramE": True}

    study_export_bundle(study=study, directory=tmp_path / "first")
    exported = yaml.safe_load((tmp_path / "first" / "study.yaml").read_text())
    assert {c["key"]: c["snap_to_words"] for c in exported["taxonomy"]["categories"]} == snapping

    Study.objects.all().delete()
    Category.objects.all().delete()
    study.taxonomy.delete()
    again = study_import_bundle(directory=tmp_path / "first").study
    study_export_bundle(study=again, directory=tmp_path / "second")
    assert (tmp_path / "second" / "study.yaml").read_bytes() == (
        tmp_path / "first" / "study.yaml"
    ).read_bytes()


def test_snap_to_words_must_be_true_or_false(tmp_path):
    bundle = write_bundle(tmp_path, study=study_yaml(taxonomy=snapping_taxonomy("yes")))

    with pytest.raises(BundleInvalid) as invalid:
        study_import_bundle(directory=bundle)

    assert any(
        "category GramE: snap_to_words must be true or false" in str(p) for p in invalid.value.problems
    )


def test_the_task_page_data_tells_which_categories_snap_to_words(tmp_path):
    study = study_import_bundle(
        directory=write_bundle(tmp_path, study=study_yaml(taxonomy=snapping_taxonomy()))
    ).study
    assignment = AssignmentFactory(study=study, document=study.documents.first())

    categories = {c["key"]: c["snap_to_words"] for c in task_page_data(assignment)["categories"]}

    assert categories["GramE"] is True and categories["CharE"] is False


def test_taxonomy_admin_sets_snap_to_words_on_a_category(client, researcher):
    from django.urls import reverse

    from tests.factories import CategoryFactory, TaxonomyFactory

    taxonomy = TaxonomyFactory(created_by=researcher)
    category = CategoryFactory(taxonomy=taxonomy, key="GramE", label="Ungrammatical", color="#ffe08a")
    client.force_login(researcher)
    url = reverse("admin:studies_taxonomy_change", args=[taxonomy.pk])
    fields = {"id": category.pk, "taxonomy": taxonomy.pk, "key": "GramE", "label": "Ungrammatical",
              "kind": "singleton", "color": "#ffe08a", "snap_to_words": "on", "order": "1"}  # fmt: skip
    data = {
        "slug": taxonomy.slug, "name": taxonomy.name, "version": taxonomy.version,
        "categories-TOTAL_FORMS": "1", "categories-INITIAL_FORMS": "1",
        "categories-MIN_NUM_FORMS": "0", "categories-MAX_NUM_FORMS": "1000",
        **{f"categories-0-{name}": str(value) for name, value in fields.items()},
    }  # fmt: skip

    assert 'name="categories-0-snap_to_words"' in client.get(url).content.decode()
    response = client.post(url, data)

    assert response.status_code == 302, response.content.decode()[:2000]
    category.refresh_from_db()
    assert category.snap_to_words and not category.whole_sentence
