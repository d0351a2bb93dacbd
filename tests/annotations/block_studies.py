"""Block studies (Likert, BWS, pairwise) whose blocks hold two systems' outputs of one input, and
workers who rate a block by the systems' quality: sysA clearly best, sysB clearly worst, sysC
and sysD close (C better on two inputs of three)."""

import json

import yaml
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services import assignment_join, assignment_submit
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from protocols.pairwise.models import PairwiseChoice
from protocols.rating.models import BestWorstJudgment, Rating
from studies.models import Document

SYSTEMS = ("sysA", "sysB", "sysC", "sysD")
# Each input's four outputs in two blocks of two systems, the pairing turning with the input.
PAIRINGS = ((("sysA", "sysB"), ("sysC", "sysD")), (("sysA", "sysC"), ("sysB", "sysD")),
            (("sysA", "sysD"), ("sysB", "sysC")))  # fmt: skip
CONFIGS = {
    "likert": {"scale": {"min": 1, "max": 5}},
    "bws": {"bws": {"tuple_size": 2, "tuples": "by_input"}},
    "pairwise": {},
}


def block_label(number, pair):
    return f"in{number:02d}-{pair[0][-1]}{pair[1][-1]}"


def pair_documents(inputs):
    documents = []
    for number in range(inputs):
        for pair in PAIRINGS[number % 3]:
            for system in pair:
                documents.append({"id": f"in{number:02d}-{system}", "block": block_label(number, pair),
                                  "input_id": f"in{number:02d}", "system": system,
                                  "source": f"Story prompt {number}.", "segments": [f"A story by {system}."]})  # fmt: skip
    return documents


def by_input_documents(inputs):
    """Every system's output of an input in one block: nothing for the policy to steer."""
    return [
        {"id": f"in{number:02d}-{system}", "block": f"in{number:02d}", "input_id": f"in{number:02d}",
         "system": system, "source": f"Story prompt {number}.", "segments": [f"A story by {system}."]}
        for number in range(inputs) for system in SYSTEMS
    ]  # fmt: skip


def import_block_study(directory, protocol, *, documents, allocation, per_block=1, slug=None):
    directory.mkdir(parents=True, exist_ok=True)
    study = {"slug": slug or f"{protocol}-adaptive", "title": f"{protocol} adaptive", "protocol": protocol,
             "annotators_per_document": per_block, "status": "open",
             "config": {**CONFIGS[protocol], "allocation": allocation}}  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    (directory / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents))
    return study_import_bundle(directory=directory)


# sysC's and sysD's Likert scores by input: a point apart, C ahead on eight inputs of twelve.
CLOSE = {"sysC": (4, 3, 4, 3, 4, 4, 3, 4, 4, 3, 4, 4), "sysD": (3, 4, 3, 4, 3, 3, 4, 3, 3, 4, 3, 3)}


def quality(document):
    """sysA 5, sysB 1, sysC and sysD close (CLOSE)."""
    number = int(document.input_id[2:])
    return {"sysA": 5, "sysB": 1}.get(document.system) or CLOSE[document.system][number % 12]


def rate_block(assignment):
    """Rate or judge every item of the block by the systems' quality, and submit it."""
    study = assignment.study
    documents = Document.objects.in_bulk([*_document_ids(assignment)])
    if study.protocol == "likert":
        for pk in assignment.items:
            Rating.objects.create(assignment=assignment, document_id=pk, score=quality(documents[pk]))
    elif study.protocol == "bws":
        for entry in assignment.items:
            ranked = sorted(entry["documents"], key=lambda pk: quality(documents[pk]))
            BestWorstJudgment.objects.create(assignment=assignment, position=entry["position"],
                                             documents=sorted(entry["documents"]), best_id=ranked[-1],
                                             worst_id=ranked[0])  # fmt: skip
    else:
        for entry in assignment.items:
            left, right = documents[entry["left"]], documents[entry["right"]]
            PairwiseChoice.objects.create(assignment=assignment, position=entry["position"], left=left,
                                          right=right, choice="left" if quality(left) > quality(right) else "right")  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(started_at=timezone.now(),
                                                       status=Assignment.Status.IN_PROGRESS)  # fmt: skip
    return assignment_submit(token=assignment.token)


def _document_ids(assignment):
    for entry in assignment.items:
        if isinstance(entry, int):
            yield entry
        else:
            yield from entry.get("documents", ()) or (entry["left"], entry["right"])


def warm_up(study, inputs):
    """Every block of the first `inputs` inputs rated by a worker of its own (not through the join)."""
    for block in sorted(
        set(study.documents.filter(input_id__lt=f"in{inputs:02d}").values_list("block", flat=True))
    ):
        worker = Worker.objects.create(platform="prolific", external_id=f"warm-{study.slug}-{block}")
        rate_block(block_assignment_create(study=study, worker=worker, block=block, joined=True))


def join(study, worker):
    return assignment_join(study=study, platform="prolific", external_id=worker)


def systems_of(assignment):
    return set(assignment.study.documents.filter(block=assignment.block).values_list("system", flat=True))
