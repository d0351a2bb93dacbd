"""gunicorn configuration for bench/task_saves.py: every answer says what its request cost.

`gunicorn -c bench/statement_counting.py` wraps each worker's WSGI application
so that every response carries two headers:

- `X-Bench-Statements`: the SQL statements the request sent to the database,
  counting BEGIN and COMMIT (or ROLLBACK). Django's execute wrappers see the
  queries; psycopg sends BEGIN by itself and COMMIT through the connection,
  so each transaction that ends is counted as two statements (and SQLite's
  explicit BEGIN is not counted twice);
- `X-Bench-CPU-us`: the worker's CPU time (user + system) while the
  application handled the request, in microseconds.

It works with any checkout (the script passes its own path), so the code
before a change is measured the same way.
"""

import time


def post_worker_init(worker):
    from django.db import connections

    database = connections["default"]
    counts = {"queries": 0, "transactions": 0}

    def count_query(execute, sql, params, many, context):
        if not sql.lstrip().upper().startswith("BEGIN"):
            counts["queries"] += 1
        return execute(sql, params, many, context)

    def counting(end_transaction):
        def ended(*args, **kwargs):
            counts["transactions"] += 1
            return end_transaction(*args, **kwargs)

        return ended

    database.commit = counting(database.commit)
    database.rollback = counting(database.rollback)
    application = worker.wsgi

    def counted(environ, start_response):
        counts["queries"] = counts["transactions"] = 0
        started = time.process_time()

        def start_with_counts(status, headers, exc_info=None):
            statements = counts["queries"] + 2 * counts["transactions"]
            used = round((time.process_time() - started) * 1e6)
            headers = [*headers, ("X-Bench-Statements", str(statements)), ("X-Bench-CPU-us", str(used))]
            return start_response(status, headers, exc_info)

        with database.execute_wrapper(count_query):
            return application(environ, start_with_counts)

    worker.wsgi = counted
