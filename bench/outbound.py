"""Benchmark: what the outbound guards cost, each against a reference in the same run.

1. Prompts: the default span prompt of D documents (S segments of ~200
   characters each) rendered with the budgeted context and measured nodes
   (evaluators/prompts.py) against the same template rendered plainly by
   Django's engine. CPU time per prompt (time.process_time) and wall time.
2. Connections: C requests, each on a new connection, to a local HTTP server
   through the checked transport (outbound/transport.py: resolve, check,
   connect to the checked address) against httpx's own transport.
3. The template bombs of the issue: three nested loops over a 100-character
   text (refused when saved: the CPU time to refuse it) and two nested loops
   writing a 100,000-character source per step (stopped while rendering: the
   CPU time until it stops).

    .venv/bin/python bench/outbound.py [--documents 500] [--segments 20] [--connections 300]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.test_settings")

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
from django.template import Context  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from evaluators import prompts  # noqa: E402
from outbound.transport import checked_client  # noqa: E402


class _Row:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def contexts(documents, segments):
    study = _Row(slug="bench", title="Bench study", instructions="Mark every error you find.\n" * 5)
    categories = [
        _Row(key=f"C{n}", label=f"Category {n}", description="What it is. " * 4, kind="singleton", group="g")
        for n in range(7)
    ]
    text = "The lighthouse keeper counted the ships that passed the harbour at night, one by one. " * 2
    for number in range(documents):
        document = _Row(external_id=f"d{number}", system="sysA", source="", meta={})
        yield prompts.prompt_context(study=study, categories=categories, document=document,
                                     segments=[f"{number} {text}"] * segments)  # fmt: skip


def timed(function, repeat):
    """(CPU seconds, wall seconds) of `function()` called `repeat` times."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        function()
    return time.process_time() - cpu, time.perf_counter() - wall


def bench_prompts(documents, segments, rounds=3):
    rendered = list(contexts(documents, segments))
    plain = prompts._engine().from_string(prompts.default_template())

    def budgeted():
        for context in rendered:
            prompts.render_messages("", context)

    def reference():
        for context in rendered:
            plain.render(Context(context, autoescape=False))

    results = {"budgeted": [], "plain": []}
    for _ in range(rounds):  # alternating, so both see the same machine
        results["budgeted"].append(timed(budgeted, 1))
        results["plain"].append(timed(reference, 1))
    size = len(prompts.render_messages("", rendered[0])[1]["content"])
    print(
        f"1. prompts: {documents} documents x {segments} segments ({size:,} characters each), {rounds} rounds"
    )
    for name, runs in results.items():
        cpu = statistics.median(c for c, _ in runs) / documents * 1e6
        wall = statistics.median(w for _, w in runs) / documents * 1e6
        print(f"   {name:<9} CPU {cpu:8.1f} us/prompt   wall {wall:8.1f} us/prompt")


def bench_connections(count, rounds=3):
    # The server in its own process, so this process's CPU time is the client's alone.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "evaluators.fake_llm", "--port", str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1/models"
    try:
        for _ in range(200):
            try:
                httpx.get(url, trust_env=False)
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        limits = httpx.Limits(max_keepalive_connections=0)  # a new connection every request

        def through(client):
            def go():
                for _ in range(count):
                    client.get(url)

            return go

        with override_settings(OUTBOUND_ALLOWED_HOSTS=[f"127.0.0.1:{port}"]):
            checked = checked_client(limits=limits)
            reference = httpx.Client(transport=httpx.HTTPTransport(limits=limits), trust_env=False)
            results = {"checked": [], "httpx": []}
            for _ in range(rounds):
                results["checked"].append(timed(through(checked), 1))
                results["httpx"].append(timed(through(reference), 1))
            checked.close()
            reference.close()
    finally:
        server.terminate()
        server.wait()
    print(f"2. connections: {count} requests, each on a new connection, {rounds} rounds (client process CPU)")
    for name, runs in results.items():
        cpu = statistics.median(c for c, _ in runs) / count * 1e6
        wall = statistics.median(w for _, w in runs) / count * 1e6
        print(f"   {name:<9} CPU {cpu:8.1f} us/request  wall {wall:8.1f} us/request")


def bench_bombs():
    three = "{% for a in t %}{% for b in t %}{% for c in t %}x{% endfor %}{% endfor %}{% endfor %}"
    cpu, _ = timed(lambda: prompts.check_template(three), 1)
    print("3. template bombs")
    print(f"   three loops over a 100-character text: refused when saved in {cpu * 1000:.2f} ms CPU: "
          f"{prompts.check_template(three)}")  # fmt: skip
    context = {"document": {"source": "a" * 100_000}, "segments": [], "categories": []}
    loop = "{% for a in document.source %}{{ document.source }}{% endfor %}"
    print(f"   a loop writing a 100,000-character text per step: {_stopped(loop, context)}")
    empty = "{% for a in document.source %}{% for b in document.source %}{% endfor %}{% endfor %}"
    print(f"   two empty loops over it (10^10 steps): {_stopped(empty, context)}")


def _stopped(template, context):
    """How much CPU time rendering `template` took until the limits stopped it, and why."""
    started = time.process_time()
    try:
        prompts.render_messages(template, context)
    except prompts.PromptError as error:
        return f"stopped after {(time.process_time() - started) * 1000:.1f} ms CPU: {error}"
    return "not stopped"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--connections", type=int, default=300)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    bench_prompts(args.documents, args.segments)
    bench_connections(args.connections)
    bench_bombs()


if __name__ == "__main__":
    main()
