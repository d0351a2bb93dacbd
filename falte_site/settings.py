"""Settings, read from the environment (12-factor).

Defaults give the embedded set-up: a SQLite file and Celery tasks run eagerly
in-process. Production sets DATABASE_URL (PostgreSQL), CELERY_BROKER_URL
(Redis) and SECRET_KEY; see docs/deployment.md.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A local .env (written by `make demo`, never committed) may hold the settings.
# The test settings switch it off so a developer's .env never changes a test run.
if env.bool("READ_DOT_ENV", default=True):
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (there is no default secret).")
    # Development only: a fresh random key per process, never a shared default.
    SECRET_KEY = get_random_secret_key()

# The key of annotators' pseudonyms (accounts/pseudonyms.py). Set it on its own
# so that rotating SECRET_KEY does not rename every annotator in later exports.
PSEUDONYM_SECRET = env.str("PSEUDONYM_SECRET", default="") or SECRET_KEY

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Reverse proxies in front of the site, each appending to X-Forwarded-For. At 0
# the client address is REMOTE_ADDR. Login lockouts and API rate limits count
# per client address, so set it behind a proxy (docs/deployment.md).
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "import_export",
    "csp",
    "axes",
    "accounts",
    "studies",
    # Where calls on a researcher's behalf may go, and the keys they carry (docs/deployment.md).
    "outbound",
    "annotations",
    "reports",
    "qualification",
    "exports",
    "api",
    # Protocols (docs/architecture.md): each registers itself in its AppConfig.ready().
    "protocols.span",
    "protocols.rating",
    "protocols.review",
    "protocols.pairwise",
    "protocols.translation",
    "evaluators",
    "crowd",
    # Other tools' annotation files in and out (docs/interop.md).
    "interop",
    # The researcher console over the admin (docs/console.md).
    "console",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "falte_site.csp.SitePolicyMiddleware",  # django-csp's, with the header built once
    # Static files answer here, before sessions and the database are touched. Below the
    # CSP middleware so that they carry the policy too (an SVG opened on its own is a page).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and API answers compressed on the fly (static files come precompressed from
    # WhiteNoise above). Not for logged-in answers: BREACH, see docs/decisions.md.
    "falte_site.compression.AnonymousGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "annotations.middleware.PageMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so that it turns a lockout raised anywhere inside into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# django-axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "falte_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "falte_site.wsgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Persistent connections: a gunicorn worker keeps its connection for this many seconds
# instead of opening one per request (a new PostgreSQL backend costs more CPU than a save:
# docs/benchmarks.md, "A span save against a bare psycopg loop"). Off under DEBUG: the
# development server starts a thread per request, each of which would keep its own.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0 if DEBUG else 60))
# A reused connection is pinged (SELECT 1) before each request's first query, so a database
# restart costs no failed request; off by default, as the ping is a round trip on every request
# and the page's save queue retries a save that failed (docs/deployment.md).
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", env.bool("CONN_HEALTH_CHECKS", default=False))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Values sent apart from the SQL (server-side binding), and a statement sent 5 times on one
    # connection prepared, so PostgreSQL parses and plans the hot writes (a save's UPDATE and
    # INSERT) once per connection, not on every save. An operator behind a pooler in transaction
    # mode that cannot keep prepared statements sets DATABASE_PREPARE_THRESHOLD to an empty
    # value (docs/deployment.md).
    prepare_threshold = env.str("DATABASE_PREPARE_THRESHOLD", default="5")
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": True,
        "prepare_threshold": int(prepare_threshold) if prepare_threshold else None,
        **DATABASES["default"].get("OPTIONS", {}),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite has one writer at a time, and `select_for_update` is a no-op on it. With Django's
    # default deferred BEGIN, a transaction that reads and then writes (every save: lock the
    # assignment, check, insert) asks for the write lock only at its first write; if another
    # connection wrote meanwhile SQLite answers "database is locked" at once, without waiting.
    # IMMEDIATE takes the write lock at BEGIN, so transactions queue for it (up to `timeout`
    # seconds, below gunicorn's 30 s worker timeout) and run one after another, which is what
    # the row locks give on PostgreSQL. WAL lets readers go on while one connection writes, and
    # synchronous=NORMAL is durable in WAL mode except for the last commits on a power cut.
    # Writes outside atomic blocks are single statements that also wait for the lock.
    # Options given in DATABASE_URL (?timeout=...) win.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        **DATABASES["default"].get("OPTIONS", {}),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# What every page shares (the worker stylesheet, the save queue); each app keeps its own in <app>/static/.
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# gunicorn serves the static files itself (WhiteNoise): `collectstatic` writes them with
# hashed names and gzip/brotli copies; hashed files are cached for a year
# (docs/deployment.md). With DEBUG on, `{% static %}` gives plain names and WhiteNoise
# reads the apps' directories, so `runserver` needs no collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "falte_site.staticfiles.HashedStaticStorage"},
}
# The unhashed copies stay: a page cached before a deploy may still ask for them.
WHITENOISE_KEEP_ONLY_HASHED_FILES = False

# Export files made by background jobs; served only through an authenticated view.
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "media")
# An annotation export with more rows than this runs as a background job.
EXPORT_STREAM_MAX_ROWS = env.int("EXPORT_STREAM_MAX_ROWS", default=200_000)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # JSON bodies are checked for depth, NUL and lone surrogates (falte_site/json_input.py).
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.CheckedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Per client address (anonymous), per user, and failed API tokens per address
    # (api/authentication.py); docs/api.md, "Rate limits".
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_THROTTLE_ANON", default="60/minute"),
        "user": env.str("API_THROTTLE_USER", default="1200/minute"),
        "failed_token": env.str("API_THROTTLE_FAILED_TOKEN", default="30/minute"),
    },
    # Proxies in front of the site: the client address is then taken from X-Forwarded-For.
    "NUM_PROXIES": NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "FALTE platform API",
    "DESCRIPTION": "Studies, documents, assignments, annotations and reports (docs/api.md).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge image from validator.swagger.io: the page loads nothing from another origin.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# Study bundle uploads and imports: a file over this size is refused whole.
BUNDLE_MAX_FILE_BYTES = env.int("BUNDLE_MAX_FILE_BYTES", default=512 * 1024 * 1024)
# Uploads in admin must import within gunicorn's 30 s timeout: a bigger upload (or
# unpacked bundle) is refused before any work, pointing to `manage.py import_study`.
BUNDLE_WEB_MAX_BYTES = env.int("BUNDLE_WEB_MAX_BYTES", default=16 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=10 * 1024 * 1024)

# Public base URL used when printing task links (e.g. "https://eval.example.org").
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")
_scheme, _, _rest = SITE_URL.partition("://")
if (
    _scheme not in ("http", "https")
    or not _rest.split("/")[0]
    or any(c.isspace() or c == "\\" for c in SITE_URL)
):
    raise ImproperlyConfigured(f"SITE_URL must be an absolute http(s) URL, not {SITE_URL!r}.")

# Crowd platforms (docs/crowd-platforms.md). Tokens and keys are read from the
# environment by the clients when they are used: PROLIFIC_API_TOKEN, and for
# Mechanical Turk the standard AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
PROLIFIC_API_URL = env.str("PROLIFIC_API_URL", default="https://api.prolific.com")
if urlsplit(PROLIFIC_API_URL).scheme not in ("http", "https") or not urlsplit(PROLIFIC_API_URL).hostname:
    raise ImproperlyConfigured(f"PROLIFIC_API_URL must be an absolute http(s) URL, not {PROLIFIC_API_URL!r}.")

# Calls the platform makes on a researcher's behalf (outbound/; docs/deployment.md, "Outbound calls
# and keys"). Loopback, private, link-local and metadata addresses are refused unless listed here, by
# name, address or network, each optionally with a port: e.g. "gpu-box:8000,10.1.0.0/16".
OUTBOUND_ALLOWED_HOSTS = env.list("OUTBOUND_ALLOWED_HOSTS", default=[])
# Environment variables whose keys evaluators may send, and to which hosts (and for which teams):
# "OPENAI_API_KEY=api.openai.com LAB_KEY=llm.lab.example.org:8000@lab-a". Empty: none.
EVALUATOR_KEY_VARIABLES = env.str("EVALUATOR_KEY_VARIABLES", default="")
# Fernet keys that encrypt the keys researchers store for their studies: the first encrypts, all
# decrypt (rotation: new key first, `manage.py rotate_credentials`, then drop the old one).
CREDENTIALS_KEYS = env.list("CREDENTIALS_KEYS", default=[])
# The longest prompt an LLM evaluator sends for one document (characters); longer ones are refused
# per document, and rendering stops once a template has produced far more than this.
EVALUATOR_PROMPT_MAX_CHARS = env.int("EVALUATOR_PROMPT_MAX_CHARS", default=400_000)

# Celery: with no broker configured, tasks run eagerly in-process.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
# With no broker, a long job a web request asks for (an evaluator run) runs on a thread of the web
# process, so the request answers at once; a process that dies leaves the job to the stale pass.
EAGER_JOBS_IN_BACKGROUND = env.bool("EAGER_JOBS_IN_BACKGROUND", default=True)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_TASK_SERIALIZER = "json"
# On Redis a job not acknowledged within this many seconds goes to another worker, even if
# the first is still running it (acks are late, above): keep it above the longest job.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
# A running report whose job gave no sign of life for this long is sent again.
REPORT_STALE_SECONDS = env.int("REPORT_STALE_SECONDS", default=120)
# A report of a study with more documents than this is computed in parts of this many
# documents, on as many Celery workers as are free, and merged (reports/parts.py).
REPORT_PART_DOCUMENTS = env.int("REPORT_PART_DOCUMENTS", default=1000)
# An evaluator run with no stored document for this long is taken to have lost its worker.
EVALUATOR_STALE_SECONDS = env.int("EVALUATOR_STALE_SECONDS", default=300)
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-reports": {"task": "reports.tasks.reports_requeue_stale_task", "schedule": 60.0},
    "requeue-stale-evaluator-runs": {
        "task": "evaluators.tasks.evaluator_runs_requeue_stale_task",
        "schedule": 60.0,
    },
}
CELERY_ACCEPT_CONTENT = ["json"]

# The API's rate limits (api/throttling.py) count in the default cache, so it must be one
# that every web process shares: a cache in each process's memory lets each gunicorn worker
# count on its own. CACHE_URL if given; else the Celery broker's Redis, under a key prefix
# of its own; else the database, in a table made by `migrate` (api/migrations). Nothing but
# the API's throttles uses it (docs/deployment.md, "The cache"; docs/decisions.md).
if env.str("CACHE_URL", default=""):
    CACHES = {"default": env.cache("CACHE_URL")}
elif urlsplit(CELERY_BROKER_URL).scheme in ("redis", "rediss"):
    CACHES = {
        "default": {
            "BACKEND": "api.cache.BrokerRedisCache",
            "LOCATION": CELERY_BROKER_URL,
            "KEY_PREFIX": "falte-cache",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "api_cache"}}

CSRF_FAILURE_VIEW = "falte_site.views.csrf_failure"

# The task page reports active time this often (seconds).
TASK_ACTIVITY_INTERVAL_SECONDS = env.int("TASK_ACTIVITY_INTERVAL_SECONDS", default=15)

# Security: safe defaults everywhere, strict ones when DEBUG is off.
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the worker page's JS reads it for its JSON API
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Content-Security-Policy (django-csp) on every answer: scripts only from files
# of this site, nothing from another origin. Style attributes stay allowed: the
# admin, Swagger UI and the category colours of the worker pages use them
# (docs/decisions.md). Forms post here, or to Mechanical Turk's hand-off
# (annotations/selectors.py MTURK_SUBMIT_HOSTS).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF, "https://www.mturk.com", "https://workersandbox.mturk.com"],
    },
}

# Login lockouts (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one
# username from one client address, that pair is refused for the cool-off.
# `manage.py axes_reset_username NAME` lifts it early (docs/deployment.md).
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "api.throttling.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}
