"""What the outbound tests watch: a listener that counts the connections it receives, every connect
this process attempts, and a resolver whose answer for a test name changes between lookups."""

import contextlib
import errno
import socket
import threading

import pytest


class CountingListener:
    """A TCP listener on every local address (IPv4 and IPv6) of one port: it counts connections,
    keeps what each sent first, and answers a 500 so a client gives up at once."""

    def __init__(self):
        self.connections = 0
        self.received = []
        self._lock = threading.Lock()
        self._sockets = self._bind()
        for listening in self._sockets:
            listening.listen(64)
            threading.Thread(target=self._accept, args=(listening,), daemon=True).start()

    def _bind(self):
        """Sockets on one port at every local address, IPv4 and (where the machine has it) IPv6. The
        port is IPv4's free one; if another process (another of the suite's processes) holds it on
        IPv6, another port is taken, so that no connection to the port reaches that process."""
        while True:
            first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            first.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            first.bind(("0.0.0.0", 0))  # the point: reachable at every local address
            self.port = first.getsockname()[1]
            try:
                six = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            except OSError:  # no IPv6 on this machine
                return [first]
            six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            six.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                six.bind(("::", self.port))
            except OSError as error:
                six.close()
                if error.errno != errno.EADDRINUSE:  # no IPv6 address to bind
                    return [first]
                first.close()
                continue
            return [first, six]

    def _accept(self, listening):
        while True:
            try:
                connection, _ = listening.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            connection.settimeout(2)
            with contextlib.suppress(OSError):
                self.received.append(connection.recv(65536))
                connection.sendall(
                    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
            connection.close()

    def close(self):
        for listening in self._sockets:
            with contextlib.suppress(OSError):
                listening.shutdown(socket.SHUT_RDWR)
            listening.close()


@pytest.fixture(autouse=True)
def _eager_runs(eager_celery):
    """Evaluator runs execute in the test's process (tests/conftest.py eager_celery)."""


@pytest.fixture
def listener():
    running = CountingListener()
    yield running
    running.close()


@pytest.fixture
def connects(monkeypatch):
    """Every (address, port) this process tries to connect a socket to, by any client."""
    attempts = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        attempts.append(tuple(address[:2]))
        return real_connect(self, address)

    def connect_ex(self, address):
        attempts.append(tuple(address[:2]))
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    return attempts


class FlippingResolver:
    """DNS for test names: `name` resolves to `first` at its first lookup, then to `later` at every
    later one (a rebinding name); each is an address or a list of them. Other names resolve as usual."""

    def __init__(self, monkeypatch):
        self.names = {}
        self.lookups = {}
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host not in self.names:
                return real(host, port, *args, **kwargs)
            self.lookups[host] = self.lookups.get(host, 0) + 1
            first, later = self.names[host]
            answer = first if self.lookups[host] == 1 else later
            return [_address_info(address, int(port or 0)) for address in answer]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    def add(self, name, first, later=None):
        as_list = lambda answer: [answer] if isinstance(answer, str) else list(answer)  # noqa: E731
        self.names[name] = (as_list(first), as_list(later if later is not None else first))


def _address_info(address, port):
    if ":" in address:
        return (socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))


@pytest.fixture
def resolver(monkeypatch):
    return FlippingResolver(monkeypatch)


def own_addresses():
    """This machine's addresses on its network links (not loopback), if it has any: private ones
    here, reachable by the listener like loopback."""
    found = []
    for family, probe in ((socket.AF_INET, ("10.255.255.255", 9)), (socket.AF_INET6, ("fd00::ffff", 9))):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect(probe)  # a UDP connect sends nothing: it only picks the outgoing address
            address = udp.getsockname()[0]
            if address not in ("127.0.0.1", "::1", "0.0.0.0", "::"):
                found.append(address)
    return found
