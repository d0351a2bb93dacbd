"""The admin pages a researcher still uses, at a laptop's 1280 px: nothing scrolls sideways, no
column of the study list is cut off, and axe-core finds no serious or critical violation."""

import pytest
from django.urls import reverse

from evaluators.models import Evaluator
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_researchers_admin_pages_fit_a_laptop_and_read_aloud(page, live_server, researcher):
    study = make_span_study(
        documents=2, researcher=researcher, title="A study with a long enough title to wrap"
    )
    Evaluator.objects.create(study=study, key="repeats", kind="builtin", detector="repetition",
                             options={"category": "RepE"})  # fmt: skip
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server, researcher.username)
    for url in (
        reverse("admin:studies_study_changelist"),
        reverse("admin:studies_study_change", args=[study.pk]),
        reverse("admin:studies_taxonomy_change", args=[study.taxonomy.pk]),
        reverse("admin:evaluators_evaluator_changelist"),
        reverse("admin:studies_document_add"),
    ):
        page.goto(live_server.url + url)
        assert_no_overflow(page)
        assert_accessible(page)
        cut = page.evaluate(
            "() => [...document.querySelectorAll('.results, .tabular')].filter(e => e.scrollWidth > e.clientWidth + 1)"
            ".map(e => e.className)"
        )
        assert not cut, f"{url}: a table wider than its box: {cut}"
    # The study page's tools sit in their own row, above the overview, not over it.
    page.goto(live_server.url + reverse("admin:studies_study_change", args=[study.pk]))
    tools = page.locator(".object-tools").bounding_box()
    overview = page.locator("fieldset").first.bounding_box()
    assert tools["y"] + tools["height"] <= overview["y"] + 1
