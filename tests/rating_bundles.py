"""Small Likert and BWS study bundles: 2 blocks x 2 inputs x 3 systems."""

import json

import yaml

SYSTEMS = ["sysA", "sysB", "sysC"]


def rating_documents():
    documents = []
    for block in ["b1", "b2"]:
        for number in range(2):
            input_id = f"{block}-in{number}"
            for system in SYSTEMS:
                documents.append({"id": f"{input_id}-{system}", "block": block, "input_id": input_id, "system": system,
                                  "source": f"Article {input_id}: the mayor opened the bridge.",
                                  "segments": [f"Summary of {input_id} by {system}."]})  # fmt: skip
    return documents


def write_rating_bundle(directory, *, protocol="likert", slug="ratings", assignments=None, config=None):
    directory.mkdir(parents=True, exist_ok=True)
    default = ({"scale": {"min": 1, "max": 5}, "question": "Is it consistent?"} if protocol == "likert"
               else {"bws": {"tuple_size": 3, "tuples": "by_input", "value_scale": 3}})  # fmt: skip
    study = {"slug": slug, "title": f"{protocol} study", "protocol": protocol, "annotators_per_document": 2,
             "status": "open", "config": config or default}  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    (directory / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in rating_documents()))
    if assignments is not None:
        (directory / "assignments.jsonl").write_text("".join(json.dumps(a) + "\n" for a in assignments))
    return directory
