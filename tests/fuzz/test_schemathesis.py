"""Schemathesis against /api/schema/: every operation, as each persona, in process.

The schema is loaded from the WSGI app and every operation is fuzzed through it:
schemathesis's coverage phase (boundary values of every field), then Hypothesis cases,
valid and invalid, then the well-formed requests of `world.well_formed()`. Personas:
an anonymous caller, a recruiter, a calibration lead and an interviewer, each with an
API token. Every response must:

* not be a server error;
* have a status code, content type, headers and body the schema documents;
* come from an operation that enforces its authentication (`ignored_auth` sends the
  request again without credentials, and with bad ones);
* for GETs, accept what the schema calls valid: a filter by the id of a loop, a
  candidate or an interview that does not exist matches nothing, it is no 400 (that
  would tell ids that exist from ids the caller may not see). The bank's filters are
  the exception: they refuse a role, level or competency that does not exist.

Ids, names and slugs are drawn often from the ones that exist (schemathesis
dictionaries), so requests reach real objects and not only 404s. Each request runs
in a savepoint that is rolled back: every case sees the same world.

`make fuzz` (FUZZ=deep) runs all of it; `make test` a quick pass (see DEEP below).
Generation is deterministic: a fixed seed, and the suite's derandomized Hypothesis
profile. The last test checks the other direction: every status code the schema
documents came back at least once, so none is made up. The case count is printed at
the end of the run (see conftest.py) and recorded in the JUnit report.
"""

import logging
import os
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis.checks import load_all_checks, not_a_server_error
from schemathesis.pytest.lazy import get_all_tests
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    is_unexpected_http_status_case,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from core.accounts.tokens import token_issue
from core.api.openapi import ANYWHERE
from tests.fuzz.conftest import RUNS, Run
from tests.fuzz.world import Request, build_world, dictionaries, well_formed

SEED = 20260601
# `make fuzz` (FUZZ=deep; CI runs it) is the whole fuzz: the coverage phase and 20
# Hypothesis cases per operation and persona. `make test` keeps a quick pass of it: a
# few cases per operation and the well-formed requests, every check applied.
DEEP = os.environ.get("FUZZ", "").lower() == "deep"
MAX_EXAMPLES = 20 if DEEP else 3
PERSONAS = {
    "anonymous": None,
    "recruiter": "demo-recruiter",
    "lead": "demo-lead",
    "interviewer": "demo-interviewer-1",
}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    ignored_auth,
]
# Bodies name roles, levels and people that must exist, so a body the schema allows
# may still be refused (400); query strings only filter, so GETs are held to more...
SAFE_CHECKS = [*CHECKS, positive_data_acceptance]
# ...but for the bank's filters, whose 400 for an unknown role, level or competency
# tells a caller of a typo (the bank hides nothing from anyone signed in).
NAMES_MUST_EXIST = {"GET /questions/", "GET /loop-templates/"}


class _Undo(Exception):
    pass


@pytest.fixture
def in_process_requests() -> Iterator[None]:
    # Django closes the connection at the end of a request, which inside a test's
    # transaction would lose it; its test client disconnects these signals too.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    # Thousands of 4xx warnings say nothing; server errors are still logged.
    requests_log = logging.getLogger("django.request")
    level = requests_log.level
    requests_log.setLevel(logging.ERROR)
    yield
    requests_log.setLevel(level)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


# The first segments of the API's paths with an id, each the name of its dictionary.
RESOURCES = (
    "roles", "levels", "competencies", "questions", "loop-templates",
    "candidates", "loops", "interviews", "scorecards", "calibration", "webhooks",
    "pools", "pool-memberships", "interviewer-limits", "training-paths", "training-seats",
)  # fmt: skip
# Query and body fields that name an object, and the dictionary they draw from. A path
# id draws from the dictionary named by the path's first segment (`/loops/{id}/...`).
NAMED = {
    "query.loop": "loops",
    "query.candidate": "candidates",
    "query.interview": "interviews",
    "query.item": "items",
    "query.competency": "slugs",
    "query.role": "role-names",  # calibration scopes name them (the bank: see BY_ID)
    "query.level": "level-names",
    "body.role": "role-names",
    "body.level": "level-names",
    "body.min_level": "level-names",
    "body.max_level": "level-names",
    "body.competencies[*]": "slugs",
    "body.slots[*].competencies[*]": "slugs",
    "body.candidate": "candidates",
    "body.interview": "interviews",
    "body.interviewers[*]": "usernames",
    "body.shadow": "usernames",
    "body.username": "usernames",
    "body.item": "items",
    "body.question": "questions",
    "body.order[*]": "items",
    "body.ratings[*].item": "items",
    "body.ratings[*].checked[*]": "rubric",
    "body.ratings[*].follow_ups_asked[*]": "follow-ups",
    "body.pool": "pools",
    "body.user": "usernames",
}


# Where the same name means an id instead: the bank's filters.
BY_ID = {
    "questions": {"query.role": "roles"},
    "loop-templates": {"query.role": "roles", "query.level": "levels"},
}


def config(found: dict[str, list[Any]], *, anonymous: bool) -> schemathesis.Config:
    """The run's configuration. An anonymous caller is refused before any input is
    read, so a few cases an operation show it; the coverage phase would add nothing."""

    def bind(name: str, probability: float = 0.7) -> dict[str, Any]:
        return {"dictionary": name, "probability": probability}

    by_path = [
        {
            "include-path-regex": f"^/{segment}/",
            "parameters": {
                "path.id": bind(segment, 0.8),
                **{key: bind(name) for key, name in BY_ID.get(segment, {}).items()},
            },
        }
        for segment in RESOURCES
        if segment in found
    ]
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "dictionaries": {name: {"values": entries} for name, entries in found.items()},
            "parameters": {key: bind(name) for key, name in NAMED.items() if name in found},
            "operations": by_path,
            "generation": {
                "mode": "all",
                "max-examples": 3 if anonymous else MAX_EXAMPLES,
                # Credentials are the persona's: a generated session cookie next to a
                # real token would make every success look like ignored authentication.
                "with-security-parameters": False,
            },
            "phases": {
                "examples": {"enabled": False},
                "coverage": {
                    # Valid boundary values; invalid input comes from the fuzzing phase.
                    "enabled": DEEP and not anonymous,
                    "generation": {"mode": "positive"},
                    "unexpected-methods": [],
                },
                "fuzzing": {"enabled": True},
                "stateful": {"enabled": False},
            },
        }
    )


class Fuzz:
    """Send cases as one persona, each in a savepoint rolled back, and keep score."""

    def __init__(self, headers: dict[str, str], run: Run) -> None:
        self.headers = headers
        self.run = run

    def send(self, case: Any) -> None:
        self.run.cases += 1
        cache.clear()  # throttle counters: the fuzz is not a flood
        label = case.operation.label
        safe = case.method.upper() == "GET" and label not in NAMES_MUST_EXIST
        checks = SAFE_CHECKS if safe else CHECKS
        try:
            with transaction.atomic():
                response = case.call(headers=self.headers)
                if not is_unexpected_http_status_case(case):  # a method or media type probe
                    self.run.seen[label].add(response.status_code)
                case.validate_response(
                    response,
                    checks=checks,
                    headers=self.headers,
                    transport_kwargs={"headers": self.headers},
                )
                raise _Undo
        except _Undo:
            pass

    def every_operation(self, schema: Any) -> list[str]:
        """Run every operation's generated cases; return the failures, one per operation."""
        failures: list[str] = []
        quiet = settings(suppress_health_check=list(HealthCheck), deadline=None, database=None)
        for result in get_all_tests(
            schema=schema, test_func=self.send, settings=quiet, given_kwargs={}
        ):
            operation, test = result.ok()
            self.run.documented[operation.label] = {
                int(code) for code in operation.definition.raw["responses"] if code.isdigit()
            }
            try:
                test()
            except (Exception, BaseExceptionGroup) as exc:  # a check failure or a crash
                failures.append(f"{operation.label}: {type(exc).__name__}: {exc}")
        return failures

    def each(self, schema: Any, requests: list[Request]) -> list[str]:
        """Send the given requests; return the failures, one per request."""
        failures: list[str] = []
        for label, parts in requests:
            operation = schema.find_operation_by_label(label)
            assert operation is not None, f"{label} is not in the schema"
            try:
                self.send(operation.Case(media_type="application/json", **parts))
            except (Exception, BaseExceptionGroup) as exc:
                failures.append(f"{label} (well-formed): {type(exc).__name__}: {exc}")
        return failures


# `make test` keeps the lead's quick pass (every operation, every check); the other
# personas' quick passes are slow (`make test-slow`), and `make fuzz` runs all of them deep.
QUICK_PERSONA = "lead"


@pytest.mark.parametrize(
    "persona",
    [p if p == QUICK_PERSONA else pytest.param(p, marks=pytest.mark.slow) for p in PERSONAS],
)
def test_every_operation_conforms_to_the_schema(
    persona: str, db: None, in_process_requests: None, record_property: Any
) -> None:
    build_world()
    headers = {}
    if PERSONAS[persona]:
        user = User.objects.get(username=PERSONAS[persona])
        headers["Authorization"] = f"Token {token_issue(user=user).key}"
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json",
        application,
        config=config(dictionaries(), anonymous=PERSONAS[persona] is None),
    )
    load_all_checks()
    run = RUNS[persona] = Run()
    fuzz = Fuzz(headers, run)
    started = time.monotonic()
    failures = fuzz.every_operation(schema) + fuzz.each(schema, well_formed())
    run.seconds = time.monotonic() - started
    record_property("schemathesis_cases", run.cases)

    assert run.documented, "the schema has no operations"
    assert not failures, f"{persona}: {len(failures)} operations failed:\n\n" + "\n\n".join(
        failures
    )


def test_every_documented_status_code_was_seen() -> None:
    """The schema documents no status code that the fuzz never got back."""
    if not DEEP:
        pytest.skip("the quick fuzz does not reach every status code: `make fuzz` checks this")
    if set(RUNS) != set(PERSONAS):
        pytest.skip("needs every persona's run")
    documented: dict[str, set[int]] = defaultdict(set)
    seen: dict[str, set[int]] = defaultdict(set)
    for run in RUNS.values():
        for label, codes in run.documented.items():
            documented[label] |= codes
        for label, codes in run.seen.items():
            seen[label] |= codes

    # 429 and 503 can come from any operation; the fuzz runs under the rates and with
    # the database up, so tests/core/api/test_api_throttling.py and
    # tests/core/http/test_database_unavailable.py show them instead.
    # 412, 413, 415 and 422 need a stale If-Match, an oversized body, a body that is not
    # JSON or a reused Idempotency-Key, which generated cases rarely hold: the tests in
    # tests/core/api (test_etags, test_problem_details, test_idempotency),
    # tests/security/test_request_size.py and
    # tests/scoring/scorecards/test_scorecard_versions.py show them.
    # A write's 403 may be the CSRF check of a session, which the fuzz's tokens never
    # meet: tests/core/api/test_problem_details.py shows it.
    def elsewhere(label: str) -> set[int]:
        shown = ANYWHERE | {412, 413, 415, 422}
        return shown | {403} if not label.startswith("GET ") else shown

    never = {
        label: sorted(codes - seen[label] - elsewhere(label))
        for label, codes in documented.items()
        if codes - seen[label] - elsewhere(label)
    }
    assert not never, "documented, never seen:\n" + "\n".join(
        f"{label}: {codes} (seen {sorted(seen[label])})" for label, codes in sorted(never.items())
    )
