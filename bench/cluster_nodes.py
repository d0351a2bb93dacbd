"""The machines of bench/cluster.py: PostgreSQL, Redis, two web nodes behind HAProxy, two
Celery worker nodes, each in its own network namespace (bench/cluster_net.py).

Every node runs this checkout's code with the settings a real machine would get from its
environment (docs/deployment.md, *Several web nodes*): one DATABASE_URL, one broker, one
SECRET_KEY, the proxy's address in ALLOWED_HOSTS, NUM_PROXIES=1.
"""

import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg

from bench.cluster_net import Network, Node, wait_for

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
# name -> last byte of the address in 10.77.0.0/24 (the host is .1)
ADDRESSES = {"postgres": 2, "redis": 3, "proxy": 10, "web1": 11, "web2": 12, "worker1": 21, "worker2": 22}
WEB_PORT = 8000
GUNICORN_WORKERS = 2

HAPROXY_CONFIG = """\
global
    maxconn 4000
    log stdout format raw local0
    stats socket {socket} mode 600 level admin

defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    option forwardfor
    # A request that could not be sent to a node (connection refused: the node is down and the
    # health check has not noticed yet) is sent to another one; one that was sent is never
    # repeated by the proxy (the page retries its saves itself, with the same client_id).
    retries 2
    option redispatch 1
    timeout connect 2s
    timeout client 60s
    timeout server 35s
    timeout queue 30s
    timeout check 2s

frontend site
    bind {proxy}:80
    default_backend web

backend web
    balance roundrobin
    option httpchk
    http-check send meth GET uri /admin/login/ ver HTTP/1.1 hdr Host {proxy}
    http-check expect status 200
    # gunicorn's sync workers take one request each: more would wait in the node's backlog,
    # where a node that dies loses them; in the proxy's queue they go to the node left.
    # A refused connection takes the node out at once (observe): else, while the other node
    # is busy, the retries of a request go back to the dead one until the check notices.
    default-server check inter 1s fall 2 rise 2 maxconn {gunicorn_workers} observe layer4 error-limit 1 on-error mark-down
{servers}
"""


class Cluster:
    """Starts the nodes (`up()`), and stops every process, namespace and file (`down()`)."""

    def __init__(self):
        self.network = Network()
        self.nodes = {}
        self.directory = Path(tempfile.mkdtemp(prefix="falte-cluster-"))
        self.address = {name: f"10.77.0.{number}" for name, number in ADDRESSES.items()}
        self.env = dict(
            os.environ,
            DJANGO_SETTINGS_MODULE="falte_site.settings", READ_DOT_ENV="0", DEBUG="0",
            SECRET_KEY="cluster-bench-only-key-" + "x" * 40,
            DATABASE_URL=f"postgres://postgres@{self.address['postgres']}:5432/falte",
            CELERY_BROKER_URL=f"redis://{self.address['redis']}:6379/0",
            ALLOWED_HOSTS=",".join(self.address[name] for name in ("proxy", "web1", "web2")), NUM_PROXIES="1", SITE_URL=f"http://{self.address['proxy']}",
            SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0",
            SECURE_HSTS_SECONDS="0", CONN_MAX_AGE="60",
            STATIC_ROOT=str(self.directory / "static"), MEDIA_ROOT=str(self.directory / "media"),
            BUNDLE_MAX_FILE_BYTES="2000000000",
        )  # fmt: skip

    def start(self, name, command, namespace=None, stop_signal=signal.SIGTERM):
        node = Node(
            name, namespace or name, command, self.env, ROOT, self.directory / f"{name}.log", stop_signal
        )
        self.nodes[name] = node
        return node

    def up(self):
        self.network.up()
        for name, number in ADDRESSES.items():
            self.network.add(name, number)
        self.start_postgres()
        self.start("redis", ["redis-server", "--bind", self.address["redis"], "--port", "6379",
                             "--save", "", "--appendonly", "no", "--protected-mode", "no"])  # fmt: skip
        wait_for(lambda: _answers_tcp(self.address["redis"], 6379), "redis")

    def start_postgres(self):
        """A cluster of its own (initdb in the temp dir), listening on its namespace's address."""
        data = self.directory / "postgres"
        data.mkdir()
        shutil.chown(data, "postgres", "postgres")
        self.directory.chmod(0o755)
        as_postgres = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
        subprocess.run([*as_postgres, POSTGRES_BIN / "initdb", "-D", data, "-U", "postgres", "--auth=trust",
                        "-E", "UTF8", "--locale=C.UTF-8"], check=True, capture_output=True)  # fmt: skip
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write("host all all 10.77.0.0/24 trust\n")
        self.start("postgres", stop_signal=signal.SIGINT, command=[*as_postgres, POSTGRES_BIN / "postgres", "-D", data,
                                "-c", f"listen_addresses={self.address['postgres']}",
                                "-c", f"unix_socket_directories={data}", "-c", "max_connections=100"])  # fmt: skip
        admin = f"postgres://postgres@{self.address['postgres']}:5432/postgres"
        wait_for(lambda: _connects(admin), "PostgreSQL")
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute("CREATE DATABASE falte")

    def manage(self, *args):
        """`manage.py` from the host, as an operator's shell on another machine of the network."""
        subprocess.run([sys.executable, "manage.py", *args], env=self.env, cwd=ROOT, check=True)

    def start_web(self):
        for name in ("web1", "web2"):
            self.start(name, [BIN / "gunicorn", "falte_site.wsgi", "--workers", str(GUNICORN_WORKERS),
                              "--bind", f"{self.address[name]}:{WEB_PORT}", "--log-level", "warning",
                              "--config", ROOT / "bench" / "statement_counting.py"])  # fmt: skip
        for name in ("web1", "web2"):
            wait_for(
                lambda name=name: _answers_http(self.address[name], WEB_PORT, self.address["proxy"]), name
            )
        servers = "\n".join(f"    server {name} {self.address[name]}:{WEB_PORT}" for name in ("web1", "web2"))
        config = self.directory / "haproxy.cfg"
        config.write_text(HAPROXY_CONFIG.format(socket=self.proxy_socket, proxy=self.address["proxy"],
                                                gunicorn_workers=GUNICORN_WORKERS, servers=servers))  # fmt: skip
        self.start("proxy", ["haproxy", "-f", config, "-db"])
        wait_for(lambda: _answers_http(self.address["proxy"], 80, self.address["proxy"]), "the proxy")

    @property
    def proxy_socket(self):
        return self.directory / "haproxy.sock"

    def start_workers(self, part_documents):
        env = dict(self.env, REPORT_PART_DOCUMENTS=str(part_documents))
        for name in ("worker1", "worker2"):
            command = [BIN / "celery", "-A", "falte_site", "worker", "--loglevel", "WARNING", "--concurrency", "1",
                       "--hostname", f"{name}@%h", "--without-gossip", "--without-mingle"]  # fmt: skip
            if name == "worker1":  # the site's one beat: the periodic recovery passes
                command += ["--beat", "--schedule", self.directory / "beat-schedule"]
            self.nodes[name] = Node(name, name, command, env, ROOT, self.directory / f"{name}.log")

    def proxy_servers(self):
        """{web node: HAProxy's state of it (UP, DOWN, ...)}, from its stats socket."""
        import socket

        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(self.proxy_socket))
            connection.sendall(b"show stat\n")
            text = b"".join(iter(lambda: connection.recv(65536), b"")).decode()
        lines = text.lstrip("# ").splitlines()
        header = lines[0].split(",")
        rows = [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]
        return {row["svname"]: row["status"] for row in rows if row["svname"] in ("web1", "web2")}

    def proxy_log(self):
        return (self.directory / "proxy.log").read_text().splitlines()

    def down(self):
        for node in reversed(list(self.nodes.values())):
            node.stop()
        self.network.teardown()
        shutil.rmtree(self.directory, ignore_errors=True)


def _answers_tcp(host, port):
    import socket

    try:
        socket.create_connection((host, port), timeout=1).close()
        return True
    except OSError:
        return False


def _connects(url):
    try:
        psycopg.connect(url, connect_timeout=1).close()
        return True
    except psycopg.OperationalError:
        return False


def _answers_http(host, port, host_header):
    try:
        connection = http.client.HTTPConnection(host, port, timeout=2)
        connection.request("GET", "/admin/login/", headers={"Host": host_header})
        return connection.getresponse().status == 200
    except OSError:
        return False
