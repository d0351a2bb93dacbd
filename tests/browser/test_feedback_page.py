"""A candidate reads their qualification feedback in a real browser."""

import pytest
from django.urls import reverse

from qualification.services import qualification_result_update
from tests.qualification.builders import annotate, make_round, span

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_feedback_shows_both_annotations_side_by_side(page, live_server):
    qualification, document = make_round(default_message="<img src=x onerror=alert(1)> Well done!")
    category = document.study.taxonomy.categories.get(key="GramE")
    category.label = "Grammar <script>alert(2)</script>"
    category.save()
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE"), span(document, 0, "Ben left", "GramE")],
             platform="expert")  # fmt: skip
    mine = annotate(document, "cand", "qualification", [span(document, 1, "Carl sang", "CharE"),
                                                        span(document, 0, "mill", "GramE")])  # fmt: skip
    result = qualification_result_update(qualification=qualification, worker=mine.worker)

    page.goto(live_server.url + reverse("qualification-feedback", args=[result.feedback_token]))
    assert page.locator("#decision").inner_text() == "Pending"
    assert page.locator("#message").inner_text() == "<img src=x onerror=alert(1)> Well done!"
    mine_column, gold_column = page.locator(".document .mine"), page.locator(".document .gold")
    assert mine_column.locator(".outcome-matched").inner_text() == "Carl sang"
    assert mine_column.locator(".outcome-extra").inner_text() == "mill"
    assert gold_column.locator(".outcome-missed").inner_text() == "Ben left"
    assert gold_column.locator(".outcome-matched").inner_text() == "Carl"
    assert "Grammar <script>alert(2)</script>: “Ben left”" in page.locator("ul.missed").inner_text()
    rows = page.locator("#scores tbody tr")
    assert rows.nth(0).inner_text().split("\t") == ["New character", "1.00", "1.00", "1.00"]
    assert page.locator("img").count() == 0
    assert page.dialogs == []
