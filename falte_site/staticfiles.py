"""The storage `collectstatic` writes the site's static files with (WhiteNoise serves them)."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    """Content-hashed names, gzip and brotli copies, and ES module imports rewritten.

    The worker pages are plain ES modules that import each other by relative path
    (`./render.js`, `../worker/api.js`). Django's manifest storage rewrites only CSS
    `url()` unless told to rewrite `import ... from "..."` too; without that, a hashed
    `main.1a2b.js` would import the unhashed `render.js`, which an old browser cache or
    a file removed by a later deploy would answer with stale code or a 404.
    """

    support_js_module_import_aggregation = True
