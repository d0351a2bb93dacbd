"""CPU time of the processes a benchmark talks to, read from /proc: a server and its
children (gunicorn master and workers), and PostgreSQL's backends of one database."""

import os
import threading
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid):
    """The fields of /proc/<pid>/stat after the command name, or None once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _cpu(fields):
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15 of stat)


def server_processes(pid):
    """A server process and its children (the gunicorn master and its workers)."""
    pids = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(entry.name)) and int(fields[1]) == pid:
            pids.append(int(entry.name))
    return pids


def cpu_seconds(pid):
    """User + system CPU seconds of a server process and its children so far."""
    return sum(_cpu(fields) for process in server_processes(pid) if (fields := _stat_fields(process)))


class PostgresBackendCPU:
    """CPU seconds that PostgreSQL's backends serving one database use between start() and stop().

    A backend's title is `postgres: <cluster>: <user> <database> <client> <state>`. Backends come
    and go (CONN_MAX_AGE), and an ended backend's CPU can no longer be read, so a thread samples
    them every `interval` seconds and keeps each one's last value: a backend that ends loses at
    most its last interval. Backends that start during the measurement count from zero.
    """

    def __init__(self, database, interval=0.2):
        self.database = database
        self.interval = interval
        self._stop = threading.Event()
        self._thread = None
        self._first = {}
        self._last = {}

    def _backends(self):
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                title = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
            except OSError:
                continue
            words = title.split()
            if words[:1] != ["postgres:"] or self.database not in words[2:4]:
                continue
            if (fields := _stat_fields(entry.name)) is not None:
                found[int(entry.name)] = _cpu(fields)
        return found

    def _sample(self):
        self._last.update(self._backends())

    def _run(self):
        while not self._stop.wait(self.interval):
            self._sample()

    def start(self):
        self._first = self._backends()
        self._last = dict(self._first)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self):
        """The CPU seconds used since start()."""
        self._stop.set()
        self._thread.join()
        self._sample()
        return sum(value - self._first.get(pid, 0.0) for pid, value in self._last.items())


def tree_cpu_seconds(pid):
    """User + system CPU seconds of a process, every live descendant, and every child it has
    reaped (cutime, cstime): PostgreSQL's postmaster reaps its backends and gunicorn's master
    its workers, so CPU of processes that ended since is still counted. 0 once it is gone."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    reaped = (int(fields[13]) + int(fields[14])) / TICKS  # cutime, cstime (fields 16, 17 of stat)
    children = [process for process in server_processes(pid) if process != pid]
    return _cpu(fields) + reaped + sum(tree_cpu_seconds(child) for child in children)


class ProcessTreeCPU:
    """CPU seconds of a process tree (tree_cpu_seconds) between start() and stop()."""

    def __init__(self, pid):
        self.pid = pid

    def start(self):
        self._before = tree_cpu_seconds(self.pid)

    def stop(self):
        return tree_cpu_seconds(self.pid) - self._before


def peak_rss_mb(pid):
    """The largest peak resident set (VmHWM) among a server process and its children, in MB."""
    peaks = []
    for process in server_processes(pid):
        try:
            status = Path(f"/proc/{process}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks, default=0.0)
