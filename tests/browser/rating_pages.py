"""Helpers for driving the Likert and BWS pages: a study from a bundle, and its block's assignment."""

from django.urls import reverse

from accounts.models import Worker
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from tests.bundles import write_bundle

QUESTION = "How consistent is the summary with the article?"
LIKERT_CONFIG = {
    "scale": {"min": 1, "max": 5, "labels": {"1": "very poor", "5": "excellent"}},
    "question": QUESTION,
}

ARTICLE = "The council met on Monday.\n\nIt voted  to close the old bridge for repairs."
SUMMARIES = [
    "The council voted to close the bridge.",
    "The bridge was closed by the mayor on Sunday.",
    "Repairs: the old bridge closes.\nThe council agreed.",
]


def documents(count=3, *, sources=None, texts=None):
    """Outputs of `count` systems for one input, all in block b1."""
    return [
        {"id": f"d{number}", "block": "b1", "input_id": "article-1", "system": f"sys{number}",
         "source": (sources or [ARTICLE] * count)[number], "segments": [(texts or SUMMARIES)[number]]}
        for number in range(count)
    ]  # fmt: skip


def rating_assignment(
    tmp_path, *, protocol="likert", config=None, docs=None, worker="w1", **assignment_fields
):
    """Import a rating study through the bundle importer; a link worker's assignment of block b1."""
    config = (
        config
        if config is not None
        else (LIKERT_CONFIG if protocol == "likert" else {"bws": {"tuple_size": 3}})
    )
    study = {"slug": f"{protocol}-study", "title": f"A {protocol} study", "protocol": protocol,
             "instructions": "Read and judge.", "status": "open", "config": config}  # fmt: skip
    write_bundle(tmp_path / "bundle", study=study, documents=docs or documents())
    result = study_import_bundle(directory=tmp_path / "bundle")
    worker = Worker.objects.create(platform="link", external_id=worker)
    return block_assignment_create(study=result.study, worker=worker, block="b1", **assignment_fields)


def rate_url(live_server, assignment):
    return live_server.url + reverse("task-annotate", args=[assignment.token])


def open_rating_page(page, live_server, assignment):
    page.goto(rate_url(live_server, assignment))
    page.wait_for_selector("#unit-heading:not(:empty)")


def external_ids(assignment):
    """{document pk: external id} of the study's documents."""
    return dict(assignment.study.documents.values_list("pk", "external_id"))


def likert_order(assignment):
    """The external ids in this worker's order."""
    ids = external_ids(assignment)
    return [ids[pk] for pk in assignment.items]


def bws_order(assignment):
    """[(position, [external ids in the shown order])] in this worker's order."""
    ids = external_ids(assignment)
    return [(entry["position"], [ids[pk] for pk in entry["documents"]]) for entry in assignment.items]
