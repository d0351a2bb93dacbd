"""An LLM judge of an MQM or ESA study, end to end: the real `openai` client talks HTTP to a local
OpenAI-compatible server; the answer's errors are placed in the segments by their text (code
points), stored as the judge's own TranslationError and SegmentScore rows, and every error the
study would not take from a person is kept in the run's result with the reason."""

import json

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator, EvaluatorResult
from evaluators.review import ReviewRefused, review_study_create
from evaluators.services import RunRefused, evaluator_run_request
from protocols.translation.models import SegmentScore, TranslationError
from protocols.translation.report import study_report
from studies.models import Segment
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def server():
    with FakeChatServer() as running:
        yield running


@pytest.fixture
def run_now(django_capture_on_commit_callbacks):
    def request(**arguments):
        with django_capture_on_commit_callbacks(execute=True):
            run, _ = evaluator_run_request(**arguments)
        run.refresh_from_db()
        return run

    return request


def judge(study, server, **fields):
    defaults = {"key": "gpt-judge", "kind": "llm", "base_url": server.base_url, "model": "local-model",
                "max_retries": 0, "concurrency": 1}  # fmt: skip
    return Evaluator.objects.create(study=study, **{**defaults, **fields})


def answer(*segments):
    return json.dumps({"segments": list(segments)})


def segment(number, *errors, score=None):
    entry = {"segment": number, "errors": list(errors)}
    if score is not None:
        entry["score"] = score
    return entry


def err(span, severity, category=None, side="target", explanation="why"):
    error = {"span": span, "side": side, "severity": severity, "explanation": explanation}
    if category is not None:
        error["category"] = category
    return error


def judged(evaluator, document):
    """The judge's errors of a document as (segment, side, start, end, text, category, severity)."""
    assignment = Assignment.objects.get(document=document, worker__external_id=evaluator.key, kind="model")
    return [
        (e.segment.index, e.side, e.start, e.end, e.text, e.category and e.category.key, e.severity)
        for e in TranslationError.objects.filter(assignment=assignment)
        .select_related("segment", "category")
        .order_by("segment__index", "side", "start")
    ]


def items_of(run, document):
    return EvaluatorResult.objects.get(run=run, document=document).items


def test_an_mqm_judge_marks_errors_with_the_studys_categories_and_severities(server, run_now):
    study = make_translation_study("mqm", systems=("sysA",))
    evaluator = judge(study, server)
    server.add(
        Reply(
            answer(
                segment(1, err("barks", "major", "Accuracy/Mistranslation")),
                segment(
                    2,
                    err("sofa", "Minor", "accuracy / mistranslation"),
                    err("Sofa", "Major", "Omission", side="source"),
                    err("cat", "Critical", "Accuracy/Mistranslation"),
                    err("sleeps", "Minor", "Style/Awkward"),
                    err("couch", "Minor", "Accuracy/Mistranslation"),
                ),
                segment(3, err("", "Major", "Accuracy/Omission", side="missing")),
            )
        )  # fmt: skip
    )
    run = run_now(evaluator=evaluator)
    assert run.status == "done"
    document = study.documents.get()
    assert judged(evaluator, document) == [
        (0, "target", 8, 13, "barks", "Mistranslation", "Major"),
        (1, "source", 26, 30, "Sofa", "Omission", "Major"),
        (1, "target", 22, 26, "sofa", "Mistranslation", "Minor"),
        (2, "missing", 0, 0, "", "Omission", "Major"),
    ]
    problems = [(item["status"], item.get("problem", "")) for item in items_of(run, document)]
    assert problems[3] == ("unknown_severity", "severity 'Critical' is not one of Neutral, Minor, Major")
    assert problems[4] == ("unknown_category", "category 'Style/Awkward' is not in the study's taxonomy")
    assert (
        problems[5][0] == "not_found" and "'couch' is not in the target text of segment 2" in problems[5][1]
    )
    # The judge's assignment is its own kind, by a worker named after the evaluator.
    assignment = Assignment.objects.get(kind="model")
    assert assignment.worker.platform == "model" and assignment.status == "submitted"


def test_the_request_shows_source_and_translation_and_asks_for_the_studys_labels(server, run_now):
    study = make_translation_study("mqm", systems=("sysA",), config={"max_errors_per_segment": 5})
    study.documents.update(meta={"sources": ["Der Hund bellt.", "Die Katze schläft auf dem Sofa.", "Es regnet."],
                                 "source_lang": "German", "target_lang": "English"})  # fmt: skip
    run_now(evaluator=judge(study, server))
    [request] = [r for r in server.requests if r.is_chat]
    prompt = request.body["messages"][-1]["content"]
    assert "from German into English with MQM" in prompt
    assert (
        "[Segment 2]\nSource: Die Katze schläft auf dem Sofa.\nTranslation: The cat sleeps on the sofa."
        in prompt
    )
    assert "- Accuracy/Mistranslation" in prompt and "- Non-translation" in prompt
    assert "whole segment" in prompt and "at most 5 errors per segment" in prompt
    assert "Reference:" not in prompt  # the people do not see references in this study
    schema = request.body["response_format"]["json_schema"]["schema"]
    error = schema["properties"]["segments"]["items"]["properties"]["errors"]["items"]
    assert error["properties"]["category"]["enum"] == [
        "Accuracy/Mistranslation", "Non-translation", "Accuracy/Omission", "Fluency/Punctuation",
    ]  # fmt: skip
    assert error["properties"]["severity"]["enum"] == ["Neutral", "Minor", "Major"]
    assert error["properties"]["side"]["enum"] == ["target", "source", "missing"]
    assert "score" not in schema["properties"]["segments"]["items"]["properties"]


def test_an_esa_judge_stores_errors_without_category_and_a_score_per_segment(server, run_now):
    study = make_translation_study("esa", systems=("sysB",), taxonomy=None)
    evaluator = judge(study, server)
    server.add(
        Reply(
            answer(
                segment(1, err("loudly", "Minor", category="Style"), score=80),
                segment(2, err("sleeps.", "Major"), score="35"),
                segment(3, score=140),
            )
        )  # fmt: skip
    )
    run = run_now(evaluator=evaluator)
    document = study.documents.get()
    assert judged(evaluator, document) == [
        (0, "target", 15, 21, "loudly", None, "Minor"),
        (1, "target", 8, 15, "sleeps.", None, "Major"),
    ]
    scores = SegmentScore.objects.filter(assignment__kind="model").order_by("segment__index")
    assert [(s.segment.index, s.score) for s in scores] == [(0, 80.0), (1, 35.0)]
    result = EvaluatorResult.objects.get(run=run)
    assert result.scores[2] == {"segment": 2, "score": 140, "status": "out_of_scale",
                                "problem": "score 140 is outside 0 to 100"}  # fmt: skip
    [request] = [r for r in server.requests if r.is_chat]
    prompt = request.body["messages"][-1]["content"]
    assert "ESA (Error Span Annotation)" in prompt and "score each segment from 0 to 100" in prompt
    properties = request.body["response_format"]["json_schema"]["schema"]["properties"]["segments"]["items"]
    assert "score" in properties["properties"]
    assert "category" not in properties["properties"]["errors"]["items"]["properties"]


def test_spans_are_code_points_of_the_segment_whatever_its_script(server, run_now):
    study = make_translation_study("esa", systems=("sysA",), taxonomy=None)
    document = study.documents.get()
    Segment.objects.filter(document=document, index=0).update(text="🙂 Der Hund — ein 🐕 — bellt sehr laut.")
    server.add(Reply(answer(segment(1, err("bellt sehr", "Major"), score=50))))
    evaluator = judge(study, server)
    run_now(evaluator=evaluator)
    [(index, side, start, end, text, _, _)] = judged(evaluator, document)
    target = document.segments.get(index=0).text
    # Code points: the emoji before it count one each (UTF-16, as a browser counts, would say 23).
    assert (start, end) == (21, 31) and target[start:end] == text == "bellt sehr"


def test_answers_in_other_shapes_are_read_and_a_malformed_one_costs_only_its_document(server, run_now):
    study = make_translation_study("esa", systems=("sysA", "sysB"), documents=2, taxonomy=None)
    fenced = "```json\n" + answer(segment(1, err("dog", "Minor"), score=70)) + "\n```"
    flat = json.dumps({"errors": [{"segment": 2, "text": "cat", "severity": "major"}], "scores": {"2": 20}})
    bare = json.dumps([{"segment": 3, "errors": [{"span": "raining", "severity": "Minor"}], "score": 40}])
    server.add(Reply(fenced), Reply(flat), Reply(bare), Reply('{"verdict": "fine"}'))
    evaluator = judge(study, server)
    run = run_now(evaluator=evaluator)
    a, b, c, d = study.documents.order_by("position")
    assert judged(evaluator, a) == [(0, "target", 4, 7, "dog", None, "Minor")]
    assert judged(evaluator, b) == [(1, "target", 4, 7, "cat", None, "Major")]
    assert judged(evaluator, c) == [(2, "target", 6, 13, "raining", None, "Minor")]
    malformed = EvaluatorResult.objects.get(run=run, document=d)
    assert malformed.status == "malformed" and "no 'segments' list" in malformed.problem
    assert run.status == "done"


def test_past_the_studys_cap_the_mildest_errors_are_kept_out(server, run_now):
    study = make_translation_study("mqm", systems=("sysA",), config={"max_errors_per_segment": 2})
    server.add(
        Reply(answer(segment(2, err("The", "Minor", "Accuracy/Mistranslation"),
                              err("cat", "Major", "Accuracy/Mistranslation"),
                              err("sleeps", "Neutral", "Accuracy/Mistranslation"),
                              err("sofa", "Minor", "Accuracy/Mistranslation"))))
    )  # fmt: skip
    evaluator = judge(study, server)
    run = run_now(evaluator=evaluator)
    document = study.documents.get()
    assert [text for _, _, _, _, text, _, _ in judged(evaluator, document)] == ["The", "cat"]
    statuses = [item["status"] for item in items_of(run, document)]
    assert statuses == ["found", "found", "over_cap", "over_cap"]


def test_a_whole_segment_category_covers_the_segment_and_the_study_rules_hold(server, run_now):
    study = make_translation_study(
        "mqm", systems=("sysC",), config={"source_spans": False, "missing_marker": False}
    )
    server.add(
        Reply(answer(segment(1, err("bark", "Major", "Non-translation")),
                     segment(2, err("Katze", "Major", "Accuracy/Omission", side="source"),
                             err("", "Major", "Accuracy/Omission", side="missing"),
                             err("", "Minor", "Fluency/Punctuation")),
                     segment(7, err("Rain", "Minor", "Fluency/Punctuation"))))
    )  # fmt: skip
    evaluator = judge(study, server)
    run = run_now(evaluator=evaluator)
    document = study.documents.get()
    assert judged(evaluator, document) == [(0, "target", 0, 9, "Dog bark.", "NonTranslation", "Major")]
    problems = [(item["status"], item.get("problem")) for item in items_of(run, document)][1:]
    assert problems == [
        ("invalid", "this study marks errors in the translation only"),
        ("invalid", "this study has no [missing] marker: quote the source words left out"),
        ("no_span", "no span: quote the words in error"),
        ("invalid", "segment 7 is not in the document (3 segments)"),
    ]


def test_a_rerun_replaces_the_judges_rows_and_people_figures_never_count_it(server, run_now):
    study = make_translation_study("mqm", systems=("sysA",))
    server.add(Reply(answer(segment(1, err("dog", "Major", "Accuracy/Mistranslation")))))
    evaluator = judge(study, server)
    run_now(evaluator=evaluator)
    evaluator.temperature = 0.5  # a new request: answered anew
    evaluator.save()
    server.add(Reply(answer(segment(3, err("raining", "Minor", "Accuracy/Mistranslation")))))
    run_now(evaluator=evaluator)
    assert judged(evaluator, study.documents.get()) == [
        (2, "target", 6, 13, "raining", "Mistranslation", "Minor")
    ]
    report = study_report(study)
    assert report["segments_rated"] == 0 and report["reason"] == "no submitted work yet"


def test_a_da_study_and_a_detector_on_a_translation_study_are_refused_with_the_reason(server):
    da = make_translation_study("da", systems=("sysA",), taxonomy=None)
    with pytest.raises(RunRefused, match="MQM and ESA translation studies, not on da studies"):
        evaluator_run_request(evaluator=judge(da, server))
    mqm = make_translation_study("mqm", systems=("sysA",))
    detector = Evaluator.objects.create(study=mqm, key="repeats", kind="builtin", detector="repetition",
                                        options={"category": "Mistranslation"})  # fmt: skip
    with pytest.raises(RunRefused, match="built-in detectors mark span studies"):
        evaluator_run_request(evaluator=detector)
    assert server.calls == 0


@pytest.mark.django_db(transaction=True)
def test_the_command_prints_what_the_judge_could_not_place(server, capsys):
    study = make_translation_study("esa", systems=("sysA",), taxonomy=None)
    server.add(Reply(answer(segment(1, err("dog", "Minor"), err("wolf", "Minor"), score=60))))
    judge(study, server)
    call_command("run_evaluator", study.slug, "gpt-judge")
    printed = capsys.readouterr().out
    assert "errors listed: 2, placed in the text: 1, not placed: 1 (1 not_found)" in printed
    assert "segment scores: 1 stored of 3 segments" in printed


def test_a_judges_output_made_elsewhere_loads_as_a_finished_run(tmp_path):
    study = make_translation_study("mqm", systems=("sysA", "sysB"))
    evaluator = Evaluator.objects.create(study=study, key="xcomet-spans", kind="import")
    path = tmp_path / "judge.jsonl"
    lines = [
        {"document": "src-0-sysA", "segments": [
            {"segment": 0, "errors": [{"start": 4, "end": 7, "text": "dog", "category": "Mistranslation",
                                       "severity": "Major"}]},
            {"segment": 1, "errors": [{"text": "sofa", "category": "Accuracy/Mistranslation", "severity": "minor",
                                       "comment": "a couch"}]}]},
        {"document": "src-0-sysB", "segments": [
            {"segment": 2, "errors": [{"text": "pours", "category": "Accuracy/Mistranslation", "severity": "Minor"}]}]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    call_command("run_evaluator", study.slug, "xcomet-spans", "--predictions", str(path))
    assert judged(evaluator, study.documents.get(system="sysA")) == [
        (0, "target", 4, 7, "dog", "Mistranslation", "Major"),
        (1, "target", 22, 26, "sofa", "Mistranslation", "Minor"),
    ]
    result = EvaluatorResult.objects.get(document__system="sysB")
    assert [item["status"] for item in result.items] == ["not_found"]


def test_a_malformed_predictions_file_names_each_line_and_loads_nothing(tmp_path):
    study = make_translation_study("esa", systems=("sysA",), taxonomy=None)
    Evaluator.objects.create(study=study, key="offline", kind="import")
    path = tmp_path / "judge.jsonl"
    path.write_text(
        json.dumps({"document": "src-0-sysA", "segments": [{"segment": 0, "errors": [{"text": "dog"}]}]}) + "\n"
        + json.dumps({"document": "nope", "segments": []}) + "\n"
        + json.dumps({"document": "src-0-sysA", "segments": [{"segment": 1, "score": "high"}]}) + "\n"
    )  # fmt: skip
    with pytest.raises(CommandError) as raised:
        call_command("run_evaluator", study.slug, "offline", "--predictions", str(path))
    message = str(raised.value)
    assert "judge.jsonl:1: segments[1].errors[1]: 'severity' must be text" in message
    assert "judge.jsonl:2: unknown document 'nope'" in message
    assert "judge.jsonl:3: document 'src-0-sysA' is already on line 1" in message
    assert not TranslationError.objects.exists() and not EvaluatorResult.objects.exists()


def translation_bundle(directory, evaluators, files=None):
    study = {
        "slug": "esa-bundle", "title": "ESA with a judge", "protocol": "esa", "evaluators": evaluators,
    }  # fmt: skip
    documents = [{"id": "src-0-sysA", "input_id": "src-0", "system": "sysA", "segments": ["The dog barks."],
                  "meta": {"sources": ["Der Hund bellt."]}}]  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    (directory / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in documents) + "\n")
    for name, text in (files or {}).items():
        (directory / name).write_text(text)
    return directory


def test_a_translation_bundle_declares_its_judges_and_loads_their_output(tmp_path):
    judgments = {"document": "src-0-sysA", "segments": [{"segment": 0, "errors": [], "score": 88}]}
    directory = translation_bundle(
        tmp_path,
        [{"key": "gpt-judge", "kind": "llm", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
         {"key": "offline", "kind": "import", "predictions": "offline.jsonl"}],
        {"offline.jsonl": json.dumps(judgments) + "\n"},
    )  # fmt: skip
    study = study_import_bundle(directory=directory).study
    assert sorted(study.evaluators.values_list("key", flat=True)) == ["gpt-judge", "offline"]
    assert SegmentScore.objects.get(assignment__worker__external_id="offline").score == 88


def test_a_translation_bundle_refuses_a_detector(tmp_path):
    directory = translation_bundle(
        tmp_path,
        [{"key": "repeats", "kind": "builtin", "detector": "repetition", "options": {"category": "X"}}],
    )
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=directory)
    assert "evaluators[1] (repeats): built-in detectors mark span studies" in str(raised.value.describe())


def test_a_translation_judges_errors_are_not_sent_to_a_review_study(server, run_now):
    study = make_translation_study("esa", systems=("sysA",), taxonomy=None)
    server.add(Reply(answer(segment(1, err("dog", "Minor"), score=60))))
    evaluator = judge(study, server)
    run_now(evaluator=evaluator)
    with pytest.raises(ReviewRefused, match="review studies are made of a span study's evaluators"):
        review_study_create(evaluators=[evaluator], slug="esa-review")


def test_fields_of_the_wrong_type_are_named_per_error_and_the_others_stored(server, run_now):
    study = make_translation_study("mqm", systems=("sysA", "sysB"))
    odd = [
        {"span": "dog", "side": ["target"], "category": "Accuracy/Mistranslation", "severity": "Minor"},
        {"span": 7, "category": "Accuracy/Mistranslation", "severity": "Minor"},
        {"span": "dog", "category": {"x": 1}, "severity": "Minor"},
        {"span": "dog", "category": "Accuracy/Mistranslation", "severity": 3},
        {"span": "dog", "category": "Accuracy/Mistranslation", "severity": "Minor", "occurrence": 0},
        "not an error",
        {"span": "dog", "side": "sideways", "category": "Accuracy/Mistranslation", "severity": "Minor"},
        {"span": "dog", "category": "Accuracy/Mistranslation", "severity": "Minor"},
    ]
    server.add(
        Reply(
            json.dumps({"segments": [{"segment": 1, "errors": odd}, {"segment": "two", "errors": "none"}, 5]})
        ),
        Reply("[" * 100_000 + "]" * 100_000),
    )
    run = run_now(evaluator=judge(study, server))
    result, deep = EvaluatorResult.objects.filter(run=run).order_by("document__position")
    assert deep.status == "malformed" and "nests deeper" in deep.problem
    problems = [(item["status"], item.get("problem")) for item in result.items]
    assert problems == [
        ("invalid", "'side' must be text"),
        ("invalid", "'span' must be text"),
        ("unknown_category", "category {'x': 1} is not in the study's taxonomy"),
        ("invalid", "'severity' must be text"),
        ("invalid", "'occurrence' counts from 1"),
        ("invalid", "not an object"),
        ("invalid", "side 'sideways' is not target, source or missing"),
        ("found", None),
        ("invalid", "'errors' is not a list"),
        ("invalid", "a segment entry is not an object"),
    ]
    assert TranslationError.objects.filter(assignment__kind="model").count() == 1
    assert run.status == "done"
