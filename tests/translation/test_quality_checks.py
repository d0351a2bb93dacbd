"""Quality checks of translation studies through the platform: the command makes degraded copies,
the join link hands them out after their originals, a worker who misses the injected error is
flagged, and the report tests each rater (one-sided Mann-Whitney U) and lists who fails."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from scipy import stats

from accounts.models import StudyMembership
from annotations.models import Assignment
from protocols.translation.keys import QUALITY_CHECK as CHECK
from protocols.translation.quality_checks.making import quality_checks_make
from protocols.translation.report import study_report
from protocols.translation.selectors import translation_page_data
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Category, Document, Segment
from tests.annotations.statements import one_transaction, sent
from tests.factories import AssignmentFactory, CategoryFactory, StudyFactory, WorkerFactory

pytestmark = pytest.mark.django_db

TEXTS = {
    "news-1": ["The minister opened the new bridge over the river on Monday morning.",
               "Thousands of people came to watch the ceremony in the rain.",
               "The bridge took four years to build and cost more than planned."],
    "news-2": ["A small bakery in the old town won the national bread prize.",
               "Its owner still gets up at three every morning to bake.",
               "Customers queue around the corner before the shop even opens."],
    "news-3": ["Heavy snow closed the mountain pass for the second time this week.",
               "Drivers were told to take the longer road through the valley.",
               "The weather service expects the snow to stop by Friday evening."],
}  # fmt: skip


def translation_study(protocol="da", config=None, **fields):
    """One system's translation of three source documents, three segments each."""
    study = StudyFactory(protocol=protocol, config=config or {}, **fields)
    if protocol == "mqm":
        CategoryFactory(taxonomy=study.taxonomy, key="Mistranslation", label="Accuracy/Mistranslation")
    for position, (input_id, segments) in enumerate(TEXTS.items()):
        document = Document.objects.create(
            study=study, external_id=f"{input_id}-sysA", input_id=input_id, system="sysA", position=position,
            meta={"sources": [f"Quelle {i}." for i in range(3)], "source_lang": "de", "target_lang": "en"},
        )  # fmt: skip
        for index, text in enumerate(segments):
            Segment.objects.create(document=document, index=index, text=text)
    return study


def checks_of(study):
    return list(study.documents.filter(kind=Document.Kind.ATTENTION).order_by("position"))


# --- making checks -----------------------------------------------------------------------------


def test_a_checks_id_never_takes_one_the_study_has():
    study = translation_study()
    taken = Document.objects.create(study=study, external_id="news-1-sysA#qc", input_id="other", system="sysB",
                                    position=10, kind=Document.Kind.ATTENTION)  # fmt: skip
    Segment.objects.create(document=taken, index=0, text="Some other words entirely here.")
    quality_checks_make(study=study, share=1.0, seed=2)
    made = {d.meta[Document.COPY_OF]: d.external_id for d in checks_of(study) if d.pk != taken.pk}
    assert made == {
        "news-1-sysA": "news-1-sysA#qc2",
        "news-2-sysA": "news-2-sysA#qc",
        "news-3-sysA": "news-3-sysA#qc",
    }


def test_while_checks_are_made_only_the_document_copied_is_held_and_no_donor_text(monkeypatch):
    """A study's documents and segment texts are not all read to make its checks: each check
    reads its original, and the pool of donor phrases holds segment ids, a donor's text being
    read when a check tries it (before, every main document was held with its meta, and every
    segment's text)."""
    from protocols.translation.quality_checks import making
    from tests.bundles import held_while_checking

    study = translation_study()
    held = held_while_checking(monkeypatch, making.__name__, "_degraded_segments", Document)
    pools = []
    pool_of = making._donor_pool
    monkeypatch.setattr(making, "_donor_pool", lambda *args: pools.append(pool_of(*args)) or pools[-1])
    made = quality_checks_make(study=study, share=1.0, seed=2)
    assert len(made.created) == 3 and held == [1, 2, 3]  # the original, and the checks made so far
    (pool,) = pools
    assert len(pool) == 9 and pool.segment_ids.dtype.kind == "i"
    assert not any(isinstance(value, str) for value in vars(pool).values())


def test_the_command_makes_degraded_copies_that_keep_the_originals_identity():
    study = translation_study()
    out, err = io.StringIO(), io.StringIO()
    call_command("make_quality_checks", study.slug, "--share", "0.67", "--seed", "4", stdout=out, stderr=err)
    checks = checks_of(study)
    assert len(checks) == 2  # round(0.67 x 3)
    for check in checks:
        original = study.documents.get(external_id=check.meta["original"])
        assert original.kind == Document.Kind.MAIN
        assert (check.input_id, check.system) == (original.input_id, original.system)
        assert check.meta["sources"] == original.meta["sources"]
        (gold,) = check.meta[CHECK]["segments"]  # one segment by default
        assert gold["severity"] == "Major" and check.meta[CHECK]["mode"] == "replace"
        changed = check.segments.get(index=gold["index"]).text
        before = original.segments.get(index=gold["index"]).text
        assert changed[gold["start"] : gold["end"]] == gold["inserted"]
        assert changed.replace(gold["inserted"], gold["removed"], 1) == before
        # The phrase comes from another source document, and says where from.
        donor = study.documents.get(external_id=gold["donor"]["document"])
        assert donor.input_id != original.input_id
        assert gold["inserted"] in donor.segments.get(index=gold["donor"]["segment"]).text
        untouched = [i for i in range(3) if i != gold["index"]]
        assert [check.segments.get(index=i).text for i in untouched] == [
            original.segments.get(index=i).text for i in untouched
        ]
        assert check.external_id in out.getvalue()
    study.refresh_from_db()
    assert study.config["attention_every"] == 1  # round(1 / 0.67)
    assert "silent" in err.getvalue() and not study.config.get("attention_announced")


def test_the_same_seed_makes_the_same_checks_and_running_again_makes_none():
    first, second = translation_study(), translation_study()

    def made(study):
        quality_checks_make(study=study, share=0.5, seed=11, segments=2, mode="drop")
        return [(c.meta["original"], c.meta[CHECK]["segments"], [s.text for s in c.segments.order_by("index")])
                for c in checks_of(study)]  # fmt: skip

    assert made(first) == made(second)
    again = quality_checks_make(study=first, share=0.5, seed=99)
    assert again.created == [] and again.existing == 2
    assert len(checks_of(first)) == 2
    (gold, *_) = checks_of(first)[0].meta[CHECK]["segments"]
    assert gold["start"] == gold["end"] and gold["inserted"] == "" and gold["removed"]


def test_quality_checks_are_for_translation_studies_and_sensible_options():
    span = StudyFactory(protocol="span")
    with pytest.raises(CommandError, match="translation studies"):
        call_command("make_quality_checks", span.slug)
    with pytest.raises(CommandError, match="share"):
        call_command("make_quality_checks", translation_study().slug, "--share", "0")
    with pytest.raises(CommandError, match="no study"):
        call_command("make_quality_checks", "nope")


def test_announced_checks_are_told_on_the_instructions_and_the_page_never_which_document(client):
    study = translation_study()
    call_command("make_quality_checks", study.slug, "--share", "1", "--announced", stdout=io.StringIO(),
                 stderr=io.StringIO())  # fmt: skip
    study.refresh_from_db()
    check = checks_of(study)[0]
    assignment = AssignmentFactory(study=study, document=check)
    data = translation_page_data(assignment)
    assert data["study"]["quality_checks_announced"] is True
    assert data["document"]["id"] == check.meta["original"]  # not the check's own id
    assert "#qc" not in json.dumps(data)
    page = client.get(reverse("task-instructions", args=[assignment.token])).content.decode()
    assert 'id="quality-checks-notice"' in page
    call_command("make_quality_checks", study.slug, "--silent", stdout=io.StringIO(), stderr=io.StringIO())
    page = client.get(reverse("task-instructions", args=[assignment.token])).content.decode()
    assert 'id="quality-checks-notice"' not in page
    assignment = Assignment.objects.get(pk=assignment.pk)  # the study read again
    assert translation_page_data(assignment)["study"]["quality_checks_announced"] is False


def test_the_config_options_are_checked():
    from studies.config import config_problems

    assert config_problems({"attention_every": 3, "attention_min_caught": 0.5, "attention_announced": True},
                           protocol="esa") == []  # fmt: skip
    problems = config_problems({"attention_min_caught": 2, "attention_announced": "yes"}, protocol="da")
    assert len(problems) == 2
    # A contrastive study hands out blocks, not a stream of documents: no checks there.
    assert config_problems({"attention_every": 3}, protocol="contrastive-da")


# --- through the join link, the task API and the report --------------------------------------


def post(client, name, token, body):
    return client.post(reverse(name, args=[token]), json.dumps(body), content_type="application/json")


def join(client, study, worker_id):
    response = client.get(reverse("join", args=[study.join_key]) + f"?PROLIFIC_PID={worker_id}")
    assert response.status_code == 302, response.content
    return Assignment.objects.get(token=response["Location"].split("/")[2])


def work_through(client, assignment, scores=None, errors=(), submit=True):
    """Score (ESA, DA) and mark errors in each segment, in order, then submit."""
    count = assignment.document.segments.count()
    for index in range(count):
        if index:
            assert (
                post(client, "task-api-translation-move", assignment.token, {"segment": index}).status_code
                == 200
            )
        for n, error in enumerate(e for e in errors if e["segment"] == index):
            body = {"client_id": f"e{index}-{n}", **error}
            assert post(client, "task-api-translation-errors", assignment.token, body).status_code == 201
        if scores is not None:
            body = {"segment": index, "score": scores(index)}
            assert post(client, "task-api-translation-scores", assignment.token, body).status_code == 200
    if not submit:
        return assignment
    response = post(client, "task-api-submit", assignment.token, {})
    assert response.status_code == 200, response.content
    assignment.refresh_from_db()
    return assignment


def injected_spans(check):
    return [
        {"segment": g["index"], "side": "target", "start": g["start"], "end": g["end"], "text": g["inserted"],
         "severity": "Major"}
        for g in check.meta[CHECK]["segments"]
    ]  # fmt: skip


def run_stream(client, study, worker_id, *, main_score, check_score, mark=False, category=None):
    """A worker joins four times: main, its check, main, its check (attention_every 1)."""
    done = []
    for _ in range(4):
        assignment = join(client, study, worker_id)
        is_check = assignment.document.kind == Document.Kind.ATTENTION
        if is_check:
            assert assignment.document.meta["original"] == done[-1].document.external_id  # after its original
        scores = None
        if study.protocol != "mqm":
            value = check_score if is_check else main_score
            scores = lambda index, value=value: value  # noqa: E731
        errors = injected_spans(assignment.document) if is_check and mark else []
        if category:
            errors = [{**e, "category": category} for e in errors]
        done.append(work_through(client, assignment, scores, errors))
    assert [a.document.kind for a in done] == ["main", "attention", "main", "attention"]
    return done


@pytest.mark.parametrize("protocol", ["da", "esa"])
def test_a_worker_who_scores_the_degraded_copy_as_high_is_flagged_and_fails_the_report(client, protocol):
    study = translation_study(protocol, annotators_per_document=2)
    quality_checks_make(study=study, share=1.0, seed=3, segments=3)  # every segment of every copy
    careful = run_stream(client, study, "careful", main_score=80, check_score=20)
    careless = run_stream(client, study, "careless", main_score=80, check_score=80)
    assert [a.flagged for a in careful] == [False, False, False, False]
    assert [a.flagged for a in careless] == [False, True, False, True]
    score = careless[1].score
    assert score["passed"] is False and score["judged"] == 3 and score["caught"] == 0
    assert {s["original_score"] for s in score["segments"]} == {80.0}
    assert careful[1].score["passed"] is True and careful[1].score["caught"] == 3

    report = study_report(study)
    # The copies count in no system's score: every rated segment is a main one, scored 80.
    assert report["segments_rated"] == 12 and report["systems"][0]["score"] == 80.0
    control = report["quality_control"]
    assert control["checks"] == 3 and control["checks_submitted"] == 4
    rows = {row["flagged"]: row for row in control["raters"]}
    passing, failing = rows[0], rows[2]  # by the number of flagged checks
    assert passing["checks"] == failing["checks"] == 2
    # Six degraded segments against their six originals, all lower; the scores tie (20 and 80), so
    # the normal approximation.
    expected = stats.mannwhitneyu([20] * 6, [80] * 6, alternative="less").pvalue
    assert passing["pairs"] == 6 and passing["p"] == pytest.approx(expected) and passing["passed"]
    assert passing["worse_share"] == 1.0
    assert failing["pairs"] == 6 and failing["p"] == 1.0 and not failing["passed"]
    assert failing["worse_share"] == 0.0
    assert control["passed"] == 1
    if protocol == "esa":
        assert passing["detection_rate"] == 0.0  # scored lower without marking: ESA still passes
    else:
        assert passing["detection_rate"] is None


def test_an_mqm_worker_who_marks_the_injected_span_passes_and_one_who_misses_it_is_flagged(client):
    study = translation_study("mqm", annotators_per_document=2)
    quality_checks_make(study=study, share=1.0, seed=5, segments=3)
    careful = run_stream(client, study, "careful", main_score=None, check_score=None, mark=True,
                         category="Mistranslation")  # fmt: skip
    careless = run_stream(client, study, "careless", main_score=None, check_score=None)
    assert not careful[1].flagged and careful[1].score["caught"] == 3
    assert careless[1].flagged and careless[3].flagged
    control = study_report(study)["quality_control"]
    by_flags = {row["flagged"]: row for row in control["raters"]}
    # MQM: lower is better, so the test asks whether the copies score higher. Careful: 5 each, against 0.
    assert (
        by_flags[0]["passed"] and by_flags[0]["detection_rate"] == 1.0 and by_flags[0]["worse_share"] == 1.0
    )
    assert not by_flags[2]["passed"] and by_flags[2]["detection_rate"] == 0.0


def test_a_check_waits_for_its_original_and_is_judged_when_the_original_is_submitted(client):
    study = translation_study("da")
    quality_checks_make(study=study, share=0.34, seed=1)  # one check
    (check,) = checks_of(study)
    original = study.documents.get(external_id=check.meta["original"])
    worker = WorkerFactory()
    # Task links in any order: the check first. Nothing to compare with yet: not flagged.
    first = work_through(client, AssignmentFactory(study=study, document=check, worker=worker), lambda i: 90)
    assert first.flagged is False and first.score["passed"] is None and first.score["judged"] == 0
    work_through(client, AssignmentFactory(study=study, document=original, worker=worker), lambda i: 90)
    first.refresh_from_db()
    assert first.flagged is True and first.score["passed"] is False  # judged again: not scored lower


@pytest.mark.parametrize("protocol", ["mqm", "esa"])
def test_an_original_submitted_after_its_check_judges_the_check_in_the_same_transaction(client, protocol):
    """This submit writes two rows: the original's status and the check's verdict (score, flagged),
    which is computed in Python from both assignments' errors and scores (quality_checks.scoring),
    read after the lock. So it stays above 4 statements (docs/decisions.md): the reads of the
    verdict and its UPDATE come on top of BEGIN, the locking SELECT, the UPDATE and COMMIT, and
    only when the worker submitted a check of this document first (otherwise 4:
    tests/translation/test_save_statements.py)."""
    study = translation_study(protocol)
    quality_checks_make(study=study, share=0.34, seed=1)  # one check
    (copy,) = checks_of(study)
    worker = WorkerFactory()
    scores = None if protocol == "mqm" else (lambda index: 90)
    check = work_through(client, AssignmentFactory(study=study, document=copy, worker=worker), scores)
    original = study.documents.get(external_id=copy.meta["original"])
    assignment = work_through(
        client, AssignmentFactory(study=study, document=original, worker=worker), scores, submit=False
    )
    response, statements = sent(client, "post", "task-api-submit", assignment)
    assert response.status_code == 200 and one_transaction(statements)
    updates = [statement for statement in statements if statement.startswith("UPDATE")]
    assert len(updates) == 2 and not [s for s in statements if s.startswith(("INSERT", "DELETE"))]
    assert len(statements) <= 14, "\n".join(statements)  # 12 (ESA) and 14 (MQM) on 2026-11-28
    check.refresh_from_db()
    assert check.flagged is True and check.score["judged"] == 1


def test_the_join_link_hands_a_check_only_to_who_did_its_original(client):
    study = translation_study("da", config={"attention_every": 1})
    quality_checks_make(study=study, share=1.0, seed=1)
    # No check of the first document a worker gets: after it a check is due, but none is theirs.
    study.documents.filter(meta__original="news-1-sysA").delete()
    order = []
    for _ in range(3):
        assignment = join(client, study, "w1")
        order.append(assignment.document.external_id)
        work_through(client, assignment, lambda i: 50)
    assert order == ["news-1-sysA", "news-2-sysA", "news-2-sysA#qc"]


def test_the_report_page_lists_each_rater_with_p_and_pass_or_fail(client, researcher):
    study = translation_study("da", annotators_per_document=2)
    StudyMembership.objects.create(study=study, user=researcher, role=StudyMembership.Role.RESEARCHER)
    quality_checks_make(study=study, share=1.0, seed=3, segments=3)
    run_stream(client, study, "careful", main_score=80, check_score=20)
    run_stream(client, study, "careless", main_score=80, check_score=80)
    result = study_report_data(study)
    report = Report.objects.create(study=study, status="done", result=result, progress=1)
    client.force_login(researcher)
    html = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert 'id="quality-control-table"' in html
    for row in result["quality_control"]["raters"]:
        assert row["rater"] in html
    assert html.count(">pass<") == 1 and html.count(">fail<") == 1
    assert "one-sided Mann-Whitney U" in html


def test_a_qualification_or_plain_document_has_no_gold_here():
    study = translation_study("esa")
    document = study.documents.first()
    assignment = AssignmentFactory(study=study, document=document, status=Assignment.Status.SUBMITTED)
    from studies import protocols

    assert protocols.of(study).score_against_gold([assignment]) is None
    assert Category.objects.count() >= 0  # the ESA study needs no taxonomy
