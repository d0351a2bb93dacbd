"""Benchmark: what the annotation page's first load costs on the wire, served by gunicorn alone.

Collects the static files with the production storage (hashed names, gzip and
brotli copies) into a temporary STATIC_ROOT, makes a fresh SQLite database with
the demo study (`load_demo`), starts gunicorn with DEBUG off, and fetches a demo
worker's annotation page (`/task/<token>/annotate/`) and every stylesheet and
script it loads: the <link> and <script> tags of the page, then every module a
script imports, followed recursively. Each file is fetched twice in the same
run, with `Accept-Encoding: br, gzip` and without compression, and the table
gives the body bytes on the wire of both (response headers are counted apart:
the Content-Security-Policy alone is ~400 bytes an answer). Target: the
compressed bodies under 30 KB.

It exits non-zero when a request fails, an import does not resolve, or a hashed
file lacks the far-future Cache-Control. With --browser it also opens the page
in Chromium (Playwright, Debian's chromium) from the same gunicorn, checks that
the segments were drawn (the hashed modules imported one another), and prints
Chromium's own transferred sizes (PerformanceResourceTiming).

    .venv/bin/python bench/page_weight.py [--browser] [--static-root DIR --reuse-static]
"""

import argparse
import http.client
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
PORT = 8767
TARGET_BYTES = 30 * 1024
IMMUTABLE = "immutable"
# Static and dynamic imports of an ES module: `import {a} from "./a.js";`, `import "./b.js";`,
# `export {c} from "./c.js";`, `import("./d.js")`. Comments are not stripped; a false hit
# would show as an extra row.
MODULE_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*)["'](\.{1,2}/[^"']+)["']""")
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["'](\.{1,2}/[^"']+)["']\s*\)""")


class AssetLinks(HTMLParser):
    """The stylesheets and scripts a page loads."""

    def __init__(self):
        super().__init__()
        self.assets = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") == "stylesheet" and attrs.get("href"):
            self.assets.append(("css", attrs["href"]))
        elif tag == "script" and attrs.get("src"):
            self.assets.append(("js", attrs["src"]))


def fetch(path, encoding):
    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    connection.request("GET", path, headers={"Accept-Encoding": encoding})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    header_bytes = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + 2
    header_bytes += sum(len(f"{name}: {value}\r\n") for name, value in response.getheaders())
    return response, body, header_bytes


def decoded(response, body):
    encoding = response.getheader("Content-Encoding", "")
    if encoding == "br":
        import brotli

        return brotli.decompress(body)
    if encoding == "gzip":
        import gzip

        return gzip.decompress(body)
    return body


def server_pids(pid):
    """The gunicorn master and its workers."""
    pids = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                pids.append(int(entry.name))
    return pids


def server_cpu_seconds(pid):
    """utime + stime of gunicorn's processes so far, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for process in server_pids(pid):
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def own_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, children.ru_utime + children.ru_stime


def manage(env, *args):
    result = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    return result.stdout


def start_gunicorn(env):
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "falte_site.wsgi", "--workers", "1",
         "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning"],
        env=env, cwd=ROOT,
    )  # fmt: skip
    for _ in range(200):
        try:
            fetch("/admin/login/", "identity")
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("gunicorn did not answer within 20 s")


def collect(page_path):
    """The page and every asset it loads, each fetched compressed and uncompressed."""
    problems = []
    rows = []
    queue = [("html", page_path)]
    seen = set()
    while queue:
        kind, path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        response, body, header_bytes = fetch(path, "br, gzip")
        plain, plain_body, _ = fetch(path, "identity")
        if response.status != 200 or plain.status != 200:
            problems.append(f"{path}: {response.status} / {plain.status}")
            continue
        text = decoded(response, body)
        if text != plain_body:
            problems.append(f"{path}: the compressed answer does not decompress to the plain one")
        cache = response.getheader("Cache-Control", "")
        if kind != "html" and IMMUTABLE not in cache:
            problems.append(f"{path}: Cache-Control {cache!r}, not a far-future one")
        rows.append(
            {
                "kind": kind,
                "path": path,
                "encoding": response.getheader("Content-Encoding", "identity"),
                "wire": len(body),
                "headers": header_bytes,
                "plain": len(plain_body),
                "cache": cache,
            }
        )
        source = text.decode()
        if kind == "html":
            import brotli

            print(
                f"the page's HTML: {len(plain_body):,} bytes, {len(body):,} as sent ({rows[-1]['encoding']}); "
                f"brotli would send {len(brotli.compress(plain_body, quality=5)):,} (quality 5) or "
                f"{len(brotli.compress(plain_body)):,} (quality 11)"
            )
            parser = AssetLinks()
            parser.feed(source)
            queue.extend((asset_kind, urljoin(path, href)) for asset_kind, href in parser.assets)
        elif kind == "js":
            dynamic = set(DYNAMIC_IMPORT.findall(source))
            for target in MODULE_IMPORT.findall(source):
                if target not in dynamic:
                    queue.append(("js", urljoin(path, target)))
            for target in dynamic:
                later = urljoin(path, target)
                status = fetch(later, "br, gzip")[0].status
                if status != 200:
                    problems.append(f"{path}: import('{target}') answers {status}")
    return rows, problems


def print_table(rows):
    print(f"{'file':<44} {'encoding':>8} {'on the wire':>12} {'uncompressed':>13} {'headers':>8}")
    for row in rows:
        name = urlsplit(row["path"]).path
        name = "annotation page (HTML)" if row["kind"] == "html" else name.removeprefix("/static/")
        print(f"{name:<44} {row['encoding']:>8} {row['wire']:>12,} {row['plain']:>13,} {row['headers']:>8,}")
    wire = sum(row["wire"] for row in rows)
    plain = sum(row["plain"] for row in rows)
    headers = sum(row["headers"] for row in rows)
    print(f"{'total, ' + str(len(rows)) + ' requests':<44} {'':>8} {wire:>12,} {plain:>13,} {headers:>8,}")
    verdict = "under" if wire < TARGET_BYTES else "OVER"
    print(
        f"compressed bodies: {wire / 1024:.1f} KiB ({verdict} the 30 KiB target); uncompressed "
        f"{plain / 1024:.1f} KiB ({wire / plain:.0%}); with response headers {(wire + headers) / 1024:.1f} KiB"
    )
    ages = sorted({row["cache"] for row in rows if row["kind"] != "html"})
    print(f"Cache-Control of the static files: {', '.join(ages)}")


def browser_check(url):
    """Open the page in Chromium: the hashed modules must import one another and draw the text."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from tests.browser.conftest import CHROMIUM, CHROMIUM_FLAGS

    errors = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "console",
            lambda message: (
                message.type == "error"
                and not message.location.get("url", "").endswith("/favicon.ico")
                and errors.append(message.text)
            ),
        )
        page.on("requestfailed", lambda request: errors.append(f"failed: {request.url}"))
        page.goto(url)
        page.wait_for_selector(".current-box .segment-text", timeout=15_000)
        entries = page.evaluate(
            """() => [performance.getEntriesByType('navigation')[0],
                      ...performance.getEntriesByType('resource')]
                .filter((e) => /\\.(js|css)$/.test(new URL(e.name).pathname) || e.entryType === 'navigation')
                .map((e) => ({name: e.name, transfer: e.transferSize, body: e.encodedBodySize,
                              decoded: e.decodedBodySize}))"""
        )
        browser.close()
    transfer = sum(entry["transfer"] for entry in entries)
    body = sum(entry["body"] for entry in entries)
    decoded_size = sum(entry["decoded"] for entry in entries)
    print(
        f"Chromium: {len(entries)} requests, {body / 1024:.1f} KiB of bodies on the wire, "
        f"{transfer / 1024:.1f} KiB with headers, {decoded_size / 1024:.1f} KiB decoded; page drawn"
    )
    return errors


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--static-root", type=Path, help="collect here (default: a temporary directory)")
    parser.add_argument(
        "--reuse-static", action="store_true", help="skip collectstatic if --static-root has a manifest"
    )
    parser.add_argument("--browser", action="store_true", help="also load the page in Chromium")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="falte-page-weight-"))
    static_root = args.static_root or work / "static"
    env = dict(
        os.environ, READ_DOT_ENV="0", DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40,
        ALLOWED_HOSTS="127.0.0.1", SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0", SECURE_HSTS_SECONDS="0", STATIC_ROOT=str(static_root),
        DATABASE_URL=f"sqlite:///{work / 'db.sqlite3'}",
    )  # fmt: skip

    started = time.perf_counter()
    if not (args.reuse_static and (static_root / "staticfiles.json").exists()):
        manage(env, "collectstatic", "--no-input", "--clear", "-v", "0")
        _, children = own_cpu_seconds()
        print(f"collectstatic: {time.perf_counter() - started:.1f} s wall, {children:.1f} s CPU")
    manage(env, "migrate", "--no-input", "-v", "0")
    links = [line.split("\t")[-1] for line in manage(env, "load_demo").splitlines() if "/task/" in line]
    page_path = urlsplit(links[0]).path + "annotate/"

    server = start_gunicorn(env)
    try:
        cpu_before = server_cpu_seconds(server.pid)
        own_before, _ = own_cpu_seconds()
        fetched = time.perf_counter()
        rows, problems = collect(page_path)
        wall = time.perf_counter() - fetched
        server_cpu = server_cpu_seconds(server.pid) - cpu_before
        own_cpu = own_cpu_seconds()[0] - own_before
        print(f"gunicorn (1 sync worker, DEBUG off, SQLite, demo study), page {page_path}")
        print_table(rows)
        print(
            f"fetching both versions: {wall * 1000:.0f} ms wall, gunicorn CPU {server_cpu * 1000:.0f} ms, "
            f"this script's CPU {own_cpu * 1000:.0f} ms; load average {os.getloadavg()[0]:.2f}"
        )
        if args.browser:
            problems += browser_check(f"http://127.0.0.1:{PORT}{page_path}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
