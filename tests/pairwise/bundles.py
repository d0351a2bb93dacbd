"""Small pairwise study bundles: blocks of inputs with an output of each system, and their choices."""

import json

import yaml

from accounts.models import Worker
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle

SYSTEMS = ["sysA", "sysB", "sysC"]
QUESTION = "Which summary is more faithful to the article?"


def pairwise_documents(blocks=("b1", "b2"), inputs=2, systems=SYSTEMS):
    documents = []
    for block in blocks:
        for number in range(inputs):
            input_id = f"{block}-in{number}"
            for system in systems:
                documents.append({"id": f"{input_id}-{system}", "block": block, "input_id": input_id,
                                  "system": system, "source": f"Article {input_id}: the mayor opened the bridge.",
                                  "segments": [f"Summary of {input_id} by {system}."]})  # fmt: skip
    return documents


def write_pairwise_bundle(
    directory, *, slug="pairwise", config=None, documents=None, assignments=None, **study
):
    directory.mkdir(parents=True, exist_ok=True)
    spec = {"slug": slug, "title": "Pairwise study", "protocol": "pairwise", "annotators_per_document": 2,
            "status": "open", "config": {"question": QUESTION} if config is None else config, **study}  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(spec))
    docs = pairwise_documents() if documents is None else documents
    (directory / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    if assignments is not None:
        (directory / "assignments.jsonl").write_text("".join(json.dumps(a) + "\n" for a in assignments))
    return directory


def import_pairwise(directory, *, user=None, **bundle):
    return study_import_bundle(directory=write_pairwise_bundle(directory, **bundle), user=user).study


def pair_assignment(study, worker="w1", block="b1", **fields):
    worker = Worker.objects.get_or_create(platform="link", external_id=worker)[0]
    return block_assignment_create(study=study, worker=worker, block=block, **fields)


def shown_pairs(assignment):
    """[(position, left external id, right external id)] in this worker's order."""
    external = dict(assignment.study.documents.values_list("pk", "external_id"))
    return [
        (entry["position"], external[entry["left"]], external[entry["right"]]) for entry in assignment.items
    ]
