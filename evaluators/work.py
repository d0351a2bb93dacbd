"""The work of one run: its documents still to do, asking the endpoint or the detector, and
storing each document's result and spans (model annotations) as soon as it is done."""

import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from studies.models import Document, Segment

from . import answers, detectors, llm, prompts
from .models import CachedResponse, Evaluator, EvaluatorResult, EvaluatorRun

THOUSAND = Decimal(1000)


class UnknownDocuments(ValueError):
    """A run names documents its study does not have."""


def documents_to_run(evaluator, external_ids):
    """The documents a run covers: the named ones (all must exist), else every main document."""
    documents = evaluator.study.documents.all()
    if not external_ids:
        return list(documents.filter(kind=Document.Kind.MAIN).order_by("position", "id"))
    found = {d.external_id: d for d in documents.filter(external_id__in=external_ids)}
    unknown = [name for name in external_ids if name not in found]
    if unknown:
        raise UnknownDocuments(
            f"unknown document(s) of study {evaluator.study.slug}: {', '.join(map(str, unknown[:10]))}"
        )
    return [found[name] for name in dict.fromkeys(external_ids)]


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
    worker and its assignments) is read once per run: a run of 1,000
    documents spends its time on the endpoint, not on lookups.
    """

    def __init__(self, run):
        self.run = run
        self.evaluator = run.evaluator
        self.study = run.evaluator.study
        self.categories = list(self.study.taxonomy.categories.order_by("order", "key"))
        self.category_kinds = {c.key: c.kind for c in self.categories}
        done = set(EvaluatorResult.objects.filter(run=run).values_list("document_id", flat=True))
        self.documents = [d for d in documents_to_run(self.evaluator, run.documents) if d.pk not in done]
        self.segments, self.segment_ids = _segments([d.pk for d in self.documents])
        self.annotations = ModelAnnotations(self.evaluator, self.categories, [d.pk for d in self.documents])
        self._checked_at, self._cancelled = 0.0, False

    def cancelled(self):
        """Whether the run was cancelled (asked of the database at most every CANCEL_CHECK_SECONDS)."""
        now = time.monotonic()
        if not self._cancelled and now - self._checked_at >= CANCEL_CHECK_SECONDS:
            self._checked_at = now
            self._cancelled = EvaluatorRun.objects.filter(pk=self.run.pk, cancel_requested=True).exists()
        return self._cancelled

    def detect(self):
        detector = detectors.make_detector(
            self.evaluator.detector, self.evaluator.options, self.category_kinds
        )
        for document in self.documents:
            if self.cancelled():
                return
            items = detector.detect(self.segments[document.pk])
            self.store(document, EvaluatorResult.Status.OK, items=items)

    def prepared(self):
        """A Prepared of every document, in order: its request and cache key, or why its prompt
        could not be made."""
        keys = [c.key for c in self.categories]
        for first in range(0, len(self.documents), PREPARE_BATCH):
            batch = []
            for document in self.documents[first : first + PREPARE_BATCH]:
                context = prompts.prompt_context(
                    study=self.study, categories=self.categories, document=document,
                    segments=self.segments[document.pk],
                )  # fmt: skip
                try:
                    messages = prompts.render_messages(self.evaluator.prompt_template, context)
                except prompts.PromptError as error:
                    batch.append(Prepared(document, problem=f"prompt: {error}"))
                    continue
                body = llm.request_body(self.evaluator, messages, keys)
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
        self.store(document, status, items=items, problem=problem, exchange=exchange, key=key)

    def store(self, document, status, *, items=(), problem="", exchange=None, key=None):
        """One document's result, its spans as annotations of the evaluator and (a new answer) the
        cache entry, in one transaction; nothing when an earlier attempt of the run stored it."""
        placed = answers.placed_items(
            list(items), self.segments[document.pk], self.category_kinds,
            every=self.evaluator.occurrences == Evaluator.Occurrences.ALL,
        )  # fmt: skip
        fields = {
            "status": status, "items": placed, "problem": problem, "listed": len(placed),
            "placed": sum(1 for item in placed if item.get("status") == answers.FOUND),
        }  # fmt: skip
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
                self.annotations.write(
                    document.pk,
                    placed,
                    self.segments[document.pk],
                    self.segment_ids[document.pk],
                    tag=self.run.pk,
                )
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


def _segments(document_ids):
    """{document id: [segment texts]} and {document id: [segment ids]}, in segment order."""
    texts = {pk: [] for pk in document_ids}
    ids = {pk: [] for pk in document_ids}
    rows = Segment.objects.filter(document_id__in=document_ids).order_by("document_id", "index")
    for pk, document_id, text in rows.values_list("id", "document_id", "text").iterator(chunk_size=20_000):
        texts[document_id].append(text)
        ids[document_id].append(pk)
    return texts, ids


def category_kinds(study):
    return dict(study.taxonomy.categories.values_list("key", "kind")) if study.taxonomy_id else {}


# --- Output as annotations of a model annotator ---


def model_worker(evaluator):
    worker, _ = Worker.objects.get_or_create(platform=Worker.Platform.MODEL, external_id=evaluator.key)
    return worker


class ModelAnnotations:
    """The evaluator's annotation of each document: one submitted model assignment holding every found span.

    A later run replaces the spans of an earlier one. A paired category's span
    whose earlier span was not found is stored without it.
    """

    def __init__(self, evaluator, categories, document_ids):
        self.evaluator = evaluator
        self.worker = model_worker(evaluator)
        self.category_ids = {category.key: category.pk for category in categories}
        mine = Assignment.objects.filter(
            study_id=evaluator.study_id,
            worker=self.worker,
            kind=Assignment.Kind.MODEL,
            document_id__in=document_ids,
        )
        self.assignments = dict(mine.values_list("document_id", "id"))

    def write(self, document_id, items, texts, segment_ids, *, tag):
        now = timezone.now()
        assignment_id = self.assignments.get(document_id)
        if assignment_id is None:
            assignment_id = Assignment.objects.create(
                study_id=self.evaluator.study_id, document_id=document_id, worker=self.worker,
                kind=Assignment.Kind.MODEL, status=Assignment.Status.SUBMITTED, submitted_at=now, started_at=now,
            ).pk  # fmt: skip
            self.assignments[document_id] = assignment_id
        else:
            Assignment.objects.filter(pk=assignment_id).update(
                status=Assignment.Status.SUBMITTED, submitted_at=now
            )
            ErrorAnnotation.objects.filter(assignment_id=assignment_id).delete()
        rows = []
        for number, item in enumerate(items):
            if item.get("status") != answers.FOUND:
                continue
            for place, (segment, start, end) in enumerate(item["locations"]):
                row = ErrorAnnotation(
                    assignment_id=assignment_id, segment_id=segment_ids[segment],
                    category_id=self.category_ids[item["category"]], start=start, end=end,
                    text=texts[segment][start:end], comment=item.get("explanation") or "",
                    client_id=f"{tag}-{number}-{place}",
                )  # fmt: skip
                if item.get("earlier"):
                    earlier_segment, earlier_start, earlier_end = item["earlier"]
                    row.paired_segment_id = segment_ids[earlier_segment]
                    row.paired_start, row.paired_end = earlier_start, earlier_end
                    row.paired_text = texts[earlier_segment][earlier_start:earlier_end]
                rows.append(row)
        if rows:
            ErrorAnnotation.objects.bulk_create(rows)
