"""The access matrix: every URL the resolver knows, every method it allows, every persona.

The endpoints are not listed by hand. `endpoints()` (access_walk.py) walks
`get_resolver()`, fills each path parameter with the id of an object of the world in
`conftest.py` (chosen by the path segment before it: `loops/<pk>` is the loop,
`scorecards/<pk>` Ines's submitted card...) and reads the methods off the view.
`EXPECTED` (access_expected.py) gives the status each persona must get; an endpoint or
method the walk finds without an entry fails
`test_every_endpoint_has_an_expected_outcome`, so a new endpoint cannot ship unjudged.

The world is built once for the module, and each test reads it inside a savepoint of its
own; every request runs in a savepoint that is rolled back, so the matrix writes nothing
and each cell sees the same world. The API's catch-all, which answers any path under
/api/v1/ that no route matches, is no endpoint: the walk passes it by, and
`test_a_path_no_api_route_matches_is_a_404_for_everyone` checks it. Write methods send
an empty body (a few page forms a minimal one, see `BODY`): a 400 there proves the
permission check passed. Every body an interviewer, a lead or an outsider gets is
searched for the candidate's contact details and for scorecards they may not read yet;
no response may be a 5xx.
"""

import json
import re
from collections.abc import Iterator

import pytest
from django.urls import resolve
from pytest_django import DjangoDbBlocker

from tests.interviews.helpers import snapshot
from tests.problems import NOT_FOUND
from tests.scoring.helpers import state
from tests.security.access_expected import DRAFT_EXPECTED, EXPECTED, PERSONAS
from tests.security.access_walk import (
    BODY,
    QUERY,
    RESOURCES,
    WRITES,
    Outcome,
    body_json,
    cells,
    draft_cells,
    endpoints,
    leaks,
    run_matrix,
    send,
    session_for,
)
from tests.security.conftest import EMAIL, NOTE, PHONE, World, build_world
from tests.support.shared_db import read_again, rolled_back


@pytest.fixture(scope="module")
def built_world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The world, built once for the module (tests/support/shared_db.py)."""
    with rolled_back(django_db_blocker):
        yield build_world()


@pytest.fixture
def world(built_world: World, db: None) -> World:
    """The module's world as the test's savepoint sees it, objects of the test's own."""
    return read_again(built_world)


@pytest.mark.parametrize("persona", PERSONAS)
def test_access_matrix(world: World, persona: str) -> None:
    before = (state(), snapshot())
    problems, sent = run_matrix(world, persona, EXPECTED, cells())
    assert sent == len(cells())
    assert (state(), snapshot()) == before, "the matrix wrote to the database"
    assert not problems, f"{persona}: {len(problems)} of {sent} cells wrong:\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("persona", PERSONAS)
def test_drafts_are_seen_by_their_author_only(world: World, persona: str) -> None:
    """The scorecard endpoints again, on Omar's draft instead of Ines's submitted card."""
    overrides = {
        kw: world.cards["omar"].pk
        for e in endpoints()
        for kw, segment in e.params
        if segment == "scorecards"
    }
    problems, _ = run_matrix(world, persona, DRAFT_EXPECTED, draft_cells(), overrides)
    assert not problems, f"{persona}:\n" + "\n".join(problems)


def test_leak_checks_can_see_what_they_look_for(world: World) -> None:
    """The markers do show where they are allowed, so their absence elsewhere means something."""
    by_name = {e.name: e for e in endpoints()}

    def body(persona: str, name: str) -> str:
        outcome = send(session_for(world, persona), "GET", by_name[name].url(world))
        assert outcome.status == 200, (persona, name, outcome.status)
        return outcome.body

    assert EMAIL in body("rita", "candidate-detail")
    assert PHONE in body("rita", "interviews:candidate-detail")
    assert NOTE["pia"] in body("ines", "loop-debrief")  # unblinded after submitting
    assert NOTE["ines"] in body("rita", "scoring:debrief")
    assert NOTE["omar"] in body("omar", "scorecard-list")  # his own draft
    assert "Secret Candidate" in body("omar", "interviews:my-interviews")
    assert leaks("omar", Outcome(200, body("ines", "loop-debrief")))


# --- the matrix covers every endpoint, and only endpoints that exist -----------------------------


def test_every_endpoint_has_an_expected_outcome() -> None:
    missing = sorted(cells() - EXPECTED.keys())
    assert not missing, f"new endpoints or methods without an expected outcome: {missing}"
    missing_drafts = sorted(draft_cells() - DRAFT_EXPECTED.keys())
    assert not missing_drafts, f"scorecard endpoints without a draft outcome: {missing_drafts}"


def test_every_expected_outcome_still_exists() -> None:
    stale = sorted(EXPECTED.keys() - cells())
    assert not stale, f"EXPECTED names endpoints or methods that no longer exist: {stale}"
    stale_drafts = sorted(DRAFT_EXPECTED.keys() - draft_cells())
    assert not stale_drafts, f"DRAFT_EXPECTED entries that no longer exist: {stale_drafts}"
    for name in (*QUERY, *BODY):
        assert any(e.name == name for e in endpoints()), f"{name} is no longer a URL name"


def test_every_path_parameter_names_a_known_resource() -> None:
    unknown = {
        (e.name, segment)
        for e in endpoints()
        for _, segment in e.params
        if segment not in RESOURCES
    }
    assert not unknown, f"path parameters the matrix cannot fill: {sorted(unknown)}"
    unnamed = [e.route for e in endpoints() if e.name == e.route]
    assert not unnamed, f"give these patterns a URL name, so the matrix can key them: {unnamed}"
    names = [e.name for e in endpoints()]
    assert len(names) == len(set(names)), "two routes share a URL name"


def test_a_path_no_api_route_matches_is_a_404_for_everyone(world: World) -> None:
    problems = []
    for persona in PERSONAS:
        session = session_for(world, persona)
        for method in ("GET", *WRITES):
            outcome = send(session, method, "/api/v1/no-such-resource/1/")
            body = body_json(outcome.body) or {}
            if (outcome.status, body.get("code"), body.get("detail")) != (
                404,
                "not_found",
                NOT_FOUND,
            ):
                problems.append(f"{persona} {method}: {outcome.status} {outcome.body[:200]}")
    assert not problems, "\n".join(problems)


def test_methods_not_declared_are_refused(world: World) -> None:
    """A write method the walk does not list is refused on every API endpoint, even to
    the personas with write rights, and never reaches a handler."""
    problems = []
    for persona in ("rita", "leo"):
        session = session_for(world, persona)
        for endpoint in endpoints():
            if not endpoint.drf:
                continue
            for method in set(WRITES) - set(endpoint.methods):
                outcome = send(session, method, endpoint.url(world))
                if outcome.status not in (403, 405):
                    problems.append(f"{persona} {method} {endpoint.route}: {outcome.status}")
    assert not problems, "\n".join(problems)


def test_openapi_schema_has_no_endpoint_the_walk_missed(world: World) -> None:
    schema_url = next(e for e in endpoints() if e.name == "schema").url(world)
    outcome = send(session_for(world, "leo"), "GET", schema_url)
    assert outcome.status == 200, outcome.status
    schema = json.loads(outcome.body)
    # The schema's paths are relative to its server, the API's root.
    [server] = schema["servers"]
    walked = {e.route: e for e in endpoints()}
    missing = []
    for template, operations in schema["paths"].items():
        path = re.sub(r"\{[^}]+\}", "1", server["url"] + template)
        route = resolve(path).route
        methods = {m.upper() for m in operations if m.upper() in ("GET", *WRITES)}
        if route not in walked:
            missing.append(f"{template} (route {route})")
        elif methods - set(walked[route].methods):
            missing.append(f"{template}: {sorted(methods - set(walked[route].methods))}")
    assert schema["paths"], "the schema lists no paths"
    assert not missing, f"in the OpenAPI schema but not in the matrix: {missing}"
