"""Django admin as researchers use it: scoping, studies, taxonomies, previews, assignments."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from studies.models import Category, Study
from tests.factories import (
    AssignmentFactory,
    CategoryFactory,
    DocumentFactory,
    ErrorAnnotationFactory,
    SegmentFactory,
    TaxonomyFactory,
    WorkerFactory,
    make_span_study,
)

pytestmark = pytest.mark.django_db


def login(client, user):
    client.force_login(user)


def change_url(obj):
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def changelist_url(model):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.fixture
def two_studies(researcher, other_researcher):
    mine = make_span_study(researcher=researcher, title="Mine study", slug="mine")
    theirs = make_span_study(researcher=other_researcher, title="Theirs study", slug="theirs")
    return mine, theirs


# Scoping -------------------------------------------------------------------


def test_researcher_sees_only_their_studies(client, researcher, two_studies):
    mine, theirs = two_studies
    login(client, researcher)

    page = client.get(changelist_url(Study)).content.decode()

    assert "Mine study" in page
    assert "Theirs study" not in page
    assert client.get(change_url(mine)).status_code == 200
    assert client.get(change_url(theirs)).status_code == 404


def test_another_studys_documents_are_absent_and_404(client, researcher, two_studies):
    mine, theirs = two_studies
    login(client, researcher)
    from studies.models import Document

    page = client.get(changelist_url(Document)).content.decode()

    assert "mine-doc0" in page
    assert "theirs-doc0" not in page
    their_document = theirs.documents.first()
    assert client.get(change_url(their_document)).status_code == 404
    preview = reverse("admin:studies_document_preview", args=[their_document.pk])
    assert client.get(preview).status_code == 404
    assert client.get(change_url(mine.documents.first())).status_code == 200


def test_another_studys_assignments_annotations_workers_and_members_are_absent(
    client, researcher, other_researcher, two_studies
):
    mine, theirs = two_studies
    AssignmentFactory(document=mine.documents.first(), worker=WorkerFactory(external_id="w-mine"))
    their_assignment = AssignmentFactory(
        document=theirs.documents.first(), worker=WorkerFactory(external_id="w-theirs")
    )
    ErrorAnnotationFactory(
        assignment=their_assignment,
        segment=theirs.documents.first().segments.first(),
        category=theirs.taxonomy.categories.first(),
        text="Theirs-span",
    )
    login(client, researcher)

    assignments = client.get(changelist_url(Assignment)).content.decode()
    workers = client.get(changelist_url(Worker)).content.decode()
    annotations = client.get(reverse("admin:span_errorannotation_changelist")).content.decode()
    members = client.get(changelist_url(StudyMembership)).content.decode()

    assert "w-mine" in assignments and "w-theirs" not in assignments
    assert "w-mine" in workers and "w-theirs" not in workers
    assert "Theirs-span" not in annotations
    assert "researcher-a" in members and "researcher-b" not in members
    assert client.get(change_url(their_assignment)).status_code == 404
    assert client.get(change_url(their_assignment.worker)).status_code == 404
    assert client.get(change_url(theirs.taxonomy)).status_code == 404


def test_superuser_sees_every_study_and_document(client, superuser, two_studies):
    login(client, superuser)

    studies = client.get(changelist_url(Study)).content.decode()
    documents = client.get(reverse("admin:studies_document_changelist")).content.decode()

    assert "Mine study" in studies and "Theirs study" in studies
    assert "mine-doc0" in documents and "theirs-doc0" in documents
    assert client.get(change_url(two_studies[1])).status_code == 200


def test_foreign_key_choices_offer_only_the_users_studies_and_taxonomies(client, researcher, two_studies):
    mine, theirs = two_studies
    login(client, researcher)

    document_form = client.get(reverse("admin:studies_document_add")).content.decode()
    study_form = client.get(reverse("admin:studies_study_add")).content.decode()

    assert f'value="{mine.pk}"' in document_form and "Theirs study" not in document_form
    assert mine.taxonomy.name in study_form and theirs.taxonomy.name not in study_form


def test_study_list_filter_offers_only_the_users_studies(client, researcher, two_studies):
    login(client, researcher)

    page = client.get(changelist_url(Assignment)).content.decode()

    assert "Mine study" in page
    assert "Theirs study" not in page


def test_analyst_reads_a_study_but_cannot_change_it_or_its_documents(client, other_researcher, two_studies):
    mine, _ = two_studies
    StudyMembership.objects.create(study=mine, user=other_researcher, role=StudyMembership.Role.ANALYST)
    login(client, other_researcher)
    document = mine.documents.first()

    page = client.get(change_url(mine))
    post = client.post(change_url(document), {"external_id": "renamed"})
    tools = client.get(reverse("admin:studies_study_generate_assignments", args=[mine.pk]))

    assert page.status_code == 200
    assert 'name="title"' not in page.content.decode()  # read-only
    assert post.status_code == 403
    assert tools.status_code == 403
    document.refresh_from_db()
    assert document.external_id != "renamed"


def test_analyst_cannot_bulk_delete_documents(client, other_researcher, two_studies):
    mine, _ = two_studies
    StudyMembership.objects.create(study=mine, user=other_researcher, role=StudyMembership.Role.ANALYST)
    login(client, other_researcher)
    ids = list(mine.documents.values_list("pk", flat=True))

    client.post(
        reverse("admin:studies_document_changelist"),
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )

    assert mine.documents.count() == len(ids)


def test_assignment_token_is_shown_only_on_its_change_page_to_those_who_run_the_study(
    client, researcher, other_researcher, two_studies
):
    mine, _ = two_studies
    assignment = AssignmentFactory(document=mine.documents.first())
    login(client, researcher)

    listing = client.get(changelist_url(Assignment)).content.decode()
    page = client.get(change_url(assignment)).content.decode()
    StudyMembership.objects.create(study=mine, user=other_researcher, role=StudyMembership.Role.ANALYST)
    login(client, other_researcher)
    analyst_page = client.get(change_url(assignment)).content.decode()

    assert assignment.token not in listing
    assert assignment.token in page
    assert assignment.token not in analyst_page


# Studies -------------------------------------------------------------------


def study_form_data(**fields):
    data = {
        "title": "Created in admin",
        "slug": "created-in-admin",
        "protocol": "span",
        "status": Study.Status.DRAFT,
        "taxonomy": "",
        "annotators_per_document": "3",
        "max_documents_per_worker": "",
        "instructions": "",
        "config": "{}",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
    }
    return {**data, **fields}


def test_researcher_who_creates_a_study_becomes_its_researcher_and_sees_it(client, researcher):
    login(client, researcher)

    response = client.post(reverse("admin:studies_study_add"), study_form_data())

    assert response.status_code == 302, response.content.decode()[:2000]
    study = Study.objects.get(slug="created-in-admin")
    membership = StudyMembership.objects.get(study=study, user=researcher)
    assert membership.role == StudyMembership.Role.RESEARCHER
    assert "Created in admin" in client.get(changelist_url(Study)).content.decode()
    assert client.get(change_url(study)).status_code == 200


def test_researcher_adds_a_colleague_as_analyst_through_the_members_inline(
    client, researcher, other_researcher, two_studies
):
    mine, _ = two_studies
    own = mine.memberships.get()
    login(client, researcher)
    data = study_form_data(
        title=mine.title,
        slug=mine.slug,
        status=mine.status,
        taxonomy=str(mine.taxonomy_id),
        **{
            "memberships-TOTAL_FORMS": "2",
            "memberships-INITIAL_FORMS": "1",
            "memberships-0-id": str(own.pk),
            "memberships-0-study": str(mine.pk),
            "memberships-0-user": researcher.username,
            "memberships-0-role": "researcher",
            "memberships-1-study": str(mine.pk),
            "memberships-1-user": other_researcher.username,
            "memberships-1-role": "analyst",
        },
    )

    response = client.post(change_url(mine), data)

    assert response.status_code == 302, response.content.decode()[:2000]
    assert mine.memberships.get(user=other_researcher).role == StudyMembership.Role.ANALYST


def test_study_change_page_shows_join_link_and_progress(client, researcher, settings):
    settings.SITE_URL = "https://eval.example.org"
    study = make_span_study(researcher=researcher, documents=3, annotators_per_document=2)
    first, second, _ = study.documents.order_by("position")
    AssignmentFactory(document=first, status=Assignment.Status.SUBMITTED)
    AssignmentFactory(document=first, status=Assignment.Status.IN_PROGRESS)
    AssignmentFactory(document=second, status=Assignment.Status.RELEASED)
    login(client, researcher)

    page = client.get(change_url(study)).content.decode()

    assert f"https://eval.example.org/join/{study.join_key}/" in page
    assert "Submitted: <strong>1</strong>" in page
    assert "In progress: <strong>1</strong>" in page
    assert "2 of 3 main documents have fewer than 2 active annotators" in page
    assert f"{second.external_id} (0 of 2)" in page


def test_study_changelist_shows_progress_counts(client, researcher):
    study = make_span_study(researcher=researcher, documents=2)
    document = study.documents.first()
    for status in ["assigned", "assigned", "in_progress", "submitted", "submitted", "submitted"]:
        AssignmentFactory(document=document, status=status)
    login(client, researcher)

    page = client.get(changelist_url(Study)).content.decode()

    assert '<td class="field-documents">2</td>' in page
    # Every status in one column, so that the list fits a laptop's screen.
    assert (
        '<td class="field-work">2 assigned<br>1 in progress<br>3 submitted<br>0 released (inactive)</td>'
        in page
    )


def make_studies_with_work(researcher, count):
    for _ in range(count):
        study = make_span_study(researcher=researcher, documents=2, segments=1)
        for document in study.documents.all():
            AssignmentFactory(document=document, status=Assignment.Status.SUBMITTED)


def changelist_queries(client):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(changelist_url(Study)).status_code == 200
    return len(queries)


def test_study_changelist_queries_do_not_grow_with_the_number_of_studies(
    client, researcher, django_assert_max_num_queries
):
    login(client, researcher)
    make_studies_with_work(researcher, 2)
    with_two = changelist_queries(client)
    make_studies_with_work(researcher, 4)

    with django_assert_max_num_queries(12):
        page = client.get(changelist_url(Study))

    assert page.content.decode().count("<br>2 submitted<br>") == 6
    assert changelist_queries(client) == with_two


@pytest.mark.parametrize("model_name", ["document", "assignment", "errorannotation", "worker"])
def test_other_changelists_queries_do_not_grow_with_rows(client, researcher, model_name):
    from protocols.span.models import ErrorAnnotation

    study = make_span_study(researcher=researcher, documents=2, segments=1)
    login(client, researcher)
    app = {"document": "studies", "worker": "accounts", "errorannotation": "span"}.get(
        model_name, "annotations"
    )
    url = reverse(f"admin:{app}_{model_name}_changelist")

    def add_rows():
        for document in study.documents.all():
            assignment = AssignmentFactory(document=document)
            ErrorAnnotationFactory(
                assignment=assignment,
                segment=document.segments.first(),
                category=study.taxonomy.categories.first(),
            )

    add_rows()
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    add_rows()
    add_rows()
    with CaptureQueriesContext(connection) as more:
        response = client.get(url)

    assert response.status_code == 200
    assert ErrorAnnotation.objects.count() == 6
    assert len(more) == len(few)


# Taxonomies ----------------------------------------------------------------


def test_taxonomy_category_inline_saves_an_edited_category(client, researcher):
    taxonomy = TaxonomyFactory(created_by=researcher)
    category = CategoryFactory(taxonomy=taxonomy, key="CharE", label="Old label", color="#ffe08a")
    login(client, researcher)
    page = client.get(change_url(taxonomy)).content.decode()
    data = {
        "slug": taxonomy.slug,
        "name": taxonomy.name,
        "version": taxonomy.version,
        "description": "",
        "categories-TOTAL_FORMS": "1",
        "categories-INITIAL_FORMS": "1",
        "categories-MIN_NUM_FORMS": "0",
        "categories-MAX_NUM_FORMS": "1000",
        "categories-0-id": str(category.pk),
        "categories-0-taxonomy": str(taxonomy.pk),
        "categories-0-key": "CharE",
        "categories-0-label": "New character without introduction",
        "categories-0-description": "",
        "categories-0-kind": Category.Kind.PAIRED,
        "categories-0-group": "coherence",
        "categories-0-color": "#f4a6a6",
        "categories-0-shortcut": "c",
        "categories-0-whole_sentence": "on",
        "categories-0-order": "3",
    }

    response = client.post(change_url(taxonomy), data)

    assert 'type="color"' in page
    assert response.status_code == 302, response.content.decode()[:3000]
    category.refresh_from_db()
    assert category.label == "New character without introduction"
    assert (category.kind, category.color, category.shortcut) == ("paired", "#f4a6a6", "c")
    assert category.whole_sentence and category.order == 3


def test_taxonomy_created_in_admin_records_its_creator(client, researcher):
    login(client, researcher)
    data = {
        "slug": "fresh",
        "name": "Fresh taxonomy",
        "version": "1",
        "description": "",
        "categories-TOTAL_FORMS": "0",
        "categories-INITIAL_FORMS": "0",
        "categories-MIN_NUM_FORMS": "0",
        "categories-MAX_NUM_FORMS": "1000",
    }

    response = client.post(reverse("admin:studies_taxonomy_add"), data)

    assert response.status_code == 302
    from studies.models import Taxonomy

    assert Taxonomy.objects.get(slug="fresh").created_by == researcher


# Document preview ----------------------------------------------------------


def test_document_preview_delimits_sentences_and_escapes_text(client, researcher):
    study = make_span_study(researcher=researcher, documents=0)
    document = DocumentFactory(study=study, external_id="xss-doc")
    SegmentFactory(
        document=document, index=0, text="Anna met Ben. They talked.", sentences=[[0, 13], [14, 26]]
    )
    hostile = "<script>alert(1)</script> and <img src=x onerror=alert(1)>"
    SegmentFactory(document=document, index=1, text=hostile, sentences=[[0, len(hostile)]])
    login(client, researcher)

    change_page = client.get(change_url(document)).content.decode()
    preview_page = client.get(reverse("admin:studies_document_preview", args=[document.pk])).content.decode()

    for page in (change_page, preview_page):
        assert page.count('class="sentence sentence-') == 3
        assert '<span class="sentence sentence-even" title="sentence 1">Anna met Ben.</span>' in page
        assert '<span class="sentence sentence-odd" title="sentence 2">They talked.</span>' in page
        assert "segment 0 · 2 sentences" in page and "segment 1 · 1 sentence" in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "<script>alert" not in page
        assert "<img src=x" not in page


def test_document_list_links_to_the_preview(client, researcher, two_studies):
    mine, _ = two_studies
    login(client, researcher)

    page = client.get(reverse("admin:studies_document_changelist")).content.decode()

    assert reverse("admin:studies_document_preview", args=[mine.documents.first().pk]) in page


# Generating assignments ----------------------------------------------------


def generate_url(study):
    return reverse("admin:studies_study_generate_assignments", args=[study.pk])


def test_generate_assignments_gives_each_document_k_distinct_workers(client, researcher, settings):
    settings.SITE_URL = "https://eval.example.org"
    study = make_span_study(researcher=researcher, documents=3)
    login(client, researcher)
    form = client.get(generate_url(study)).content.decode()

    response = client.post(
        generate_url(study), {"worker_ids": "w1, w2\nw3", "per_document": "2", "platform": "link"}
    )

    assert 'name="csrfmiddlewaretoken"' in form
    assert 'name="per_document" value="3"' in form  # the study's annotators_per_document
    assert response.status_code == 200
    assignments = Assignment.objects.filter(study=study)
    assert assignments.count() == 6 and study.documents.count() == 3
    for document in study.documents.all():
        workers = list(assignments.filter(document=document).values_list("worker__external_id", flat=True))
        assert len(workers) == 2 and len(set(workers)) == 2
    page = response.content.decode()
    for assignment in assignments:
        assert f"https://eval.example.org/task/{assignment.token}/" in page


def test_generate_assignments_with_more_annotators_than_workers_shows_the_error(client, researcher):
    study = make_span_study(researcher=researcher, documents=3)
    login(client, researcher)

    response = client.post(
        generate_url(study), {"worker_ids": "w1 w2", "per_document": "3", "platform": "link"}
    )

    assert response.status_code == 200
    assert "3 annotators per document needs at least 3 workers; 2 given" in response.content.decode()
    assert not Assignment.objects.exists()


def test_generate_assignments_reports_documents_left_short(client, researcher):
    study = make_span_study(researcher=researcher, documents=3, max_documents_per_worker=1)
    login(client, researcher)

    response = client.post(
        generate_url(study), {"worker_ids": "w1 w2", "per_document": "2", "platform": "link"}
    )

    page = response.content.decode()
    assert 'id="short-documents"' in page
    assert f"{study.slug}-doc1: 2 more needed" in page


def test_generate_assignments_action_leads_to_the_form(client, researcher, two_studies):
    mine, theirs = two_studies
    login(client, researcher)

    response = client.post(
        changelist_url(Study), {"action": "generate_assignments", "_selected_action": [mine.pk]}
    )

    assert response.status_code == 302
    assert response["Location"] == generate_url(mine)
    assert client.get(generate_url(theirs)).status_code == 404
