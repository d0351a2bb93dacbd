"""The work of one run: its documents still to do, asking the endpoint or the detector, and
storing each document's result and what it found (the evaluator's assignment) as soon as it is done.

What depends on the study's protocol (the prompt, the answer's shape, where its errors go)
is the run's mode (modes.py)."""

import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from studies.models import Document

from . import answers, llm, prompts
from .documents import documents_to_run
from .models import CachedResponse, EvaluatorResult, EvaluatorRun
from .modes import mode_for

THOUSAND = Decimal(1000)


@dataclass
class Prepared:
    """One document's request (body and cache key, and the cached answer if any), or why none."""

    document: Document
    body: dict | None = None
    key: str | None = None
    problem: str = ""
    hit: CachedResponse | None = None


PREPARE_BATCH = 64  # prompts rendered, and looked up in the response cache, at once
CANCEL_CHECK_SECONDS = 0.5


class RunWork:
    """The documents of one run still to do, and how each result is stored.

    What every document needs (categories, segment texts and ids, the model
    worker and its assignments) is read once per run, by the mode: a run of
    1,000 documents spends its time on the endpoint, not on lookups.
    """

    def __init__(self, run):
        self.run = run
        self.evaluator = run.evaluator
        self.study = run.evaluator.study
        done = set(EvaluatorResult.objects.filter(run=run).values_list("document_id", flat=True))
        self.documents = [d for d in documents_to_run(self.evaluator, run.documents) if d.pk not in done]
        self.mode = mode_for(self.evaluator, self.documents)
        self._checked_at, self._cancelled = 0.0, False

    def cancelled(self):
        """Whether the run was cancelled (asked of the database at most every CANCEL_CHECK_SECONDS)."""
        now = time.monotonic()
        if not self._cancelled and now - self._checked_at >= CANCEL_CHECK_SECONDS:
            self._checked_at = now
            self._cancelled = EvaluatorRun.objects.filter(pk=self.run.pk, cancel_requested=True).exists()
        return self._cancelled

    def detect(self):
        detect = self.mode.detector()
        for document in self.documents:
            if self.cancelled():
                return
            self.store(document, EvaluatorResult.Status.OK, items=detect(document))

    def prepared(self):
        """A Prepared of every document, in order: its request and cache key, or why its prompt
        could not be made."""
        schema = self.mode.schema()
        for first in range(0, len(self.documents), PREPARE_BATCH):
            batch = []
            for document in self.documents[first : first + PREPARE_BATCH]:
                try:
                    messages = self.mode.messages(document)
                except prompts.PromptError as error:
                    batch.append(Prepared(document, problem=f"prompt: {error}"))
                    continue
                body = llm.request_body(self.evaluator, messages, schema, self.mode.schema_name)
                batch.append(
                    Prepared(document, body, llm.cache_key(self.study.pk, self.evaluator.base_url, body))
                )
            asked = [prepared.key for prepared in batch if prepared.key]
            hits = {hit.key: hit for hit in CachedResponse.objects.filter(study=self.study, key__in=asked)}
            for prepared in batch:
                prepared.hit = hits.get(prepared.key)
                yield prepared

    def ask_endpoint(self):
        """Every document's prompt to the endpoint, `concurrency` calls in flight, answers from the cache first.

        Calls run in threads; every database write stays in this thread, and a
        finished call's slot is given to the next document before its answer
        is stored.
        """
        client = llm.make_client(self.evaluator, connections=self.evaluator.concurrency)
        waiting = self.prepared()
        in_flight = {}
        with ThreadPoolExecutor(max_workers=self.evaluator.concurrency) as pool:

            def send_next():
                for prepared in waiting:
                    document, body, key = prepared.document, prepared.body, prepared.key
                    if prepared.problem:  # a failure of this document only, recorded like a failed call
                        self.store(document, EvaluatorResult.Status.FAILED, problem=prepared.problem)
                        continue
                    if prepared.hit is not None:
                        self.store_exchange(document, _from_cache(prepared.hit, body), key)
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
                    if not stop:
                        send_next()
                    self.store_exchange(document, future.result(), key)
        client.close()

    def store_exchange(self, document, exchange, key):
        """Read one exchange into a result: failed, refused, malformed or answered."""
        items, problem = None, ""
        if exchange.error:
            status, problem = EvaluatorResult.Status.FAILED, exchange.error
        elif exchange.refusal:
            status, problem = EvaluatorResult.Status.REFUSED, exchange.refusal
        else:
            try:
                items = self.mode.read(exchange.content)
                status = EvaluatorResult.Status.OK
            except answers.MalformedAnswer as error:
                status, problem = EvaluatorResult.Status.MALFORMED, str(error)
        self.store(document, status, items=items, problem=problem, exchange=exchange, key=key)

    def store(self, document, status, *, items=None, problem="", exchange=None, key=None):
        """One document's result, what it found as the evaluator's assignment and (a new answer)
        the cache entry, in one transaction; nothing when an earlier attempt of the run stored it.
        `items`: what the mode read of the answer (None when there was none)."""
        fields = {"status": status, "problem": problem, **self.mode.place(document, items)}
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
        try:
            with transaction.atomic():
                EvaluatorResult.objects.create(run=self.run, document=document, **fields)
                if exchange is not None and not exchange.cached and not exchange.error:
                    CachedResponse.objects.bulk_create(
                        [_cache_entry(self.study.pk, key, exchange)], ignore_conflicts=True
                    )
                self.mode.write(document, fields, tag=self.run.pk)
                EvaluatorRun.objects.filter(pk=self.run.pk).update(heartbeat_at=timezone.now(), **increments)
        except IntegrityError:
            if not EvaluatorResult.objects.filter(run=self.run, document=document).exists():
                raise
            # stored by an earlier attempt of this run (a redelivered job)


def _cache_entry(study_id, key, exchange):
    return CachedResponse(
        study_id=study_id, key=key, content=exchange.content or "", refusal=exchange.refusal or "",
        prompt_tokens=exchange.prompt_tokens, completion_tokens=exchange.completion_tokens,
    )  # fmt: skip


def _from_cache(hit, body):
    return llm.Exchange(
        request=body, content=hit.content or None, refusal=hit.refusal or None, cached=True,
        prompt_tokens=hit.prompt_tokens, completion_tokens=hit.completion_tokens, latency_ms=0,
    )  # fmt: skip


def category_kinds(study):
    return dict(study.taxonomy.categories.values_list("key", "kind")) if study.taxonomy_id else {}
