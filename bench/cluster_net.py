"""Network namespaces for bench/cluster.py: one per machine of the cluster, on one bridge.

Each node gets a namespace `fc-<name>` with a veth pair: `eth0` inside, holding the node's
address in 10.77.0.0/24, and `fc-<name>` on the host, enslaved to the bridge `fc-br0`. The
host holds 10.77.0.1 on the bridge, so the benchmark (the load generator, `manage.py`) reaches
the nodes as another machine of the network would. Nothing listens on 127.0.0.1 for the cluster.

Processes are started inside a namespace with `ip netns exec`, each in a session of its own,
so that a node's whole process tree can be killed at once, as a machine that dies.
"""

import contextlib
import os
import signal
import subprocess
import time

PREFIX = "fc-"
BRIDGE = f"{PREFIX}br0"
NETWORK = "10.77.0"
HOST_ADDRESS = f"{NETWORK}.1"


def ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


class Network:
    """The bridge and the namespaces; `teardown()` removes every one this benchmark left, even
    those of an earlier run that was killed."""

    def __init__(self):
        self.nodes = {}  # name -> address

    def up(self):
        self.teardown()
        ip("link", "add", BRIDGE, "type", "bridge")
        ip("addr", "add", f"{HOST_ADDRESS}/24", "dev", BRIDGE)
        ip("link", "set", BRIDGE, "up")

    def add(self, name, host_number):
        """A namespace `fc-<name>` with address 10.77.0.<host_number>; returns the address."""
        namespace, address = f"{PREFIX}{name}", f"{NETWORK}.{host_number}"
        ip("netns", "add", namespace)
        ip("link", "add", namespace, "type", "veth", "peer", "name", "eth0", "netns", namespace)
        ip("link", "set", namespace, "master", BRIDGE, "up")
        ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0")
        ip("-n", namespace, "link", "set", "eth0", "up")
        ip("-n", namespace, "link", "set", "lo", "up")
        self.nodes[name] = address
        return address

    def teardown(self):
        for line in ip("netns", "list", check=False).stdout.splitlines():
            namespace = line.split()[0] if line.strip() else ""
            if namespace.startswith(PREFIX):
                kill_namespace_processes(namespace)
                ip("netns", "del", namespace, check=False)  # takes its veth pair with it
        ip("link", "del", BRIDGE, check=False)


def kill_namespace_processes(namespace):
    """SIGKILL whatever still runs in a namespace (left by an earlier run that was killed)."""
    pids = ip("netns", "pids", namespace, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


class Node:
    """A process started in a namespace, in a session of its own (its tree is one process group)."""

    def __init__(self, name, namespace, command, env, cwd, log, stop_signal=signal.SIGTERM):
        self.name = name
        self.stop_signal = stop_signal
        self.log = open(log, "w")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", f"{PREFIX}{namespace}", *command],
            env=env, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def kill(self):
        """SIGKILL the node's whole process tree at once: the machine is gone."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, grace=20):
        if self.alive():
            try:
                os.killpg(self.process.pid, self.stop_signal)
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()
            except ProcessLookupError:
                pass
        self.log.close()


def wait_for(check, what, seconds=300):
    # A web node answers its first request after Django and its workers have loaded: over 60 s
    # when other jobs keep this shared machine's load at 15 or more.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {seconds} s")
