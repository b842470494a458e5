"""The production shape, checked end to end: every page of every persona, served for real.

Run from the repository root:  python bench/production.py   (``make prodcheck``)

It starts a private stack (bench/loadsite/stack.py: a throwaway PostgreSQL cluster,
a private Redis, gunicorn and a Celery worker) configured only by the environment
variables docs/deployment.md's "Production shape" sets, with the real settings
module (``config.settings``, DEBUG off), then runs its commands:

    python manage.py migrate
    python manage.py collectstatic --no-input     (whitenoise's compressed manifest)
    python manage.py seed_demo                    (the demo personas and their data)
    gunicorn config.wsgi ...

and crawls the site in Chromium, once anonymous and once signed in as each demo
persona and an admin, from the home page and the main menu's entry points along
every same-site link it finds (a few pages of each URL shape). It fails on:

* any page answering 5xx, or a link the site rendered that answers 4xx;
* any asset a page references (scripts, styles, icons, images, fonts) that does
  not answer 200, whether the browser loaded it or not;
* any content security policy violation the browser reports, and any script error;
* /healthz/ or /readyz/ not answering 200 with everything up;
* /metrics answering without METRICS_TOKEN, or not in Prometheus' format with it;
* any line gunicorn, the worker or beat logged that is not a JSON object with the
  required keys (bench/logscan.py), and any secret of the run in any line: passwords,
  API keys, a calendar feed's address, SECRET_KEY, METRICS_TOKEN. It asks for a feed
  and an API page with a key in the query string, so the access log meets them.

It prints what it crawled and every problem, and exits non-zero on any problem.
"""

import argparse
import json
import os
import re
import sys
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.loadsite.stack import PROXY_HEADERS, Stack
from bench.logscan import scan_logs

PASSWORD = "prod-check-" + "pw"
METRICS_TOKEN = "prod-check-metrics-" + os.urandom(8).hex()
REQUEST_ID = "prodcheck-0000-request"
ADMIN = "prod-admin"
PERSONAS = [
    None, "demo-recruiter", "demo-lead", "demo-hiring-manager", "demo-interviewer-1",
    "demo-interviewer-2", ADMIN,
]  # fmt: skip
# Where each persona's journeys start; links found on the pages lead everywhere else.
ENTRY_POINTS = [
    "/", "/login/", "/bank/", "/candidates/", "/loops/", "/interviews/", "/calibration/",
    "/calibration/exercises/", "/audit/", "/api/docs/", "/admin/",
]  # fmt: skip
# Each URL shape (the path, digits as N) is crawled at most this many times per persona.
PER_SHAPE = 2
# A safety stop; reaching it is a problem (the crawl would be incomplete).
MAX_PAGES = 600
# Links that change state or sign out are left alone (Django signs out by POST anyway).
SKIP = re.compile(r"^/(logout/|admin/logout/|api/schema/|static/)")
ASSET_SELECTOR = "script[src], link[rel~=stylesheet][href], link[rel~=icon][href], img[src]"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@dataclass
class Crawl:
    persona: str
    pages: dict[str, int] = field(default_factory=dict)
    assets: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.persona}: {text}")


def shape(path: str) -> str:
    """Return the URL's shape: its path, digits as N, query left out (sort and filter links)."""
    return re.sub(r"\d+", "N", urlsplit(path).path)


def environment(stack: Stack) -> dict[str, str]:
    """docs/deployment.md's production variables, on the private stack's addresses."""
    assert stack.redis is not None
    return {
        "DEBUG": "False",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CSRF_TRUSTED_ORIGINS": stack.base_url,
        "SITE_URL": stack.base_url,
        "CACHE_URL": stack.redis.url(2),
        "STATIC_ROOT": str(stack.base / "staticfiles"),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        # Structured logs, every request's access line among them (bench/logscan.py).
        "LOG_LEVEL": "INFO",
        "LOG_FORMAT": "json",
        "METRICS_TOKEN": METRICS_TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(stack.base / "prometheus"),
    }


def fetch(stack: Stack, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"{stack.base_url}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def secrets_used(stack: Stack) -> list[str]:
    """Make a calendar feed and an API key for a demo persona, ask for both through
    gunicorn (the feed, a wrong feed, an API page with the key in its query string) and
    return every secret of the run."""
    made = json.loads(
        stack.python(
            "import json\n"
            "from django.contrib.auth.models import User\n"
            "from core.accounts.tokens import token_issue\n"
            "from core.accounts.services import calendar_feed_reset\n"
            "user = User.objects.get(username='demo-interviewer-1')\n"
            "print(json.dumps({'feed': calendar_feed_reset(user=user),"
            " 'key': token_issue(user=user).key}))"
        )
        .strip()
        .splitlines()[-1]
    )
    feed, key = made["feed"], made["key"]
    wrong_feed = "NotTheFeed" + feed[10:]
    for path, headers in (
        (f"/calendar/{feed}.ics", {}),
        (f"/calendar/{wrong_feed}.ics", {}),
        (f"/api/v1/interviews/?token={key}", {"Authorization": f"Token {key}"}),
    ):
        fetch(stack, path, {**PROXY_HEADERS, **headers})
    return [PASSWORD, stack.env["SECRET_KEY"], METRICS_TOKEN, feed, wrong_feed, key]


def check_metrics_and_request_ids(stack: Stack) -> list[str]:
    problems = []
    status, _, _ = fetch(stack, "/metrics", {})
    if status != 401:
        problems.append(f"/metrics without the token answered {status}, not 401")
    auth = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    status, headers, body = fetch(stack, "/metrics", auth)
    if status != 200 or b"http_requests_total{" not in body:
        problems.append(f"/metrics with the token answered {status}: {body[:300]!r}")
    status, headers, _ = fetch(stack, "/healthz/", {"X-Request-ID": REQUEST_ID})
    if headers.get("X-Request-ID") != REQUEST_ID:
        problems.append(f"X-Request-ID was not echoed: {headers.get('X-Request-ID')!r}")
    return problems


def probe(stack: Stack, path: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"{stack.base_url}{path}", timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def sign_in(page, base: str, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("button[type=submit]")
    if urlsplit(page.url).path == "/login/":
        raise RuntimeError(f"{username} could not sign in")


def crawl(browser, base: str, persona: str | None) -> Crawl:  # type: ignore[no-untyped-def]
    result = Crawl(persona or "anonymous")
    context = browser.new_context(
        # As behind the TLS-terminating proxy production has (else: a redirect to https).
        extra_http_headers=PROXY_HEADERS,
        viewport={"width": 1280, "height": 900},
    )
    page = context.new_page()
    console: list[str] = []
    page.on(
        "console",
        lambda m: m.type == "error" and console.append(m.text),
    )
    page.on("pageerror", lambda exc: console.append(f"script error: {exc}"))
    loaded: dict[str, int] = {}
    page.on("response", lambda r: loaded.__setitem__(r.url, r.status))
    if persona:
        sign_in(page, base, persona)
    queue = [(path, "entry point") for path in ENTRY_POINTS]
    seen: set[str] = set()
    shapes: dict[str, int] = defaultdict(int)
    while queue and len(result.pages) < MAX_PAGES:
        path, found_on = queue.pop(0)
        if path in seen or SKIP.match(path) or shapes[shape(path)] >= PER_SHAPE:
            continue
        seen.add(path)
        shapes[shape(path)] += 1
        answer = context.request.get(base + path, max_redirects=5)
        result.pages[path] = answer.status
        if answer.status >= 500:
            result.problem(f"{path} answered {answer.status} (linked from {found_on})")
            continue
        if answer.status >= 400:
            if found_on != "entry point":
                result.problem(f"{path} answered {answer.status} (linked from {found_on})")
            continue
        if "text/html" not in answer.headers.get("content-type", ""):
            continue  # a download: CSV, Markdown, JSON
        console.clear()
        loaded.clear()
        page.goto(base + path, wait_until="load")
        here = urlsplit(page.url).path
        for message in console:
            result.problem(f"{here}: {message}")
        for url, status in loaded.items():
            if status != 200 and urlsplit(url).path.startswith("/static/"):
                result.problem(f"{here}: asset {urlsplit(url).path} answered {status}")
        assets = page.eval_on_selector_all(ASSET_SELECTOR, "els => els.map(e => e.src || e.href)")
        for url in assets:
            if urlsplit(url).netloc != urlsplit(base).netloc:
                result.problem(f"{here}: asset from another site {url}")
                continue
            if url not in result.assets:
                result.assets[url] = context.request.get(url).status
            if result.assets[url] != 200:
                result.problem(f"{here}: asset {urlsplit(url).path} answered {result.assets[url]}")
        links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        for url in links:
            parts = urlsplit(urljoin(page.url, url))
            if parts.netloc == urlsplit(base).netloc and parts.scheme in ("http", "https"):
                target = parts.path + (f"?{parts.query}" if parts.query else "")
                if target not in seen:
                    queue.append((target, here))
    if queue and len(result.pages) >= MAX_PAGES:
        result.problem(f"stopped at {MAX_PAGES} pages with links left: the crawl is incomplete")
    context.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    problems: list[str] = []
    with Stack("production") as stack:
        stack.up(database="ik_production")
        stack.env.update(environment(stack))
        Path(stack.env["PROMETHEUS_MULTIPROC_DIR"]).mkdir()
        for command in (
            ["migrate", "--no-input"],
            ["collectstatic", "--no-input"],
            ["seed_demo", "--password", PASSWORD],
        ):
            print(f"manage.py {' '.join(command)}", flush=True)
            stack.manage(*command)
        stack.python(
            "from django.contrib.auth.models import User\n"
            f"User.objects.create_superuser({ADMIN!r}, 'admin@example.com', {PASSWORD!r})"
        )
        manifest = Path(stack.env["STATIC_ROOT"]) / "staticfiles.json"
        if not manifest.exists():
            problems.append("collectstatic wrote no manifest (staticfiles.json)")
        worker = stack.worker()
        stack.beat()
        stack.gunicorn(workers=args.workers)
        stack.wait_worker_ready(worker)
        secrets = secrets_used(stack)
        problems.extend(check_metrics_and_request_ids(stack))
        for path in ("/healthz/", "/readyz/"):
            status, body = probe(stack, path)
            print(f"{path}: {status} {json.dumps(body)}")
            if status != 200:
                problems.append(f"{path} answered {status}: {body}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            for persona in PERSONAS:
                result = crawl(browser, stack.base_url, persona)
                errors = sum(status >= 400 for status in result.pages.values())
                print(
                    f"{result.persona}: {len(result.pages)} pages ({errors} answered 4xx), "
                    f"{len(result.assets)} assets, {len(result.problems)} problems",
                    flush=True,
                )
                problems.extend(result.problems)
            browser.close()
        web_log = "\n".join(p.output() for p in stack.procs if p.name == "gunicorn")
        if "Traceback" in web_log:
            problems.append(f"gunicorn logged a traceback:\n{web_log[-3000:]}")
        # Before the stack stops: Celery prints its shutdown notice outside logging.
        logs = {p.name: p.output() for p in stack.procs if p.name in ("gunicorn", "worker", "beat")}
        if REQUEST_ID not in logs["gunicorn"]:
            problems.append("gunicorn's access log does not name the request id it was sent")
        problems.extend(scan_logs(logs, secrets))
        print(f"logs: {sum(len(t.splitlines()) for t in logs.values())} lines scanned", flush=True)
    print(f"\n{len(problems)} problems in {time.monotonic() - started:.0f} s")
    for line in problems:
        print(f"  {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
