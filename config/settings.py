"""Settings for the interview kit service, read from the environment only.

With nothing set, the site runs for development: SQLite file, DEBUG on, Celery
tasks executed eagerly in-process. Production sets DEBUG=False, SECRET_KEY,
ALLOWED_HOSTS, DATABASE_URL and CELERY_BROKER_URL (see docs/deployment.md and docs/settings.md).
"""

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from config.env import email_settings, envbool, envint, envlist, envsecret
from core.logs import log_format

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = envbool("DEBUG", "True")

SECRET_KEY = envsecret("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")
SITE_NAME = os.getenv("SITE_NAME", "Interview Kit")
# Absolute address of the site, for links in emails (`make run` sets it from its HOST).
SITE_URL = os.getenv("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.postgres",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "core",
    "kit",
    "interviews",
    "scoring",
]

MIDDLEWARE = [
    # The request id (X-Request-ID) for every line the request logs, and its metrics.
    "core.logs.RequestIdMiddleware",
    "core.metrics.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Pages in the viewer's time zone (core/accounts/zones.py); the API in UTC.
    "core.accounts.zones.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.http.security.ContentSecurityPolicyMiddleware",
    # A body over DATA_UPLOAD_MAX_MEMORY_SIZE answers 413 from its Content-Length, before
    # the CSRF check or a view reads it (the site's headers still go out on the 413).
    "core.http.middleware.RequestSizeLimitMiddleware",
    # A view failing because PostgreSQL is unreachable answers 503 + Retry-After, not 500;
    # a malformed query parameter or a query too large for the database, 400 (not 500).
    "core.http.middleware.DatabaseUnavailableMiddleware",
    # A POST with an Idempotency-Key answers its first answer again on a retry
    # (core/api/idempotency.py), Location included: so it wraps the next one.
    "core.api.idempotency.IdempotencyMiddleware",
    # An API 201/202 names what it made (Location).
    "core.http.middleware.CreatedLocationMiddleware",
    # Axes must come last so it sees the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

# The largest request body accepted (bytes); a larger one is refused with 413 before it
# is read (core/http/middleware.py). The site takes no file uploads: its biggest bodies are
# a question's text and a scorecard's notes. Django's own default, 2.5 MB.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "core.context_processors.personas",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.getenv("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("CONN_MAX_AGE", 60),
        # Check a persistent connection before reuse, so a PostgreSQL restart
        # costs a few failed requests rather than a broken pool.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run` writes from the web server and a Celery worker at once: WAL lets readers
    # go on beside a writer, a writer waits up to 20 s for another's lock instead of
    # failing at once with "database is locked", and a transaction takes the write lock
    # when it begins (IMMEDIATE), not when a read in it turns into a write, which SQLite
    # refuses at once whatever the timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.getenv("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.getenv("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}


globals().update(email_settings())
DEFAULT_FROM_EMAIL = os.getenv("DEFAULT_FROM_EMAIL", "interview-kit@localhost")

# Security: production (DEBUG off) gets HTTPS-only cookies, HSTS and redirects.
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", str(not DEBUG))
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Orchestrators probe over plain HTTP inside the cluster (core/http/health.py).
SECURE_REDIRECT_EXEMPT = [r"^healthz/$", r"^readyz/$", r"^metrics$"]
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Pages load scripts and styles from this site only and run no inline script
# (data for charts travels in <script type="application/json">, which is not run).
CONTENT_SECURITY_POLICY = os.getenv(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'",
)

# The client's address, for the API's rate limits and the sign-in lockout: the number of
# reverse proxies in front of the app, each appending its peer to X-Forwarded-For. 0 (the
# default) ignores the header and uses REMOTE_ADDR; N uses the Nth entry from the right,
# so whatever a caller writes to the left of it changes nothing (core/http/client_address.py).
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", 0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXY_COUNT={TRUSTED_PROXY_COUNT} must be 0 or more")

# Login lockout: five failures for a username from one address lock it for an hour.
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = 1
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.http.client_address.client_ip"
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"

# API tokens (core/accounts/tokens.py) expire this many days after they are issued, and stop
# working as soon as their user's password changes.
API_TOKEN_TTL_DAYS = envint("API_TOKEN_TTL_DAYS", 30)
if API_TOKEN_TTL_DAYS < 1:
    raise ImproperlyConfigured(f"API_TOKEN_TTL_DAYS={API_TOKEN_TTL_DAYS} must be 1 or more")

REST_FRAMEWORK = {
    # The token first: a caller with no credentials gets its challenge, 401 with
    # WWW-Authenticate, rather than the 403 a session-first order answers.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.accounts.tokens.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # JSON bodies only: one media type per request body in the schema, so generated
    # clients send JSON (form and multipart gave them three to choose from).
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.Pages",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "core.http.client_address.AnonRateThrottle",
        "core.http.client_address.UserRateThrottle",
    ],
    # The same count for any DRF throttle that does not go through core.http.client_address.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.getenv("API_ANON_RATE", "60/minute"),
        "user": os.getenv("API_USER_RATE", "6000/minute"),
    },
}

# Every API error as RFC 9457 problem details (core/api/problems.py), DEBUG or not.
DRF_STANDARDIZED_ERRORS = {
    "EXCEPTION_FORMATTER_CLASS": "core.api.exceptions.ProblemFormatter",
    "ENABLE_IN_DEBUG_FOR_UNHANDLED_EXCEPTIONS": True,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Interview Kit API",
    "DESCRIPTION": "Question bank, interview loops, scorecards and panel calibration.",
    "VERSION": "1.0.0",
    "CONTACT": {"name": "The team that runs this Interview Kit"},
    # One tag per resource, each described (the operations take theirs from the path).
    "TAGS": [
        {"name": "auth", "description": "API tokens: create or replace yours."},
        {"name": "roles", "description": "The roles questions and loops are for."},
        {"name": "levels", "description": "The levels of the ladder, lowest rank first."},
        {"name": "competencies", "description": "What a question probes, per role."},
        {"name": "questions", "description": "The question bank, versioned on edit."},
        {"name": "loop-templates", "description": "Interview plans per role and level."},
        {"name": "candidates", "description": "Candidates, their export and erasure."},
        {"name": "loops", "description": "Loops: build, debrief, decide, cancel, reopen."},
        {"name": "interviews", "description": "A loop's interviews: times, panels, questions."},
        {"name": "scorecards", "description": "Scorecards: draft, submit, amend."},
        {"name": "calibration", "description": "Calibration snapshots and runs."},
        {"name": "webhooks", "description": "Subscriptions for an ATS and their deliveries."},
        {"name": "pools", "description": "Interviewer pools per slot, competency or levels."},
        {"name": "pool-memberships", "description": "Who is qualified or training in a pool."},
        {"name": "interviewer-limits", "description": "Interviews a day and week, hours."},
        {"name": "training-paths", "description": "A pool's shadows, reverse shadows, checks."},
        {"name": "training-seats", "description": "A trainee's seats and their sign-offs."},
    ],
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Operation ids and tags from the path after /api/v1/: `scorecards_submit`, tag
    # `scorecards`, not `v1_scorecards_submit_create` under one tag `v1`.
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": "/api/v1", "description": "This server"}],
    "ENUM_NAME_OVERRIDES": {
        "QuestionStatusEnum": "kit.models.Question.Status",
        "LoopStatusEnum": "interviews.models.Loop.Status",
        "ScorecardStatusEnum": "scoring.models.Scorecard.Status",
        "CalibrationJobStatusEnum": "scoring.models.CalibrationJob.Status",
        "PoolMembershipStatusEnum": "interviews.pools.models.PoolMembership.Status",
        "TrainingSeatKindEnum": "interviews.pools.models.TrainingSeat.Kind",
        "RubricItemKindEnum": "kit.models.RubricItem.Kind",
        "TrainingSeatOutcomeEnum": "interviews.pools.models.TrainingSeat.Outcome",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # Idempotency-Key, Location, ETag and If-Match where they apply (their 412, 422).
        "core.api.openapi.add_http_conventions",
        # Every operation's error responses and their bodies (see core/api/openapi.py).
        "core.api.openapi.add_error_responses",
        # A type beside every nullable, as OpenAPI 3.0 asks (Redocly's lint).
        "core.api.openapi.type_nullable_schemas",
        # Every member of a response component is sent, so every one is required.
        "core.api.openapi.require_response_fields",
        # A summary per operation and an example per success response (core/api/openapi_docs.py).
        "core.api.openapi_docs.add_summaries_and_examples",
    ],
}

# The API's rate-limit counts. With its Redis unreachable, calls fall back to each
# process's memory and the outage is logged, never raised (core/cache.py).
CACHES = {
    "default": (
        {
            "BACKEND": "core.cache.FallbackRedisCache",
            "LOCATION": os.getenv("CACHE_URL"),
        }
        if os.getenv("CACHE_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Celery. No broker configured means tasks run eagerly in-process (tests, manage.py).
# `make run` (core/embedded.py) sets CELERY_BROKER_URL=filesystem:// for its web server,
# worker and beat: kombu's file-system transport, its messages files under var/broker/.
# Webhook targets on loopback, private, link-local or reserved addresses are refused when
# subscribing and at each delivery (SSRF), unless this is on (a receiver on the LAN).
WEBHOOK_ALLOW_PRIVATE_TARGETS = envbool("WEBHOOK_ALLOW_PRIVATE_TARGETS", "False")

CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
EMBEDDED_BROKER = CELERY_BROKER_URL.startswith("filesystem:")
EMBEDDED_BROKER_FOLDER = BASE_DIR / "var" / "broker"
# The broker keeps results too (Redis), except the file system's, which cannot.
CELERY_RESULT_BACKEND = os.getenv(
    "CELERY_RESULT_BACKEND", None if EMBEDDED_BROKER else CELERY_BROKER_URL or None
)
if CELERY_TASK_ALWAYS_EAGER:
    # Nothing is published in eager mode, but kombu still builds a connection for the
    # empty URL and logs "No hostname was supplied"; the in-memory transport needs none.
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_EXTENDED = True
# Nothing reads a task's return value (a calibration's progress is on its job row),
# and publishing must not depend on the result store: with Redis down, subscribing
# to each new task's result made a scorecard submission wait ~20 s before failing.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE
# A task is acknowledged only when it has finished, and a worker child killed
# mid-run (OOM, SIGKILL) puts it back on the queue instead of losing it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A whole worker that dies gets its unacknowledged task redelivered after this
# many seconds (Redis transport). It must exceed the longest task's run time.
# Workers look for such tasks every CELERY_RESTORE_INTERVAL seconds: kombu's default
# (a scan every 10 s x 10) added up to 100 s to each redelivery (bench/faults.py).
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, int | str] = {
    "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 900),
    "unacked_restore_interval": envint("CELERY_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": 1,
}
if EMBEDDED_BROKER:
    # One folder both ways: every process writes its messages where the worker reads them.
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(EMBEDDED_BROKER_FOLDER),
        "data_folder_out": str(EMBEDDED_BROKER_FOLDER),
        "control_folder": str(EMBEDDED_BROKER_FOLDER / "control"),
    }
    # The console's emails print as they are, not each as a WARNING log line.
    CELERY_WORKER_REDIRECT_STDOUTS = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Where beat keeps when each entry last ran (a shelve file; losing it only means the
# schedule starts afresh). Not the working directory: var/, kept in the repository
# empty, or a writable path of the deployment's choosing.
CELERY_BEAT_SCHEDULE_FILENAME = os.getenv(
    "CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "var" / "celerybeat-schedule")
)
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "calibrate-nightly": {
        "task": "scoring.tasks.calibrate_all_task",
        "schedule": crontab(hour=2, minute=30),
    },
    "scorecard-reminders": {
        "task": "scoring.tasks.reminders_task",
        "schedule": crontab(minute="*/15"),
    },
    "publish-stranded-calibration-jobs": {
        "task": "scoring.tasks.sweep_calibration_jobs_task",
        "schedule": 60.0,
    },
    # Webhook retries too long to leave with the broker, and deliveries stranded.
    "publish-due-webhook-deliveries": {
        "task": "core.webhooks.tasks.webhook_sweep_task",
        "schedule": 60.0,
    },
    # Emails whose worker was down when they were queued.
    "send-stranded-emails": {
        "task": "core.outbox.tasks.email_sweep_task",
        "schedule": 300.0,
    },
}
# Scorecard reminders: first one this long after the interview ends, then at this interval.
SCORECARD_REMINDER_AFTER_HOURS = envint("SCORECARD_REMINDER_AFTER_HOURS", 24)
SCORECARD_REMINDER_EVERY_HOURS = envint("SCORECARD_REMINDER_EVERY_HOURS", 24)
# Submissions within this many seconds share one calibration run.
CALIBRATION_COLLAPSE_SECONDS = envint("CALIBRATION_COLLAPSE_SECONDS", 10)
# Severities, their flags and intervals describe this many months up to the scope's
# newest interview; the change is from the as many months before (docs/calibration.md).
CALIBRATION_PERIOD_MONTHS = envint("CALIBRATION_PERIOD_MONTHS", 12)
if CALIBRATION_PERIOD_MONTHS < 1:
    raise ImproperlyConfigured(
        f"CALIBRATION_PERIOD_MONTHS={CALIBRATION_PERIOD_MONTHS} must be 1 or more"
    )

# Logs (core/logs.py; docs/deployment.md): one line per event, JSON by default with
# DEBUG off (LOG_FORMAT=json|logfmt|text), each with its request id and user id, secrets
# redacted. LOG_LEVEL (default INFO) is the root level, for the web, the worker and beat.
LOG_LEVEL = os.getenv("LOG_LEVEL", "INFO").strip().upper()
LOG_FORMAT = log_format(debug=DEBUG)
LOGGING_CONFIG = "core.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "core.logs.ContextFilter"}},
    "formatters": {"site": {"()": "core.logs.LogFormatter", "fmt": LOG_FORMAT}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            "formatter": "site",
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "axes": {"level": "WARNING"},
        # Eager mode (tests, manage.py): a line per task run in the process says nothing new.
        "celery.app.trace": {"level": "WARNING" if CELERY_TASK_ALWAYS_EAGER else "INFO"},
        # runserver's "Watching for file changes", printed twice (root and django handlers).
        "django.utils.autoreload": {"level": "WARNING"},
        # SQL with its parameters (DEBUG on) would log API keys and webhook secrets as
        # they are written: never below INFO, whatever LOG_LEVEL says.
        "django.db.backends": {"level": "INFO"},
        # Django's own handlers for these would print a second, unformatted line.
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

# /metrics in Prometheus' text format (core/metrics.py), for a scraper holding this bearer
# token; without it the address answers 404. PROMETHEUS_MULTIPROC_DIR (an empty directory
# shared by gunicorn's workers and Celery's on one host) adds every process's counters up.
METRICS_TOKEN = envsecret("METRICS_TOKEN")


# Single sign-on with OpenID Connect (core/accounts/oidc.py; docs/deployment.md). Off unless
# OIDC_RP_CLIENT_ID is set. Everything it adds or changes comes from oidc_settings(), so
# tests build the same settings from an environment of their own.
OIDC_ENABLED = False
PASSWORD_LOGIN = True
OIDC_ENDPOINTS = (
    "OIDC_OP_AUTHORIZATION_ENDPOINT",
    "OIDC_OP_TOKEN_ENDPOINT",
    "OIDC_OP_USER_ENDPOINT",
    "OIDC_OP_JWKS_ENDPOINT",
)


def oidc_settings() -> dict[str, object]:
    """Return the settings single sign-on adds or changes, read from the environment."""
    from urllib.parse import urlsplit

    password_login = envbool("PASSWORD_LOGIN", "True")
    client_id = os.getenv("OIDC_RP_CLIENT_ID", "").strip()
    if not client_id:
        if not password_login:
            raise ImproperlyConfigured(
                "PASSWORD_LOGIN=False needs single sign-on (OIDC_RP_CLIENT_ID and the "
                "provider's settings), or nobody could sign in"
            )
        return {}
    secret = envsecret("OIDC_RP_CLIENT_SECRET").strip()
    if not secret:
        raise ImproperlyConfigured(
            "OIDC_RP_CLIENT_SECRET (or OIDC_RP_CLIENT_SECRET_FILE) must be set along with "
            "OIDC_RP_CLIENT_ID"
        )
    discovery = os.getenv("OIDC_OP_DISCOVERY_URL", "").strip()
    # Given endpoints win over the discovery document's; without one, all four are needed.
    endpoints = {
        name: os.getenv(name, "").strip() for name in (*OIDC_ENDPOINTS, "OIDC_OP_LOGOUT_ENDPOINT")
    }
    missing = [name for name in OIDC_ENDPOINTS if not endpoints[name]]
    if missing and not discovery:
        raise ImproperlyConfigured(
            f"Single sign-on needs OIDC_OP_DISCOVERY_URL, or else {', '.join(missing)}"
        )
    groups = {
        name: envlist(name, "")
        for name in (
            "OIDC_GROUP_RECRUITER",
            "OIDC_GROUP_INTERVIEWER",
            "OIDC_GROUP_LEAD",
            "OIDC_GROUP_HIRING_MANAGER",
        )
    }
    if not any(groups.values()):
        raise ImproperlyConfigured(
            "Single sign-on needs at least one of OIDC_GROUP_RECRUITER, OIDC_GROUP_INTERVIEWER "
            "and OIDC_GROUP_LEAD: people whose groups map to no role are refused"
        )
    backends = list(AUTHENTICATION_BACKENDS)
    model_backend = "django.contrib.auth.backends.ModelBackend"
    # After axes (its lockout check comes first), before passwords. The OIDC backend is a
    # ModelBackend too, so permissions still work when the password backend is dropped.
    backends.insert(backends.index(model_backend), "core.accounts.oidc.SignInBackend")
    if not password_login:
        backends.remove(model_backend)
    # Signing out posts a form whose answer redirects to the provider: form-action must allow it.
    origins = sorted(
        {
            f"{url.scheme}://{url.netloc}"
            for url in map(urlsplit, [discovery, *endpoints.values()])
            if url.netloc
        }
    )
    return {
        "OIDC_ENABLED": True,
        "PASSWORD_LOGIN": password_login,
        "INSTALLED_APPS": [*INSTALLED_APPS, "mozilla_django_oidc"],
        "AUTHENTICATION_BACKENDS": backends,
        "CONTENT_SECURITY_POLICY": CONTENT_SECURITY_POLICY.replace(
            "form-action 'self'", " ".join(["form-action 'self'", *origins])
        ),
        "OIDC_PROVIDER_NAME": os.getenv("OIDC_PROVIDER_NAME", "").strip() or "your company account",
        "OIDC_RP_CLIENT_ID": client_id,
        "OIDC_RP_CLIENT_SECRET": secret,
        "OIDC_OP_DISCOVERY_URL": discovery,
        **endpoints,
        # The discovery document's issuer is checked; with endpoints given, this one if set.
        "OIDC_OP_ISSUER": os.getenv("OIDC_OP_ISSUER", "").strip(),
        "OIDC_RP_SIGN_ALGO": os.getenv("OIDC_RP_SIGN_ALGO", "").strip() or "RS256",
        "OIDC_RP_SCOPES": os.getenv("OIDC_RP_SCOPES", "").strip() or "openid email profile",
        "OIDC_USERNAME_CLAIM": os.getenv("OIDC_USERNAME_CLAIM", "").strip() or "preferred_username",
        "OIDC_GROUPS_CLAIM": os.getenv("OIDC_GROUPS_CLAIM", "").strip() or "groups",
        **groups,
        # mozilla-django-oidc waits forever for the provider by default.
        "OIDC_TIMEOUT": envint("OIDC_TIMEOUT", 10),
        # For the sign-out redirect's id_token_hint.
        "OIDC_STORE_ID_TOKEN": True,
        # Where a failed sign-in lands (core/accounts/oidc_views.py adds why).
        "LOGIN_REDIRECT_URL_FAILURE": "/oidc/failed/",
    }


globals().update(oidc_settings())
