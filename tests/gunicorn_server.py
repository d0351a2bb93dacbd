"""gunicorn started by a test, on a port no other process can take.

The test binds the listening socket itself (port 0: the kernel's choice) and
hands it to gunicorn (`--bind fd://N`). Probing for a free port and letting
gunicorn bind it later leaves a moment in which another process, such as a
test on another of the suite's processes (pytest-xdist), can take that port.
Connections made before gunicorn is up wait in the socket's backlog.
"""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def start_gunicorn(app, *options, env, output=subprocess.DEVNULL):
    """gunicorn serving `app` (a WSGI module) with `options`, in a session of its own: the process
    and the port it listens on, on 127.0.0.1."""
    with socket.create_server(("127.0.0.1", 0), backlog=128) as listener:
        port = listener.getsockname()[1]
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), app, "--bind", f"fd://{listener.fileno()}", *options],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, pass_fds=(listener.fileno(),),
            start_new_session=True,
        )  # fmt: skip
    return process, port


def stop_gunicorn(process, timeout):
    """SIGTERM to the master and its workers; wait up to `timeout` seconds for the master to end."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=timeout)
