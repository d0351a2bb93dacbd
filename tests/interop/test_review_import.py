"""Evaluators' annotations imported as a review study (import_annotations --into review)."""

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from protocols.review.models import ReviewItem
from protocols.review.selectors import review_page_data
from studies.models import Study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
LLM = FILES / "factgenie" / "llm-eval-1"
CROWD = FILES / "factgenie" / "human-1"
FIRST = "Tomorrow in Paris, expect rain 🌧️ and 18°C; in 東京, sunny skies with a high of 25°C."


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("import_annotations", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def refused(*args):
    err = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("import_annotations", *args, stdout=StringIO(), stderr=err)
    return str(raised.value), err.getvalue().splitlines()


def items(study):
    return [
        (i.document.external_id, i.evaluator, i.label, i.span_text, i.explanation, i.span_status, i.locations)
        for i in ReviewItem.objects.filter(document__study=study).select_related("document")
        .order_by("document__position", "position")
    ]  # fmt: skip


def edited(tmp_path, edit):
    """A copy of the LLM campaign whose records `edit` changed in place."""
    campaign = tmp_path / "campaign"
    shutil.copytree(LLM, campaign)
    (source,) = (campaign / "files").glob("*.jsonl")
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    edit(records)
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return campaign


def two_evaluators(tmp_path):
    """The LLM campaign with a second evaluator's records beside the first's."""
    campaign = tmp_path / "llm-eval-2"
    shutil.copytree(LLM, campaign)
    (source,) = (campaign / "files").glob("*.jsonl")
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    other = {
        **records[0],
        "annotations": [{"reason": "Paris is wrong.", "text": "Paris", "type": 3, "start": 12}],
    }
    other["metadata"] = {**records[0]["metadata"], "annotator_id": "claude-judge", "model": "claude"}
    (campaign / "files" / "claude.jsonl").write_text(json.dumps(other, ensure_ascii=False) + "\n", "utf-8")
    return campaign


def test_an_llm_campaign_becomes_a_review_study_of_its_spans_with_reasons_and_categories():
    out, _ = run(str(LLM), "--format", "factgenie", "--slug", "llm-review", "--into", "review")

    assert out.splitlines()[0] == "imported llm-review: 3 documents, 3 segments, 0 assignments, 0 annotations"
    study = Study.objects.get(slug="llm-review")
    assert study.protocol == "review" and study.title == "Review of the evaluators in llm-eval-1"
    document = "openweather/test/gpt-4o/0"
    assert study.documents.get(external_id=document).segments.get().text == FIRST
    # Code-point offsets in the one segment: the emoji and the CJK city are whole characters; the
    # evaluator's "Rain" is the output's "rain" (factgenie matches without case).
    assert items(study) == [
        (document, "llm-eval-1", "Evaluator A", "18°C", "Incorrect: The forecast says 21°C.", "found",
         [[0, 38, 42]]),
        (document, "llm-eval-1", "Evaluator A", "東京", "Incorrect: Tokyo is cloudy in the data.", "found",
         [[0, 47, 49]]),
        (document, "llm-eval-1", "Evaluator A", "rain 🌧️", "Not checkable: The data gives no precipitation.",
         "found", [[0, 26, 33]]),
        ("openweather/test/gpt-4o/1", "llm-eval-1", "Evaluator A", "Zu\u0308rich",
         "Incorrect: The city is Basel.", "found", [[0, 18, 25]]),
        ("openweather/test/gpt-4o/1", "llm-eval-1", "Evaluator A", "30 Grad",
         "Misleading: 29 degrees in the data.", "found", [[0, 37, 44]]),
    ]  # fmt: skip
    assert FIRST[38:42] == "18°C" and FIRST[47:49] == "東京"


def test_segments_of_n_sentences_map_the_spans_into_their_segment(tmp_path):
    campaign = edited(tmp_path, lambda records: records[1]["annotations"].append(
        {"reason": "It rains.", "text": "Regen", "type": 0, "start": records[1]["output"].index("Regen")}
    ))  # fmt: skip
    run(str(campaign), "--format=factgenie", "--slug=cut", "--into=review", "--sentences-per-segment=1")

    study = Study.objects.get(slug="cut")
    second = study.documents.get(external_id="openweather/test/gpt-4o/1")
    segments = list(second.segments.order_by("index").values_list("text", flat=True))
    assert segments == ["Die Temperatur in Zu\u0308rich steigt auf 30 Grad.", "☀️ Kein Regen."]
    located = [(i[3], i[6]) for i in items(study) if i[0] == second.external_id]
    assert located == [("Zu\u0308rich", [[0, 18, 25]]), ("30 Grad", [[0, 37, 44]]), ("Regen", [[1, 8, 13]])]
    for span, [[segment, start, end]] in located:
        assert segments[segment][start:end] == span


def test_evaluators_are_shown_as_evaluator_a_and_b_and_reviewers_get_the_items(tmp_path):
    run(str(two_evaluators(tmp_path)), "--format", "factgenie", "--slug", "two", "--into", "review")

    study = Study.objects.get(slug="two")
    first = [(i[1], i[2], i[3]) for i in items(study) if i[0] == "openweather/test/gpt-4o/0"]
    assert first == [
        ("claude-judge", "Evaluator A", "Paris"),
        ("llm-eval-1", "Evaluator B", "18°C"),
        ("llm-eval-1", "Evaluator B", "東京"),
        ("llm-eval-1", "Evaluator B", "rain 🌧️"),
    ]
    assignment = Assignment.objects.create(
        study=study, document=study.documents.get(external_id="openweather/test/gpt-4o/0"),
        worker=Worker.objects.create(platform="link", external_id="reviewer"),
    )  # fmt: skip
    data = review_page_data(assignment)
    assert [e["label"] for e in data["evaluators"]] == ["Evaluator A", "Evaluator B"]
    assert [(i["span_text"], i["locations"]) for i in data["items"]][1:3] == [
        ("18°C", [[0, 38, 42]]),
        ("東京", [[0, 47, 49]]),
    ]
    page = json.dumps(data, ensure_ascii=False)
    assert "claude-judge" not in page and "llm-eval-1" not in page


def test_a_reviewer_answers_an_imported_item_through_the_task_api(client):
    run(str(LLM), "--format", "factgenie", "--slug", "answered", "--into", "review")
    study = Study.objects.get(slug="answered")
    document = study.documents.get(external_id="openweather/test/gpt-4o/1")
    assignment = Assignment.objects.create(
        study=study, document=document, worker=Worker.objects.create(platform="link", external_id="reviewer")
    )
    for item in ReviewItem.objects.filter(document=document):
        response = client.post(
            reverse("task-api-answers", args=[assignment.token]),
            json.dumps({"item": item.pk, "answers": {"span": "Error", "explanation": "Correct"}}),
            content_type="application/json",
        )
        assert response.status_code == 200
    submitted = client.post(reverse("task-api-submit", args=[assignment.token]), "{}", "application/json")
    assert submitted.status_code == 200


def test_a_crowd_campaign_into_review_is_one_problem_and_writes_nothing():
    message, lines = refused(str(CROWD), "--format", "factgenie", "--slug", "crowd", "--into", "review")

    assert message == "1 problem(s); nothing was imported"
    assert lines == [
        "human-1:0: no evaluator's (model) annotations to review; human annotations are imported with --into span"
    ]
    assert not Study.objects.exists()


def test_people_beside_an_evaluator_are_noted_and_not_imported():
    out, _ = run(str(FILES / "label-studio-export.json"), "--format", "label-studio", "--slug", "mixed",
                 "--into", "review")  # fmt: skip

    study = Study.objects.get(slug="mixed")
    assert {(i[1], i[2]) for i in items(study)} == {("ner-v2", "Evaluator A")}
    assert not study.assignments.exists()
    assert "not imported: a review study reviews the evaluators' annotations" in out
    assert "note: label-studio-export.json: 4 annotations of 2 people not imported" in out


def test_an_evaluators_two_annotations_of_one_document_are_both_reviewed(tmp_path):
    tasks = json.loads((FILES / "label-studio-export.json").read_text(encoding="utf-8"))
    tasks[0]["predictions"].append(tasks[0]["predictions"][0])
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(tasks, indent=2), encoding="utf-8")
    out, _ = run(str(path), "--format", "label-studio", "--slug", "twice", "--into", "review")
    study = Study.objects.get(slug="twice")
    assert [(i[0], i[1], i[3]) for i in items(study)] == [("101", "ner-v2", "Rosalie")] * 2
    assert (
        "note: twice.json: evaluator 'ner-v2' annotated task 101 more than once: the regions of each are "
        "review items (2 annotations)"
    ) in out


def test_a_span_across_segments_is_a_problem_naming_the_record_and_nothing_is_written(tmp_path):
    campaign = edited(tmp_path, lambda records: records[1]["annotations"].append(
        {"reason": "Both.", "text": "Grad. ☀️", "type": 3, "start": 40}
    ))  # fmt: skip

    _, lines = refused(str(campaign), "--format", "factgenie", "--slug", "across", "--into", "review",
                       "--sentences-per-segment", "1")  # fmt: skip

    assert lines == [
        "campaign:2: output 'openweather/test/gpt-4o/1', annotator 'llm-eval-1', annotation 3: "
        "Other [40, 48) crosses the border between segments 0 and 1"
    ]
    assert not Study.objects.exists()


def test_a_problem_the_review_bundle_finds_in_an_item_names_the_files_record(tmp_path):
    campaign = edited(tmp_path, lambda records: records[1]["metadata"].update(annotator_id=" "))
    _, lines = refused(str(campaign), "--format", "factgenie", "--slug", "blank", "--into", "review")
    assert lines == [
        "campaign:2: output 'openweather/test/gpt-4o/1', annotator ' ', annotation 1: 'evaluator' is required",
        "campaign:2: output 'openweather/test/gpt-4o/1', annotator ' ', annotation 2: 'evaluator' is required",
    ]
    assert not Study.objects.exists()


def test_a_review_study_yaml_gives_the_questions_and_a_span_one_is_refused(tmp_path):
    questions = [{"key": "ok", "label": "Real error?", "kind": "single", "options": ["Yes", "No"]}]
    review = tmp_path / "review.yaml"
    settings = {"title": "Weather judges", "protocol": "review", "config": {"questions": questions},
                "taxonomy": {"slug": "weather", "name": "Weather", "categories": [{"key": "E", "label": "E"}]}}  # fmt: skip
    review.write_text(yaml.safe_dump(settings))
    out, _ = run(str(LLM), "--format=factgenie", "--slug=asked", "--into=review", "--taxonomy", str(review))
    study = Study.objects.get(slug="asked")
    assert study.title == "Weather judges" and study.config["questions"][0]["options"] == ["Yes", "No"]
    assert study.taxonomy is None
    assert "note: review.yaml: the taxonomy is not used" in out

    message, lines = refused(str(LLM), "--format", "factgenie", "--slug", "spans", "--into", "review",
                             "--taxonomy", str(FILES / "study.yaml"))  # fmt: skip
    assert lines == [
        "study.yaml:1: protocol is 'span'; --into review takes a study.yaml with protocol: review "
        "(its questions in config)"
    ]
    assert not Study.objects.filter(slug="spans").exists()


def test_a_problem_the_review_bundle_finds_is_named_by_the_file(tmp_path):
    review = tmp_path / "review.yaml"
    review.write_text(yaml.safe_dump({"title": "T", "protocol": "review", "config": {"questions": "many"}}))
    message, lines = refused(str(LLM), "--format", "factgenie", "--slug", "broken", "--into", "review",
                             "--taxonomy", str(review))  # fmt: skip
    assert lines and all(line.startswith("review.yaml:") for line in lines)
    assert not Study.objects.exists()


def test_export_of_a_review_study_is_refused_clearly(tmp_path):
    run(str(LLM), "--format", "factgenie", "--slug", "reviewed", "--into", "review")
    with pytest.raises(CommandError, match="is a review study; only span studies can be exported as spans"):
        call_command("export_annotations", "reviewed", str(tmp_path / "out.jsonl"), "--format", "factgenie")


def test_a_researcher_uploads_an_llm_campaign_file_into_a_review_study(client, researcher):
    (records,) = (LLM / "files").glob("*.jsonl")
    client.force_login(researcher)
    response = client.post(
        reverse("admin:studies_study_import_annotations"),
        {"file": SimpleUploadedFile("llm.jsonl", records.read_bytes()), "format": "factgenie",
         "slug": "uploaded-review", "into": "review"},
    )  # fmt: skip

    assert response.status_code == 302
    study = Study.objects.get(slug="uploaded-review")
    assert study.protocol == "review"
    assert study.memberships.get(user=researcher).role == StudyMembership.Role.RESEARCHER
    assert [i[3] for i in items(study)] == ["18°C", "東京", "rain 🌧️", "Zu\u0308rich", "30 Grad"]


def test_the_upload_form_offers_both_kinds_and_lists_a_crowd_files_problem(client, researcher):
    client.force_login(researcher)
    form = client.get(reverse("admin:studies_study_import_annotations")).content.decode()
    assert "span study" in form and "review study of the evaluators&#x27; annotations" in form
    (records,) = (CROWD / "files").glob("0-*.jsonl")
    page = client.post(
        reverse("admin:studies_study_import_annotations"),
        {"file": SimpleUploadedFile("crowd.jsonl", records.read_bytes()), "format": "factgenie",
         "slug": "crowd", "into": "review"},
    ).content.decode()  # fmt: skip
    assert "1 problem found. Nothing was imported." in page
    assert "no evaluator&#x27;s (model) annotations to review" in page
    assert not Study.objects.exists()
