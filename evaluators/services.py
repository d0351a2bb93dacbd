"""Writes of the evaluators: request a run, run it (the Celery job's body), cancel it,
recover it, import predictions, and store each document's output as model annotations."""

import logging
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from falte_site.celery import send_after_commit
from protocols.span.models import ErrorAnnotation
from studies.models import Document, Segment

from . import answers, detectors, llm, prompts
from .models import CachedResponse, Evaluator, EvaluatorResult, EvaluatorRun

log = logging.getLogger(__name__)
RUN_TASK = "evaluators.tasks.evaluator_run_task"
THOUSAND = Decimal(1000)


class RunNotSent(Exception):
    """The broker did not take the run's job (HTTP 503 in the API, an error message in admin)."""

    def __init__(self):
        super().__init__(
            "The run could not be queued: the job queue (Celery broker) is not reachable. "
            "No run was added; try again in a few minutes."
        )


class RunRefused(ValueError):
    """The evaluator cannot run as asked; the message says why (HTTP 400, a CommandError, an admin message)."""


# --- Asking for a run ---


def _documents_to_run(evaluator, external_ids):
    """The documents a run covers: the named ones (all must exist), else every main document."""
    documents = evaluator.study.documents.all()
    if not external_ids:
        return list(documents.filter(kind=Document.Kind.MAIN).order_by("position", "id"))
    found = {d.external_id: d for d in documents.filter(external_id__in=external_ids)}
    unknown = [name for name in external_ids if name not in found]
    if unknown:
        raise RunRefused(
            f"unknown document(s) of study {evaluator.study.slug}: {', '.join(map(str, unknown[:10]))}"
        )
    return [found[name] for name in dict.fromkeys(external_ids)]


def evaluator_check(evaluator):
    """Why `evaluator` cannot run, or None: the study, its kind's settings, the prompt, the detector."""
    study = evaluator.study
    if study.protocol != "span" or not study.taxonomy_id:
        return "evaluators run on span studies with a taxonomy"
    if evaluator.kind == Evaluator.Kind.IMPORT:
        return "an imported evaluator has no run: load its predictions (run_evaluator --predictions FILE)"
    if evaluator.kind == Evaluator.Kind.LLM:
        if not evaluator.base_url or not evaluator.model:
            return "an LLM evaluator needs base_url and model"
        return prompts.check_template(evaluator.prompt_template)
    try:
        detectors.make_detector(evaluator.detector, evaluator.options, _category_kinds(study))
    except detectors.DetectorOptionError as error:
        return str(error)
    return None


@transaction.atomic
def evaluator_run_request(*, evaluator, documents=None, user=None):
    """Queue a run of `evaluator` over `documents` (external ids; None: every main document).

    While a run of the evaluator is queued or running, that one is returned.
    Returns (run, created). RunRefused when it cannot run; RunNotSent, after the
    commit, when the broker does not take the job (the new run is then deleted).
    """
    problem = evaluator_check(evaluator)
    if problem:
        raise RunRefused(problem)
    chosen = _documents_to_run(evaluator, documents)
    active = EvaluatorRun.objects.active().filter(evaluator=evaluator).first()
    if active is not None:
        return active, False
    try:
        with transaction.atomic():
            run = EvaluatorRun.objects.create(
                evaluator=evaluator, documents=list(documents) if documents else None, total=len(chosen),
                sent_at=timezone.now(), requested_by=user if user is not None and user.is_authenticated else None,
            )  # fmt: skip
    except IntegrityError:  # another request created it a moment ago
        return EvaluatorRun.objects.active().get(evaluator=evaluator), False
    _send_after_commit(run.pk, undo=lambda: EvaluatorRun.objects.filter(pk=run.pk, status="queued").delete())
    return run, True


def _send_after_commit(run_id, *, undo=None):
    send_after_commit(RUN_TASK, run_id, refused=RunNotSent, undo=undo)


def evaluator_run_cancel(*, run):
    """Stop a run: a queued one at once; a running one after the calls in flight (they are kept)."""
    EvaluatorRun.objects.filter(pk=run.pk, status=EvaluatorRun.Status.QUEUED).update(
        status=EvaluatorRun.Status.CANCELLED, cancel_requested=True, finished_at=timezone.now()
    )
    EvaluatorRun.objects.filter(pk=run.pk, status=EvaluatorRun.Status.RUNNING).update(cancel_requested=True)
    run.refresh_from_db()
    return run


def _stale_cutoff(now):
    return now - timedelta(seconds=settings.EVALUATOR_STALE_SECONDS)


def evaluator_runs_requeue_stale(*, now=None):
    """Send again the jobs of active runs nobody is working on (a killed worker, a lost message).

    The run resumes: documents with a result are not asked again.
    """
    now = now or timezone.now()
    cutoff = _stale_cutoff(now)
    queued_long_ago = Q(sent_at__lt=cutoff) | Q(sent_at__isnull=True, created_at__lt=cutoff)
    stale_q = Q(status=EvaluatorRun.Status.RUNNING, heartbeat_at__lt=cutoff) | (
        Q(status=EvaluatorRun.Status.QUEUED) & queued_long_ago
    )
    requeued = []
    with transaction.atomic():
        for run in EvaluatorRun.objects.select_for_update(skip_locked=True).filter(stale_q):
            run.status, run.sent_at = EvaluatorRun.Status.QUEUED, now
            run.save(update_fields=["status", "sent_at"])
            _send_after_commit(run.pk)
            requeued.append(run.pk)
    return requeued


# --- Running ---


def evaluator_run_execute(*, run_id):
    """Run an evaluator over its documents (the Celery job's body). Safe to run again:
    a redelivered job of a finished run does nothing, a resumed one skips finished documents."""
    with transaction.atomic():
        run = EvaluatorRun.objects.select_for_update().select_related("evaluator__study").get(pk=run_id)
        now = timezone.now()
        if run.status in (
            EvaluatorRun.Status.DONE,
            EvaluatorRun.Status.FAILED,
            EvaluatorRun.Status.CANCELLED,
        ):
            return run
        if (
            run.status == EvaluatorRun.Status.RUNNING
            and run.heartbeat_at
            and run.heartbeat_at > _stale_cutoff(now)
        ):
            return run  # a live worker is on it
        run.status = EvaluatorRun.Status.RUNNING
        run.started_at = run.started_at or now
        run.heartbeat_at = now
        run.attempts += 1
        run.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    try:
        problem = evaluator_check(run.evaluator)
        if problem:
            raise RunRefused(problem)
        work = RunWork(run)
        if run.evaluator.kind == Evaluator.Kind.LLM:
            work.ask_endpoint()
        else:
            work.detect()
    except Exception as error:  # recorded on the run for the researcher, never a silent stop
        log.exception("evaluator run %s failed", run_id)
        EvaluatorRun.objects.filter(pk=run_id).update(
            status=EvaluatorRun.Status.FAILED,
            error=f"{type(error).__name__}: {error}",
            finished_at=timezone.now(),
        )
    else:
        cancelled = EvaluatorRun.objects.filter(pk=run_id, cancel_requested=True).exists()
        EvaluatorRun.objects.filter(pk=run_id).update(
            status=EvaluatorRun.Status.CANCELLED if cancelled else EvaluatorRun.Status.DONE,
            finished_at=timezone.now(), error="",
        )  # fmt: skip
    run.refresh_from_db()
    return run


class RunWork:
    """The documents of one run still to do, and how each result is stored."""

    def __init__(self, run):
        self.run = run
        self.evaluator = run.evaluator
        self.study = run.evaluator.study
        self.categories = list(self.study.taxonomy.categories.order_by("order", "key"))
        self.category_kinds = {c.key: c.kind for c in self.categories}
        done = set(EvaluatorResult.objects.filter(run=run).values_list("document_id", flat=True))
        self.documents = [d for d in _documents_to_run(self.evaluator, run.documents) if d.pk not in done]
        self.segments = _segment_texts([d.pk for d in self.documents])

    def cancelled(self):
        return EvaluatorRun.objects.filter(pk=self.run.pk, cancel_requested=True).exists()

    def detect(self):
        detector = detectors.make_detector(
            self.evaluator.detector, self.evaluator.options, self.category_kinds
        )
        for document in self.documents:
            if self.cancelled():
                return
            items = detector.detect(self.segments[document.pk])
            self.store(document, EvaluatorResult.Status.OK, items=items)

    def ask_endpoint(self):
        """Every document's prompt to the endpoint, `concurrency` calls in flight, answers from the cache first.

        Calls run in threads; every database write stays in this thread.
        """
        client = llm.make_client(self.evaluator, connections=self.evaluator.concurrency)
        keys = [c.key for c in self.categories]
        waiting = iter(self.documents)
        in_flight = {}
        with ThreadPoolExecutor(max_workers=self.evaluator.concurrency) as pool:

            def send_next():
                for document in waiting:
                    context = prompts.prompt_context(
                        study=self.study, categories=self.categories, document=document,
                        segments=self.segments[document.pk],
                    )  # fmt: skip
                    body = llm.request_body(
                        self.evaluator, prompts.render_messages(self.evaluator.prompt_template, context), keys
                    )
                    key = llm.cache_key(self.evaluator.base_url, body)
                    hit = CachedResponse.objects.filter(key=key).first()
                    if hit is not None:
                        self.store_exchange(document, _from_cache(hit, body), key)
                        continue
                    in_flight[pool.submit(llm.ask, client, body)] = (document, key)
                    return

            for _ in range(self.evaluator.concurrency):
                send_next()
            while in_flight:
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                stop = self.cancelled()
                for future in finished:
                    document, key = in_flight.pop(future)
                    self.store_exchange(document, future.result(), key)
                    if not stop:
                        send_next()
        client.close()

    def store_exchange(self, document, exchange, key):
        """Read one exchange into a result: failed, refused, malformed or answered."""
        if not exchange.cached and not exchange.error:
            CachedResponse.objects.get_or_create(
                key=key,
                defaults={
                    "content": exchange.content or "", "refusal": exchange.refusal or "",
                    "prompt_tokens": exchange.prompt_tokens, "completion_tokens": exchange.completion_tokens,
                },
            )  # fmt: skip
        items, problem = [], ""
        if exchange.error:
            status, problem = EvaluatorResult.Status.FAILED, exchange.error
        elif exchange.refusal:
            status, problem = EvaluatorResult.Status.REFUSED, exchange.refusal
        else:
            try:
                items = answers.answer_items(exchange.content)
                status = EvaluatorResult.Status.OK
            except answers.MalformedAnswer as error:
                status, problem = EvaluatorResult.Status.MALFORMED, str(error)
        self.store(document, status, items=items, problem=problem, exchange=exchange)

    @transaction.atomic
    def store(self, document, status, *, items=(), problem="", exchange=None):
        """One document's result and its spans as annotations of the evaluator, in one transaction."""
        placed = answers.placed_items(
            list(items), self.segments[document.pk], self.category_kinds,
            every=self.evaluator.occurrences == Evaluator.Occurrences.ALL,
        )  # fmt: skip
        fields = {"status": status, "items": placed, "problem": problem}
        increments = {"finished": F("finished") + 1}
        if exchange is not None:
            cost = (
                Decimal(exchange.prompt_tokens) * self.evaluator.price_input_per_1k
                + Decimal(exchange.completion_tokens) * self.evaluator.price_output_per_1k
            ) / THOUSAND
            fields.update(
                request=exchange.request, response=exchange.content or exchange.refusal or "", cached=exchange.cached,
                prompt_tokens=exchange.prompt_tokens, completion_tokens=exchange.completion_tokens,
                latency_ms=exchange.latency_ms, cost=cost,
            )  # fmt: skip
            if not exchange.cached:
                increments.update(
                    calls=F("calls") + exchange.calls, cost=F("cost") + cost,
                    prompt_tokens=F("prompt_tokens") + exchange.prompt_tokens,
                    completion_tokens=F("completion_tokens") + exchange.completion_tokens,
                )  # fmt: skip
            else:
                increments["cached"] = F("cached") + 1
        _, created = EvaluatorResult.objects.get_or_create(run=self.run, document=document, defaults=fields)
        if not created:
            return  # stored by an earlier attempt of this run
        model_annotations_write(evaluator=self.evaluator, document=document, items=placed, tag=self.run.pk)
        EvaluatorRun.objects.filter(pk=self.run.pk).update(heartbeat_at=timezone.now(), **increments)


def _from_cache(hit, body):
    return llm.Exchange(
        request=body, content=hit.content or None, refusal=hit.refusal or None, cached=True,
        prompt_tokens=hit.prompt_tokens, completion_tokens=hit.completion_tokens, latency_ms=0,
    )  # fmt: skip


def _segment_texts(document_ids):
    texts = {pk: [] for pk in document_ids}
    rows = Segment.objects.filter(document_id__in=document_ids).order_by("document_id", "index")
    for document_id, text in rows.values_list("document_id", "text").iterator(chunk_size=20_000):
        texts[document_id].append(text)
    return texts


def _category_kinds(study):
    return dict(study.taxonomy.categories.values_list("key", "kind")) if study.taxonomy_id else {}


# --- Output as annotations of a model annotator ---


def model_worker(evaluator):
    worker, _ = Worker.objects.get_or_create(platform=Worker.Platform.MODEL, external_id=evaluator.key)
    return worker


def model_annotations_write(*, evaluator, document, items, tag):
    """The evaluator's annotation of `document`: one submitted model assignment holding every found span.

    A later run replaces the spans of an earlier one. A paired category's span
    whose earlier span was not found is stored without it.
    """
    now = timezone.now()
    assignment, _ = Assignment.objects.get_or_create(
        study_id=evaluator.study_id, document=document, worker=model_worker(evaluator), kind=Assignment.Kind.MODEL,
        defaults={"status": Assignment.Status.SUBMITTED, "submitted_at": now, "started_at": now},
    )  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=now)
    ErrorAnnotation.objects.filter(assignment=assignment).delete()
    categories = {c.key: c for c in evaluator.study.taxonomy.categories.all()}
    segments = {s.index: s for s in document.segments.all()}
    rows = []
    for number, item in enumerate(items):
        if item.get("status") != answers.FOUND:
            continue
        for place, (segment, start, end) in enumerate(item["locations"]):
            text = segments[segment].text
            row = ErrorAnnotation(
                assignment=assignment, segment=segments[segment], category=categories[item["category"]],
                start=start, end=end, text=text[start:end], comment=item.get("explanation") or "",
                client_id=f"{tag}-{number}-{place}",
            )  # fmt: skip
            if item.get("earlier"):
                earlier_segment, earlier_start, earlier_end = item["earlier"]
                row.paired_segment = segments[earlier_segment]
                row.paired_start, row.paired_end = earlier_start, earlier_end
                row.paired_text = segments[earlier_segment].text[earlier_start:earlier_end]
            rows.append(row)
    ErrorAnnotation.objects.bulk_create(rows)
    return assignment
