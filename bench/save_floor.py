"""Where a span save's web CPU goes, in one process: the save, the stack around it, its SQL alone.

bench/task_saves.py compares a save through gunicorn with the same statements sent by a bare
psycopg loop, and finds the web process the larger part of the gap. This splits the web
process's share, in one Python process (no gunicorn, no HTTP parsing), alternating three
kinds of request, each ROUNDS x REQUESTS times, CPU from time.process_time:

- **save**: a span save (the benchmark's POST /api/task/<token>/annotations/) through Django's
  WSGI handler, with every middleware and the URL resolution, as gunicorn calls it;
- **stack**: the same request with the URL's view swapped for one that answers the same JSON
  and sends nothing to the database: what the middleware, URL resolution, request and
  response cost around any view;
- **statements**: the save's BEGIN, UPDATE, INSERT and COMMIT sent through psycopg on a
  connection of its own (bench/bare_saves.py's loop, the statements' text the platform's own),
  which is the bare loop's client CPU.

save - stack - statements is what the view spends around its own SQL: Django's transaction,
cursors and model instances, the checks, the answer's JSON.

Run it on the database bench/task_saves.py imported (it needs the study's open assignments):

    .venv/bin/python bench/save_floor.py --database-url postgres://postgres@127.0.0.1:5432/falte_bench_saves
"""

import argparse
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.task_saves import bench_env  # noqa: E402

CSRF = "c" * 32  # any well-formed token: the cookie and the header agree, as the page's do


def wsgi_save(app, token, client_id):
    """One save through the WSGI handler; returns the status line."""
    body = json.dumps(
        {"client_id": client_id, "category": "CharE", "segment": 0, "start": 0, "end": 4, "text": "Anna"}
    ).encode()
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": f"/api/task/{token}/annotations/", "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
        "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json",
        "HTTP_COOKIE": f"csrftoken={CSRF}", "HTTP_X_CSRFTOKEN": CSRF,
    }  # fmt: skip
    status = []
    response = app(environ, lambda line, headers: status.append(line))
    b"".join(response)
    response.close()
    return status[0]


def url_pattern_of(path):
    """The URLPattern that serves `path`, whose callback the stack measurement swaps."""
    from django.urls import get_resolver, resolve

    view = resolve(path).func

    def patterns(resolver):
        for entry in resolver.url_patterns:
            if hasattr(entry, "url_patterns"):
                yield from patterns(entry)
            else:
                yield entry

    (found,) = [entry for entry in patterns(get_resolver()) if entry.callback is view]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--requests", type=int, default=2000, help="requests per kind and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ.update(bench_env(args.database_url))
    os.environ["DJANGO_SETTINGS_MODULE"] = "falte_site.settings"
    import django

    django.setup()
    import psycopg
    from django.core.handlers.wsgi import WSGIHandler
    from django.http import JsonResponse

    from annotations.models import OPEN_STATUSES, Assignment
    from bench import bare_saves

    app = WSGIHandler()
    token = Assignment.objects.filter(status__in=OPEN_STATUSES, document__isnull=False).values_list(
        "token", flat=True
    )[0]
    pattern = url_pattern_of(f"/api/task/{token}/annotations/")
    save_view = pattern.callback

    def answer_only(request, *args, **kwargs):
        return JsonResponse({"client_id": "x", "category": "CharE", "segment": 0, "start": 0, "end": 4,
                             "text": "Anna", "comment": "", "paired": None}, status=201)  # fmt: skip

    sql = bare_saves.statements()
    url = args.database_url.replace("postgres://", "postgresql://", 1)
    tag = f"floor{os.getpid()}"

    def through_django(view, kind, round_):
        pattern.callback = view
        for number in range(args.requests):
            status = wsgi_save(app, token, f"{tag}{kind}{round_}-{number}")
            if not status.startswith("201"):
                raise SystemExit(f"{kind}: answered {status}")

    def statements_alone(connection, kind, round_):
        failures = []
        bare_saves.save_loop(connection, sql, [token], args.requests, f"{tag}{kind}{round_}", failures)
        if failures:
            raise SystemExit(f"statements: {failures[0]}")

    # Each kind: (connect before the clock or None, the requests). save_loop closes its connection.
    kinds = {
        "save": (None, lambda _, round_: through_django(save_view, "s", round_)),
        "stack": (None, lambda _, round_: through_django(answer_only, "k", round_)),
        "statements": (
            lambda: psycopg.connect(url),
            lambda connection, round_: statements_alone(connection, "b", round_),
        ),
    }
    cpu = {name: [] for name in kinds}
    for round_ in ["warm", *range(args.rounds)]:  # warm: Django's connection, its prepared statements, caches
        for name, (connect, requests) in kinds.items():
            connection = connect() if connect else None
            started = time.process_time()
            requests(connection, round_)
            if round_ != "warm":
                cpu[name].append((time.process_time() - started) / args.requests * 1000)
    pattern.callback = save_view
    median = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"one process, {args.rounds} rounds x {args.requests} requests of each kind, alternated; "
          f"CPU per request, median (min-max):")  # fmt: skip
    labels = {
        "save": "the save through Django's handler",
        "stack": "the same request, a view that only answers (middleware, URL, request, response)",
        "statements": "the save's four statements through psycopg alone (the bare loop's client)",
    }
    for name, values in cpu.items():
        print(f"  {labels[name]}: {median[name]:.3f} ms ({min(values):.3f}-{max(values):.3f})")
    own = median["save"] - median["stack"] - median["statements"]
    print(
        f"  the view around its statements (transaction, cursors, model instances, checks, JSON): {own:.3f} ms"
    )
    print(f"  load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
