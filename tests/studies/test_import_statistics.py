"""An import leaves PostgreSQL's planner statistics of the tables it filled up to date
(bundles/bulk.analyse): read by stale ones, a batch's lookup by its own keys became a scan of the
whole table per batch, and the exports and reports that read a study back a batch at a time
grew with the square of its size."""

import pytest
from django.db import connection

from annotations.models import Assignment
from bundles.services import study_import_bundle
from protocols.rating.models import Rating
from protocols.translation.models import TranslationError
from studies.models import Document, Segment
from tests.interop.test_mqm_study import SMALL, imported
from tests.rating_bundles import write_rating_bundle
from tests.studies.test_rating_bundles import likert_lines

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the planner's statistics are PostgreSQL's"),
]


def planner_rows(model):
    """How many rows PostgreSQL's planner believes the model's table holds (-1: never analysed)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [model._meta.db_table])
        return cursor.fetchone()[0]


def test_a_bundle_import_leaves_the_planner_the_number_of_rows_it_wrote(tmp_path):
    study_import_bundle(directory=write_rating_bundle(tmp_path, assignments=likert_lines()))
    for model in (Document, Segment, Assignment, Rating):
        assert planner_rows(model) == model.objects.count() > 0, model.__name__


def test_an_mqm_import_leaves_the_planner_the_number_of_rows_it_wrote(tmp_path):
    (tmp_path / "small.tsv").write_text(SMALL, encoding="utf-8")
    imported(tmp_path / "small.tsv")
    for model in (Document, Segment, Assignment, TranslationError):
        assert planner_rows(model) == model.objects.count() > 0, model.__name__


def test_an_assisted_span_import_leaves_the_planner_its_suggestions_and_decisions(tmp_path):
    """The export reads a chunk's decisions joined to its suggestions and spans: planned on
    tables without statistics, that was a scan of the study's spans per chunk."""
    from protocols.span.models import ErrorAnnotation, Suggestion, SuggestionDecision
    from tests.assisted_annotation.test_bundles import write_assisted

    study_import_bundle(directory=write_assisted(tmp_path))
    for model in (ErrorAnnotation, Suggestion, SuggestionDecision):
        assert planner_rows(model) == model.objects.count() > 0, model.__name__
