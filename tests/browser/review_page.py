"""Helpers for driving the review page: the sample review study, a reviewer's assignment, its items."""

import json

from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from bundles.services import study_import_bundle
from protocols.review.models import ReviewAnswer, ReviewItem
from tests.reviews.bundles import write_review_bundle


def review_assignment(tmp_path, *, segments=None, data=None, items=None, questions=None, **fields):
    """A link reviewer's assignment of the sample bundle's output "game1", or of
    an output "game1" with the given segments, input data and items."""
    directory = write_review_bundle(tmp_path / "bundle", questions=questions)
    if segments is not None:
        document = {"id": "game1", "segments": segments, "source": "", "meta": {"data": data}}
        (directory / "documents.jsonl").write_text(json.dumps(document) + "\n")
        (directory / "review_items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    study = study_import_bundle(directory=directory).study
    return Assignment.objects.create(
        study=study,
        document=study.documents.get(external_id="game1"),
        worker=Worker.objects.create(platform="link", external_id="rev"),
        **fields,
    )


def review_url(live_server, assignment):
    return live_server.url + reverse("task-annotate", args=[assignment.token])


def open_review_page(page, live_server, assignment):
    page.goto(review_url(live_server, assignment))
    page.wait_for_selector(".item-card")


def review_items(assignment):
    """The output's items in file order."""
    return list(ReviewItem.objects.filter(document=assignment.document).order_by("position"))


def stored_answers(assignment):
    return dict(ReviewAnswer.objects.filter(assignment=assignment).values_list("item_id", "answers"))


def card(page, item):
    return page.locator(f"#item-{item.pk}")


def option(page, item, question, name):
    """The radio or checkbox of an item's question (its key) by the option's text."""
    return card(page, item).locator(f'fieldset[data-question="{question}"]').get_by_label(name, exact=True)


def comment(page, item):
    return card(page, item).locator("textarea")


def highlights(page, item):
    return page.locator(f'#output-box .hl[data-items~="{item.pk}"]')


def tab_to(page, selector, limit=60):
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        if page.evaluate("(selector) => document.activeElement?.matches(selector) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")
