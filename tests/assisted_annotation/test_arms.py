"""Arms of a study with assistance: drawn at join, seeded, balanced per document, one per worker."""

from collections import Counter

import pytest

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services.arms import arm_block, arm_quota, block_size
from annotations.services.joining import JoinRefused, assignment_join
from annotations.services.planning import assignments_generate
from annotations.services.task import assignment_submit
from protocols.span.services import assignment_move
from studies.assistance import arm_design, assistance_problems
from studies.models import Document
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def assisted_study(*, documents=6, per_document=4, share=0.5, seed=3, **fields):
    return make_span_study(
        documents=documents, segments=1, annotators_per_document=per_document,
        config={"assistance": {"share": share, "seed": seed}}, **fields,
    )  # fmt: skip


def join_all(study, workers):
    return [assignment_join(study=study, platform="prolific", external_id=w) for w in workers]


def finish(assignment):
    assignment_move(token=assignment.token, segment=0)
    assignment_submit(token=assignment.token)


def test_every_document_gets_its_share_of_each_arm():
    study = assisted_study(documents=6, per_document=4, share=0.5)
    # Most workers do one document; a few come back for more.
    joined = []
    for number in range(60):
        for _ in range(1 + (number % 5 == 0) * 2):
            try:
                assignment = assignment_join(study=study, platform="prolific", external_id=f"w{number}")
            except JoinRefused:
                break
            joined.append(assignment)
            finish(assignment)
    per_document = Counter((a.document_id, a.arm) for a in joined)
    assert len(joined) == 24  # 6 documents x 4 places
    assert sorted(per_document.values()) == [2] * 12
    # One arm per worker over all their documents.
    arms_of = {}
    for assignment in joined:
        arms_of.setdefault(assignment.worker_id, set()).add(assignment.arm)
    assert all(len(arms) == 1 for arms in arms_of.values())


def test_arms_are_drawn_in_seeded_balanced_blocks():
    first = assisted_study(documents=20, per_document=1, seed=11)
    second = assisted_study(documents=20, per_document=1, seed=11)
    other = assisted_study(documents=20, per_document=1, seed=12)
    workers = [f"w{n}" for n in range(20)]
    arms = [[a.arm for a in join_all(study, workers)] for study in (first, second, other)]
    assert arms[0] == arms[1]  # same seed, same arrivals: the same arms
    assert arms[0] != arms[2]
    for pair in range(0, 20, 2):  # 50/50: every block of two arrivals holds one of each
        assert sorted(arms[0][pair : pair + 2]) == ["control", "suggestions"]


def test_uneven_shares_split_blocks_and_documents_in_proportion():
    design = arm_design(assisted_study(share=0.3).__class__(config={"assistance": {"share": 0.3}}))
    assert block_size(design) == 10
    assert Counter(arm_block(design, 0)) == {"suggestions": 3, "control": 7}
    assert arm_quota(design, "suggestions", 5) == 2 and arm_quota(design, "control", 5) == 3
    assert arm_quota(design, "suggestions", 2) == 1 and arm_quota(design, "control", 2) == 1
    assert arm_quota(design, "suggestions", 1) is None  # one annotator: no split per document


def test_a_study_without_assistance_draws_no_arm():
    study = make_span_study(documents=1, segments=1)
    assert join_all(study, ["w1"])[0].arm == ""


def test_qualification_round_draws_no_arm_and_attention_checks_keep_the_arm():
    study = assisted_study(documents=4, per_document=2)
    study.config = {**study.config, "attention_every": 1}
    study.save(update_fields=["config"])
    check = study.documents.first()
    check.kind = Document.Kind.ATTENTION
    check.save(update_fields=["kind"])
    first = assignment_join(study=study, platform="prolific", external_id="w1")
    assert first.document.kind == Document.Kind.MAIN and first.arm
    finish(first)
    second = assignment_join(study=study, platform="prolific", external_id="w1")
    assert second.document.kind == Document.Kind.ATTENTION
    assert second.arm == first.arm


def test_settings_are_checked():
    assert assistance_problems({"share": 0.5, "seed": 1}, ("assistance",)) == []
    messages = [
        p.message for p in assistance_problems({"share": 1, "seed": -1, "shares": 2}, ("assistance",))
    ]
    assert any("unknown option 'shares'" in m for m in messages)
    assert any("strictly between 0 and 1" in m for m in messages)
    assert any("whole number" in m for m in messages)
    assert assistance_problems([], ("assistance",))[0].message.startswith("must be a mapping")


def test_the_last_free_places_go_to_the_arm_they_belong_to():
    study = assisted_study(documents=1, per_document=2)
    a, b = join_all(study, ["w1", "w2"])
    assert {a.arm, b.arm} == {"suggestions", "control"}
    Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.RELEASED)
    # Whatever the sequence draws next, the freed place is in a's arm: a new worker takes it there
    # (a worker already in the other arm cannot).
    with pytest.raises(JoinRefused):
        assignment_join(study=study, platform="prolific", external_id="w2")
    arrival = assignment_join(study=study, platform="prolific", external_id="w3")
    assert arrival.arm == a.arm


def test_assignments_planned_by_hand_get_arms_split_per_document():
    study = assisted_study(documents=4, per_document=2)
    # e1 and e2 hold the suggestion arm already (from an attention check): each document may take one.
    check = study.documents.order_by("position").last()
    check.kind = Document.Kind.ATTENTION
    check.save(update_fields=["kind"])
    for name in ("e1", "e2"):
        worker = Worker.objects.create(platform=Worker.Platform.LINK, external_id=name)
        Assignment.objects.create(study=study, document=check, worker=worker, arm="suggestions")
    plan = assignments_generate(study=study, worker_ids=["e1", "e2", "e3", "e4"])
    assert len(plan.created) == 6 and not plan.short
    per_document = Counter((a.document_id, a.arm) for a in plan.created)
    assert sorted(per_document.values()) == [1] * 6
    arms_of = {}
    for assignment in plan.created:
        arms_of.setdefault(assignment.worker_id, set()).add(assignment.arm)
    assert all(len(arms) == 1 for arms in arms_of.values())
    # Planning again fills nothing twice and keeps each worker's arm.
    assert not assignments_generate(study=study, worker_ids=["e1", "e2", "e3", "e4"]).created


def test_the_attention_document_of_a_suggestion_worker_shows_none():
    study = assisted_study(documents=2, per_document=1)
    check = study.documents.first()
    check.kind = Document.Kind.ATTENTION
    check.save(update_fields=["kind"])
    from protocols.span.assistance.suggestions import shows_suggestions

    assignment = Assignment.objects.create(study=study, document=check, worker=join_all(study, ["w"])[0].worker,
                                           arm="suggestions")  # fmt: skip
    assert not shows_suggestions(assignment)
