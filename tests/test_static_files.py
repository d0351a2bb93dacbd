"""Static files as production serves them: collected with hashed names and compressed
copies, served by WhiteNoise from gunicorn, and pages compressed except for a login.

The test settings keep plain names (no collectstatic before the suite); here the
worker pages' files are collected with the production storage into a temporary
STATIC_ROOT. bench/page_weight.py loads the page from gunicorn in Chromium.
"""

import gzip
import json
import posixpath
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from tests.browser.task_page import make_task

PRODUCTION_STORAGE = {
    **settings.STORAGES,
    "staticfiles": {"BACKEND": "falte_site.staticfiles.HashedStaticStorage"},
}
# Where the worker pages' modules live: static/worker/ and each protocol's <name>/ directory.
WORKER_STATIC = [settings.BASE_DIR / "static", *sorted(settings.BASE_DIR.glob("protocols/*/static"))]
MODULE_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+)["']""")
HASHED = re.compile(r"\.[0-9a-f]{12}\.(js|css)$")


@pytest.fixture(scope="module")
def static_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("static")
    with override_settings(
        STATIC_ROOT=root,
        STORAGES=PRODUCTION_STORAGE,
        STATICFILES_DIRS=WORKER_STATIC,
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
    return root


@pytest.fixture
def production_static(static_root):
    """WhiteNoise reading the collected files only, as under gunicorn."""
    with override_settings(
        STATIC_ROOT=static_root,
        STORAGES=PRODUCTION_STORAGE,
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    ):
        yield static_root


def manifest(static_root):
    return json.loads((Path(static_root) / "staticfiles.json").read_text())["paths"]


def test_modules_import_each_other_by_their_hashed_names(static_root):
    hashed_names = set(manifest(static_root).values())
    modules = [name for name in hashed_names if name.endswith(".js")]
    assert "span/main.js" in manifest(static_root) and len(modules) > 10
    imports = 0
    for name in modules:
        source = (static_root / name).read_text()
        for target in MODULE_IMPORT.findall(source):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
            assert resolved in hashed_names, f"{name} imports {target}, not a hashed file"
            assert (static_root / resolved).exists()
            imports += 1
    assert imports > 20
    span_page = (static_root / manifest(static_root)["span/page.js"]).read_text()
    assert re.search(r'import\("\./questions\.[0-9a-f]{12}\.js"\)', span_page)  # a dynamic import too


def test_hashed_files_have_brotli_and_gzip_copies(static_root):
    for name in manifest(static_root).values():
        if HASHED.search(name):
            assert (static_root / f"{name}.br").exists() and (static_root / f"{name}.gz").exists(), name


@pytest.mark.django_db
def test_gunicorn_serves_hashed_files_compressed_and_cached_for_a_year(production_static):
    main = manifest(production_static)["span/main.js"]
    response = Client().get(f"/static/{main}", headers={"accept-encoding": "br, gzip"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "br"
    assert "immutable" in response["Cache-Control"] and "max-age=315360000" in response["Cache-Control"]
    assert "Content-Security-Policy" in response  # static files carry the policy too

    plain = Client().get(f"/static/{main}", headers={"accept-encoding": "gzip"})
    assert plain["Content-Encoding"] == "gzip"


@pytest.mark.django_db
def test_the_annotation_page_links_hashed_files_and_is_compressed(production_static):
    assignment = make_task()
    response = Client().get(
        reverse("task-annotate", args=[assignment.token]), headers={"accept-encoding": "gzip, br"}
    )
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    page = gzip.decompress(response.content).decode()
    assert f'src="/static/{manifest(production_static)["span/main.js"]}"' in page
    assert f'href="/static/{manifest(production_static)["span/task.css"]}"' in page


@pytest.mark.django_db
def test_pages_are_not_compressed_for_a_logged_in_user(production_static, django_user_model):
    assignment = make_task()
    client = Client()
    client.force_login(django_user_model.objects.create_user("researcher", password="pw"))
    response = client.get(
        reverse("task-annotate", args=[assignment.token]), headers={"accept-encoding": "gzip, br"}
    )
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert b'id="task-data"' in response.content
