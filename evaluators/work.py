"""The work of one run: its documents still to do, asking the endpoint or the detector, and
storing each document's result and spans (model annotations) as soon as it is done."""

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from decimal import Decimal

from django.db import transaction
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


class RunWork:
    """The documents of one run still to do, and how each result is stored."""

    def __init__(self, run):
        self.run = run
        self.evaluator = run.evaluator
        self.study = run.evaluator.study
        self.categories = list(self.study.taxonomy.categories.order_by("order", "key"))
        self.category_kinds = {c.key: c.kind for c in self.categories}
        done = set(EvaluatorResult.objects.filter(run=run).values_list("document_id", flat=True))
        self.documents = [d for d in documents_to_run(self.evaluator, run.documents) if d.pk not in done]
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


def category_kinds(study):
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
