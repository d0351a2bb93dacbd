"""The floor under a span save: the save's own SQL sent by a bare psycopg loop, no web stack.

bench/task_saves.py runs this beside gunicorn so that a save through the platform
is compared with the same statements sent with nothing around them: BEGIN, the
UPDATE that opens the assignment (protocols/span/save_statements.py, its text
taken from there), the INSERT ... ON CONFLICT DO NOTHING, COMMIT, on psycopg's
defaults (server-side binding; a statement sent 5 times is prepared). Two
threads with a connection each, as gunicorn's 2 sync workers have, in a closed
loop over the benchmark's tokens.

It sets up first (Django, only to build the SQL text), prints "ready", waits for
a line on its standard input, then saves and prints one JSON line: the saves,
the wall seconds and its own CPU seconds (user + system, all threads) over the
loop alone. The caller measures PostgreSQL's CPU around it, then sends a last
line, on which the loop closes its connections.

    python bench/bare_saves.py SAVES < tokens (one JSON list, then the go line)
"""

import json
import os
import resource
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
THREADS = 2  # as gunicorn's 2 sync workers: one connection each


def statements():
    """The save's two statements as the platform sends them on PostgreSQL, its insert columns, and
    the function that gives the opening UPDATE's parameters (the platform's own, so the two cannot drift)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")
    import django

    django.setup()
    from protocols.span import save_statements

    opened = save_statements._open_statement("postgresql")
    inserted = save_statements._insert_statement("postgresql")
    columns = [field.attname for field in save_statements._INSERTED]
    return opened, inserted, columns, save_statements.open_params


def save_loop(connection, sql, tokens, saves, prefix, failures):
    from psycopg.types.json import Jsonb

    opened, inserted, columns, open_params = sql
    try:
        with connection:
            for number in range(saves):
                token = tokens[number % len(tokens)]
                now = datetime.now(UTC)
                client_id = f"{prefix}-{number}"
                row = connection.execute(
                    opened, open_params(now, token, "CharE", 0, None, client_id)
                ).fetchone()
                if row is None or row[3] is None or row[6] is None:
                    failures.append(token)
                    connection.rollback()
                    continue
                values = {
                    "assignment_id": row[0], "segment_id": row[6], "category_id": row[3], "start": 0, "end": 4,
                    "text": "Anna", "paired_segment_id": None, "paired_start": None, "paired_end": None,
                    "paired_text": "", "comment": "", "answers": Jsonb({}), "client_id": client_id,
                    "created_at": now,
                }  # fmt: skip
                connection.execute(inserted, [values[column] for column in columns]).fetchone()
                connection.commit()
    except Exception as error:  # a loop that died must fail the run, not report a floor of nothing
        failures.append(repr(error))
        raise


def main():
    saves = int(sys.argv[1])
    tokens = json.loads(sys.stdin.readline())
    sql = statements()
    import psycopg

    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    connections = [psycopg.connect(url) for _ in range(THREADS)]  # connected before the clock starts
    print("ready", flush=True)
    sys.stdin.readline()
    failures = []
    share = saves // THREADS
    threads = [
        threading.Thread(
            target=save_loop,
            args=(connections[n], sql, tokens[n::THREADS], share, f"bare{os.getpid()}-{n}", failures),
        )
        for n in range(THREADS)
    ]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    print(
        json.dumps({"saves": share * THREADS, "seconds": seconds, "cpu": cpu, "failures": len(failures)}),
        flush=True,
    )
    # The connections stay open until the caller has read its PostgreSQL backends' CPU: an ended
    # backend's CPU can no longer be read, and a short loop would count as none.
    sys.stdin.readline()
    for connection in connections:
        connection.close()


if __name__ == "__main__":
    main()
