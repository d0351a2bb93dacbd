"""Translation bundles for tests: two systems' translations of one German document, sources and
references in meta, and work lines with errors and scores."""

from tests.bundles import write_bundle

TAXONOMY = {
    "slug": "mqm-test",
    "name": "MQM (test)",
    "categories": [
        {"key": "Mistranslation", "label": "Accuracy/Mistranslation", "group": "accuracy", "shortcut": "m"},
        {"key": "Punctuation", "label": "Fluency/Punctuation", "group": "fluency", "shortcut": "p"},
        {"key": "NonTranslation", "label": "Non-translation", "group": "other", "whole_sentence": True},
    ],
}
SOURCES = ["Der Hund bellt laut.", "Die Katze schläft 😀 auf dem Sofa."]
REFERENCES = ["The dog barks loudly.", "The cat sleeps 😀 on the sofa."]
DOCUMENTS = [
    {"id": "news-1#sysA", "input_id": "news-1", "system": "sysA", "segments": ["The dog barks loud.", "The cat sleeps 😀 on the sofa."],
     "meta": {"sources": SOURCES, "references": REFERENCES, "source_lang": "de", "target_lang": "en"}},
    {"id": "news-1#sysB", "input_id": "news-1", "system": "sysB", "segments": ["Dog bark.", "Katze Sofa."],
     "meta": {"sources": SOURCES, "references": REFERENCES}},
]  # fmt: skip


def translation_yaml(protocol, **overrides):
    study = {
        "slug": f"{protocol}-bundle",
        "title": f"A {protocol} bundle",
        "protocol": protocol,
        "status": "open",
        "annotators_per_document": 2,
    }
    if protocol == "mqm":
        study["taxonomy"] = TAXONOMY
        study["config"] = {"severities": ["Neutral", "Minor", "Major"], "max_errors_per_segment": 5}
    if protocol == "esa":
        study["config"] = {"score_warnings": {"low": 30, "high": 70}}
    if protocol == "da":
        study["config"] = {"scale": {"min": 0, "max": 6}}
    study.update(overrides)
    return study


def work_lines(protocol):
    """Two raters on both documents, errors on each side (MQM, ESA) and scores (ESA, DA)."""
    category = {"category": "Mistranslation"} if protocol == "mqm" else {}
    errors_a = [
        {"segment": 0, "side": "target", "start": 14, "end": 18, "text": "loud", **category, "severity": "Minor",
         "comment": "should be an adverb"},
        {"segment": 1, "side": "source", "start": 0, "end": 3, "text": "Die", **category, "severity": "Major"},
        {"segment": 1, "side": "missing", **category, "severity": "Minor"},
    ]  # fmt: skip
    if protocol == "mqm":
        errors_a.append({"segment": 1, "category": "NonTranslation", "severity": "Major"})
    errors_b = [{"segment": 0, "side": "target", "start": 0, "end": 9, "text": "Dog bark.", **category,
                 "severity": "major"}]  # fmt: skip
    scale = {"esa": [(80, 55), (30, 10)], "da": [(5, 4), (1, 0)]}.get(protocol)
    lines = []
    for n, (document, errors) in enumerate((("news-1#sysA", errors_a), ("news-1#sysB", errors_b))):
        for rater in ("r1", "r2"):
            line = {"document": document, "annotator": rater, "active_seconds": 90 + n,
                    "submitted_at": "2026-05-04T10:00:00+00:00"}  # fmt: skip
            if protocol != "da":
                line["errors"] = errors if rater == "r1" else []
            if scale:
                first, second = scale[n]
                line["scores"] = [{"segment": 1, "score": second + (rater == "r2")},
                                  {"segment": 0, "score": first + 0.5 * (rater == "r2")}]  # fmt: skip
            lines.append(line)
    return lines


def write_translation_bundle(directory, protocol, *, study=None, documents=None, assignments=None, **kwargs):
    return write_bundle(
        directory, study=study or translation_yaml(protocol), documents=documents or DOCUMENTS,
        assignments=work_lines(protocol) if assignments is None else assignments, **kwargs,
    )  # fmt: skip
