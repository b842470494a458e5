"""The access matrix's walk: every URL the resolver knows, filled from the world, sent as
each persona in a savepoint that is rolled back, and each answer searched for what the
persona must never read (tests/security/test_access_matrix.py runs it)."""

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote, urlencode

from django.conf import settings
from django.core.cache import cache as django_cache
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from rest_framework.views import APIView

from core.api.exceptions import api_not_found
from tests.security.access_expected import expected_status
from tests.security.conftest import EMAIL, NOTE, PHONE, SUMMARY, World

WRITES = ("POST", "PUT", "PATCH", "DELETE")
SKIPPED_PREFIXES = ("admin/", "static/", "media/")
FORMAT_SUFFIX = re.compile(r"\(\?P<format>|<drf_format_suffix:format>")
PARAMETER = re.compile(r"<(?:\w+:)?(?P<route>\w+)>|\(\?P<(?P<regex>\w+)>")

# The object a path parameter stands for, by the path segment before it.
RESOURCES: dict[str, Callable[[World], int]] = {
    "roles": lambda w: w.role.pk,
    "levels": lambda w: w.level.pk,
    "competencies": lambda w: w.competency.pk,
    "questions": lambda w: w.question.pk,  # a question of interview 1
    "loop-templates": lambda w: w.template.pk,
    "candidates": lambda w: w.candidate.pk,
    "loops": lambda w: w.loop.pk,
    "interviews": lambda w: w.first.pk,  # Ines's interview, Sam shadowing; not Omar's
    "assigned": lambda w: w.item.pk,  # the first question of interview 1
    "scorecards": lambda w: w.cards["ines"].pk,  # submitted (Omar's draft: DRAFT_EXPECTED)
    "runs": lambda w: w.job.pk,
    "exercises": lambda w: w.exercise.pk,  # Olga is the only participant
    "calendar": lambda w: "not-a-feed-token",  # type: ignore[dict-item,return-value]  # a secret, not an id
    "webhooks": lambda w: w.webhook.pk,
    "deliveries": lambda w: w.delivery.pk,  # of the webhook, for Ines's submission
    "pools": lambda w: w.pool.pk,
    "pool-memberships": lambda w: w.membership.pk,  # Sam's, training
    "interviewer-limits": lambda w: w.limits.pk,  # Omar's
    "training-paths": lambda w: w.pool.path.pk,
    "training-seats": lambda w: w.seat.pk,  # Sam's, on interview 1, Ines beside him
    # the pools' pages: /pools/{id}/members/{id}/, /pools/limits/{user}/, /pools/seats/{id}/
    "members": lambda w: w.membership.pk,
    "limits": lambda w: w.limits.user_id,  # Omar's
    "seats": lambda w: w.seat.pk,
}

# Query strings without which a view would only answer "bad request".
QUERY: dict[str, Callable[[World], dict[str, Any]]] = {
    "calibration-latest": lambda w: {"role": w.role.name},
    "calibration-history": lambda w: {"role": w.role.name},
    "interview-alternatives": lambda w: {"item": w.item.pk},
    "scoring:calibration": lambda w: {"role": w.role.pk},
    "scoring:calibration-export": lambda w: {"role": w.role.pk, "table": "interviewers"},
    "scoring:exercise-new": lambda w: {"question": w.question.pk},
    "schema": lambda w: {"format": "json"},
}

# Page forms where an empty body answers 404 (the object to act on is in the body).
BODY: dict[str, Callable[[World], dict[str, Any]]] = {
    "interviews:question-swap": lambda w: {"question": w.question.pk},
    "scoring:calibration-run": lambda w: {"role": w.role.pk},
}
# --- what each persona must never read ------------------------------------------------------

CONTACT = (EMAIL, quote(EMAIL), PHONE)
OMAR_DRAFT = (NOTE["omar"], SUMMARY["omar"])
SUBMITTED = (NOTE["ines"], SUMMARY["ines"], NOTE["pia"], SUMMARY["pia"])
# Whose scorecards of the loop each persona may read (besides their own).
READS_CARDS_OF = {"ines": {"ines", "pia"}, "rita": {"ines", "pia"}}


# A candidate's data export holds everything held about them, drafts included: the
# recruiter answering a data-access request reads them there and nowhere else.
EXPORTS = {"scoring:candidate-export", "candidate-export"}


def forbidden(persona: str, endpoint: str = "") -> tuple[str, ...]:
    """Strings that must not appear in any response the persona gets from `endpoint`."""
    words: tuple[str, ...] = ()
    if persona != "rita":
        words += CONTACT  # contact details: recruiters only
    if persona != "omar" and not (persona == "rita" and endpoint in EXPORTS):
        words += OMAR_DRAFT  # a draft: its author only
    if persona not in READS_CARDS_OF:
        words += SUBMITTED  # blind (Omar, Sam) or not on the loop (Olga, Leo)
    return words


# --- the walk ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    name: str
    route: str
    methods: tuple[str, ...]
    params: tuple[tuple[str, str], ...]  # (keyword, path segment naming its resource)
    drf: bool

    def path(self, world: World, overrides: dict[str, int] | None = None) -> str:
        kwargs = {kw: RESOURCES[segment](world) for kw, segment in self.params}
        kwargs.update(overrides or {})
        path = reverse(self.name, kwargs=kwargs or None)
        match = resolve(path)
        assert match.route == self.route, (self.name, path, match.route, self.route)
        return path

    def url(self, world: World, overrides: dict[str, int] | None = None) -> str:
        query = QUERY[self.name](world) if self.name in QUERY else {}
        path = self.path(world, overrides)
        return f"{path}?{urlencode(query)}" if query else path


def _join(prefix: str, route: str) -> str:
    # As Django's ResolverMatch.route joins them, so resolve() gives the same string.
    return prefix + route.removeprefix("^") if prefix else route


def _walk(
    resolver: URLResolver, prefix: str = "", namespace: str | None = None
) -> Iterator[tuple[str, str | None, URLPattern]]:
    for entry in resolver.url_patterns:
        route = _join(prefix, str(entry.pattern))
        if isinstance(entry, URLResolver):
            inner = namespace
            if entry.namespace:
                inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
            yield from _walk(entry, route, inner)
        else:
            name = entry.name and (f"{namespace}:{entry.name}" if namespace else entry.name)
            yield route, name, entry


def _methods(callback: Any) -> tuple[tuple[str, ...], bool]:
    """GET, plus the write methods the view allows; and whether it is a DRF view."""
    cls = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    actions = getattr(callback, "actions", None)
    if actions is not None:  # a DRF viewset route: its action map, as far as the class allows
        allowed = {m.upper() for m in actions if m in cls.http_method_names}
    elif cls is not None:  # an APIView or a Django class-based view: its handlers
        allowed = {m.upper() for m in cls.http_method_names if hasattr(cls, m)}
    else:  # a function view
        allowed = {"GET", "POST"}
    drf = cls is not None and issubclass(cls, APIView)
    return ("GET", *(m for m in WRITES if m in allowed)), drf


def _params(route: str) -> tuple[tuple[str, str], ...]:
    params = []
    for found in PARAMETER.finditer(route):
        segment = route[: found.start()].rstrip("/").rsplit("/", 1)[-1].lstrip("^")
        params.append((found.group("route") or found.group("regex"), segment))
    return tuple(params)


@cache
def endpoints() -> tuple[Endpoint, ...]:
    """Every URL pattern of the site but the admin, static files and format suffixes."""
    found: dict[tuple[str, str], Endpoint] = {}
    for route, name, pattern in _walk(get_resolver()):
        if route.startswith(SKIPPED_PREFIXES) or FORMAT_SUFFIX.search(route):
            continue
        if pattern.callback is api_not_found:
            continue  # the 404 for paths no API route matches, not an endpoint
        methods, drf = _methods(pattern.callback)
        key = name or route
        # Each DefaultRouter adds an API root at the same path; the first one answers.
        found.setdefault((key, route), Endpoint(key, route, methods, _params(route), drf))
    return tuple(found.values())


def cells() -> set[tuple[str, str]]:
    return {(e.name, m) for e in endpoints() for m in e.methods}


def draft_cells() -> set[tuple[str, str]]:
    return {
        (e.name, m)
        for e in endpoints()
        for m in e.methods
        if any(segment == "scorecards" for _, segment in e.params)
    }


# --- requests -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    status: int
    body: str
    error: str = ""
    location: str = ""


class _Undo(Exception):
    pass


def session_for(world: World, persona: str) -> str | None:
    if persona == "anonymous":
        return None
    client = Client()
    client.force_login(world.users[persona])
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def send(session: str | None, method: str, url: str, body: dict[str, Any] | None = None) -> Outcome:
    """One request with the persona's session, rolled back: the world stays as it was."""
    client = Client(raise_request_exception=False)
    if session:
        client.cookies[settings.SESSION_COOKIE_NAME] = session
    django_cache.clear()  # throttle counters
    outcome = None
    try:
        with transaction.atomic():
            if method == "GET":
                response = client.get(url)
            elif url.startswith("/api/"):
                data = json.dumps(body or {})
                response = client.generic(method, url, data, content_type="application/json")
            else:
                data = urlencode(body or {}, doseq=True)
                response = client.generic(
                    method, url, data, content_type="application/x-www-form-urlencoded"
                )
            raw = b"".join(response.streaming_content) if response.streaming else response.content
            error = ""
            if getattr(response, "exc_info", None):
                error = f"{response.exc_info[0].__name__}: {response.exc_info[1]}"
            outcome = Outcome(
                response.status_code,
                raw.decode("utf-8", "replace"),
                error,
                response.headers.get("Location", ""),
            )
            raise _Undo
    except _Undo:
        pass
    assert outcome is not None
    return outcome


def body_json(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _dicts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _dicts(inner)


def leaks(persona: str, outcome: Outcome, endpoint: str = "") -> list[str]:
    """What the persona read and should not have: forbidden strings, others' scorecards."""
    words = forbidden(persona, endpoint)
    found = [f"contains {word!r}" for word in words if word in outcome.body]
    if endpoint == "schema":
        return found  # its examples (core/api/openapi_docs.py) are made up, not data
    readable = READS_CARDS_OF.get(persona, set()) | {persona}
    for value in _dicts(body_json(outcome.body)):
        if not isinstance(value.get("interviewer"), str):
            continue  # not data: the OpenAPI schema describes these shapes too
        who = value["interviewer"]
        # A scorecard (API shape): only readable ones, and drafts only by their author.
        card = {"ratings", "recommendation"} <= value.keys()
        if card and (who not in readable or (value.get("status") == "draft" and who != persona)):
            found.append(f"scorecard of {who} ({value.get('status')})")
        # An interviewer's row of a calibration snapshot: leads see all, others their own.
        if "leniency" in value and persona != "leo" and who != persona:
            found.append(f"calibration row of {who}")
    return found


def bad_redirect(persona: str, endpoint: Endpoint, outcome: Outcome) -> list[str]:
    """Anonymous visitors are sent to the login page; signed-in people only when logging out."""
    if outcome.status != 302:
        return []
    to_login = outcome.location.startswith(reverse("login"))
    if persona == "anonymous" and not to_login:
        return [f"anonymous redirected to {outcome.location}, not to the login page"]
    if persona != "anonymous" and to_login and endpoint.name != "logout":
        return [f"signed in, yet redirected to the login page ({outcome.location})"]
    return []


def run_matrix(
    world: World,
    persona: str,
    table: dict[tuple[str, str], tuple[int, ...]],
    selected: set[tuple[str, str]],
    overrides: dict[str, int] | None = None,
) -> tuple[list[str], int]:
    """Send every selected cell as the persona; return the problems and the cells sent."""
    session = session_for(world, persona)
    problems, sent = [], 0
    for endpoint in endpoints():
        for method in endpoint.methods:
            if (endpoint.name, method) not in selected:
                continue
            url = endpoint.url(world, overrides)
            body = BODY[endpoint.name](world) if endpoint.name in BODY and method != "GET" else {}
            outcome = send(session, method, url, body)
            sent += 1
            where = f"{method} {url} [{endpoint.name}]"
            expected = table.get((endpoint.name, method))
            if outcome.status >= 500:
                problems.append(f"{where}: {outcome.status} {outcome.error}")
            elif expected is not None and outcome.status != (
                want := expected_status(persona, (endpoint.name, method), expected)
            ):
                problems.append(f"{where}: expected {want}, got {outcome.status}")
            problems += [
                f"{where}: leak: {leak}" for leak in leaks(persona, outcome, endpoint.name)
            ]
            problems += [f"{where}: {wrong}" for wrong in bad_redirect(persona, endpoint, outcome)]
    return problems, sent
