"""Evaluator runs on a real `celery -A falte_site worker` against Redis and PostgreSQL (CI's PostgreSQL run):
the worker calls the local OpenAI-compatible server; killed mid-run, the run resumes on the next worker
without asking again for the documents it had finished."""

import signal
import threading

import pytest
from django.urls import reverse

from evaluators.fake_llm import EMPTY_ANSWER, FakeChatServer
from evaluators.models import Evaluator, EvaluatorRun
from tests.factories import make_span_study
from tests.reports.test_worker import broker_queue, start_worker, stop, wait_for  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

ANSWERED_BEFORE_THE_KILL = 4
# Seconds that only bound a hang (a worker that never gets there); never a speed.
HANG = 90


def run_of(evaluator):
    return EvaluatorRun.objects.filter(evaluator=evaluator).first()


def test_a_killed_worker_s_run_resumes_without_calling_again_for_finished_documents(
    client,
    researcher,
    broker_queue,  # noqa: F811
    settings,
):
    # The workers and this process (the run page) agree on when a silent run is stale.
    settings.EVALUATOR_STALE_SECONDS = 3
    study = make_span_study(documents=12, segments=1, researcher=researcher)
    client.force_login(researcher)
    # The server answers the first four calls and holds the later ones until the first worker is
    # dead, so it is killed with exactly four documents stored and two calls in flight.
    lock, released = threading.Lock(), threading.Event()
    received, held = [0], [0]

    def responder(body):
        with lock:
            received[0] += 1
            hold = received[0] > ANSWERED_BEFORE_THE_KILL and not released.is_set()
            held[0] += hold
        if hold:
            released.wait(timeout=HANG)
        return EMPTY_ANSWER

    with FakeChatServer(responder=responder) as server:
        evaluator = Evaluator.objects.create(
            study=study, key="slow-llm", kind="llm", base_url=server.base_url, model="m", concurrency=2
        )
        # The workers run with the operator's settings: the local model server is allowed there.
        first = start_worker(
            broker_queue, EVALUATOR_STALE_SECONDS="3", OUTBOUND_ALLOWED_HOSTS=f"127.0.0.1:{server.port}"
        )
        try:
            client.post(
                reverse("admin:evaluators_evaluator_changelist"),
                {"action": "run_evaluators", "_selected_action": [evaluator.pk]},
            )
            assert wait_for(
                lambda: (
                    run_of(evaluator) is not None
                    and run_of(evaluator).finished == ANSWERED_BEFORE_THE_KILL
                    and held[0] == 2
                ),
                timeout=HANG,
            )
        finally:
            stop(first, signal.SIGKILL)  # mid-run: four documents stored, two calls in flight
            released.set()
        run = run_of(evaluator)
        assert run.status == "running" and run.finished == ANSWERED_BEFORE_THE_KILL
        calls_before = server.calls
        assert calls_before == ANSWERED_BEFORE_THE_KILL + 2

        second = start_worker(
            broker_queue, EVALUATOR_STALE_SECONDS="3", OUTBOUND_ALLOWED_HOSTS=f"127.0.0.1:{server.port}"
        )
        try:
            # The worker's start and the researcher's open run page send the stale run again.
            def done():
                client.get(reverse("admin:evaluators_evaluatorrun_change", args=[run.pk]))
                return EvaluatorRun.objects.get(pk=run.pk).status == "done"

            assert wait_for(done, timeout=2 * HANG, step=0.5)
        finally:
            stop(second)
    run.refresh_from_db()
    assert run.finished == 12 and run.attempts == 2
    # Only the unfinished documents were asked again (the two in flight at the kill among them).
    assert server.calls - calls_before == 12 - ANSWERED_BEFORE_THE_KILL
