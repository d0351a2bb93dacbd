"""Workers opening a study's join link at the same moment, each from a thread with its own
database connection, so that the joins really contend for the study's row lock (PostgreSQL) or
the write lock (SQLite: its test database is a file; falte_site/test_settings.py)."""

import threading
from collections import Counter

from django.db import connections
from django.test import Client


def joins_at_once(study, workers):
    """Counter of the HTTP statuses `workers` simultaneous joins got (302: a place, 200: a page
    saying there is none). A database error becomes the 500 a worker would see, not an exception
    in the thread."""
    barrier = threading.Barrier(workers)
    statuses = []

    def join(number):
        try:
            barrier.wait()
            response = Client(raise_request_exception=False).get(
                f"/join/{study.join_key}/?PROLIFIC_PID=crowd-{number}&SESSION_ID=s{number}"
            )
            statuses.append(response.status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=join, args=(number,)) for number in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Counter(statuses)
