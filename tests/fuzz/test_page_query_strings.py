"""Every GET URL of the site, as every persona, with Hypothesis-made query strings: no 5xx.

Schemathesis fuzzes the API from its schema; the server-rendered pages have none, and
the API's query strings are fuzzed there only with what the schema allows. This walks
the same URLs as the access matrix (tests/security/access_walk.py, its world in
tests/security/conftest.py) and, for each, draws query strings from the parameters the
view reads (`PARAMS`: ids, names, choices, text, page numbers, each drawn from the
world's real values and from hostile ones: non-numbers, ids past 2**63, NUL
characters, huge strings, bad dates, repeated keys, broken percent-encoding) plus
random keys. Every response must be below 500.

`test_params_names_every_parameter_a_view_reads` keeps `PARAMS` honest: it records
the query parameters each view reads (as each persona, with and without the query the
matrix sends) and fails for any not listed, so a new parameter cannot ship unfuzzed.

`make test` runs a handful of examples per URL and persona, after the usual suspects
(`SUSPECTS`: the values that broke pages before, in every parameter a view reads);
`make fuzz` (FUZZ=deep) many more. Generation is deterministic (the suite's derandomized
Hypothesis profile). Each request runs in a savepoint that is rolled back, as in the matrix.
"""

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
from django.http import HttpRequest, HttpResponse, QueryDict
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.security.access_expected import PERSONAS
from tests.security.access_walk import QUERY, Endpoint, endpoints, send, session_for
from tests.security.conftest import World, build_world

DEEP = os.environ.get("FUZZ", "").lower() == "deep"
# Examples per URL and persona: for URLs that read parameters, and for the others
# (random keys only, which they must ignore).
EXAMPLES = 60 if DEEP else 5
EXAMPLES_WITHOUT_PARAMS = 8 if DEEP else 1

# --- what each view reads -------------------------------------------------------------------

ID, NAME, CHOICE, TEXT, NUMBER = "id", "name", "choice", "text", "number"
# DRF reads ?format= on every API view (URL_FORMAT_OVERRIDE; see `params_of`) and ?page=
# and ?page_size= on paginated lists (every list: core/api/pagination.py).
API: dict[str, str] = {"format": CHOICE}
LIST: dict[str, str] = {"page": NUMBER, "page_size": NUMBER}
# The bank's filters: the same on the page and in the API.
BANK = {"role": ID, "level": NAME, "competency": NAME, "status": CHOICE, "q": TEXT}
# URL name -> the query parameters its view reads, and their kind.
PARAMS: dict[str, dict[str, str]] = {
    "login": {"next": TEXT},
    "kit:question-list": {**BANK, "page": NUMBER},
    "kit:question-detail": {"version": NUMBER},
    "kit:role-owners-edit": {"q": TEXT},
    "interviews:loop-new": {"candidate": ID, "role": ID, "level": ID},
    "scoring:calibration": {"role": ID, "level": ID, "job": ID, "q": TEXT, "page": NUMBER},
    "scoring:calibration-export": {"role": ID, "level": ID, "table": CHOICE},
    "scoring:exercise-new": {"question": ID, "answers": NUMBER},
    "core:audit-log": {
        "action": TEXT,
        "actor": ID,
        "since": TEXT,
        "until": TEXT,
        "format": CHOICE,
        "page": NUMBER,
    },
    "interviews:loop-list": {
        "q": TEXT,
        "status": CHOICE,
        "role": ID,
        "level": ID,
        "interviewer": ID,
        "dates": CHOICE,
        "since": TEXT,
        "until": TEXT,
        "page": NUMBER,
    },
    "interviews:candidate-list": {"q": TEXT, "page": NUMBER},
    "interviews:my-interviews": {"q": TEXT, "since": TEXT, "until": TEXT, "page": NUMBER},
    "role-list": LIST,
    "question-list": {**LIST, **BANK},
    "level-list": LIST,
    "competency-list": LIST,
    "loop-template-list": {**LIST, "role": ID, "level": ID},
    "candidate-list": LIST,
    "loop-list": {**LIST, "status": CHOICE, "candidate": ID},
    "interview-list": {**LIST, "loop": ID},
    "interview-alternatives": {"item": ID},
    "scorecard-list": {**LIST, "interview": ID, "status": CHOICE},
    "webhook-list": LIST,
    "webhook-deliveries": LIST,
    "pool-list": LIST,
    "pool-membership-list": LIST,
    "interviewer-limits-list": LIST,
    "training-path-list": LIST,
    "training-seat-list": LIST,
    "interviews:loop-staff": {"avoid": TEXT},
    "interviews:pool-limits": {"pool": ID},
    "calibration-latest": {"role": NAME, "level": NAME},
    "calibration-history": {**LIST, "role": NAME, "level": NAME},
    "schema": {"lang": CHOICE, "version": TEXT},
    "swagger-ui": {"format": CHOICE, "lang": CHOICE, "script": TEXT},
}


def params_of(endpoint: Endpoint) -> dict[str, str]:
    return {**(API if endpoint.drf else {}), **PARAMS.get(endpoint.name, {})}


# --- values ---------------------------------------------------------------------------------

HOSTILE = [
    "", " ", "abc", "null", "None", "true", "[]", "{}", "1.5", "-1", "0", "1e3", " 1", "1 ",
    "²", "١", "１", "0x10", "+1", "--1", str(2**31), str(2**63 - 1), str(2**63), str(2**64),
    "-" + str(2**63), "1" * 19, "9" * 30, "9" * 5000, "1.7976931348623157e308", "NaN", "inf",
    "\x00", "1\x00", "L5\x00", "a\x00b", "x" * 201, "x" * 20_000, "w " * 5000,
    "2026-02-30", "0000-00-00", "9999-12-31T99:99:99", "2026-13-01T00:00Z", "yesterday",
    "' OR 1=1 --", '"; DROP TABLE x; --', "<script>alert(1)</script>", "%", "%00", "%zz",
    "é", "\u202e", "\ud7ff", "\U0001f600", "\r\nX-Injected: 1", "..", "../../etc/passwd",
    "csv", "json", "yaml", "openapi", "api", "interviewers", "questions", "candidates",
    "draft", "active", "retired", "submitted", "in_progress", "debrief", "decided",
]  # fmt: skip
# Keys that no view reads, with the same hostility.
RANDOM_KEYS = ["x", "id", "pk", "page_size", "limit", "ordering", "search", "\x00", "", "a" * 300]


def world_values(world: World) -> dict[str, list[str]]:
    """The real ids and names a kind draws from, so requests reach real objects too."""
    ids = [
        world.role.pk, world.level.pk, world.question.pk, world.candidate.pk, world.loop.pk,
        world.first.pk, world.second.pk, world.item.pk, world.job.pk, world.template.pk,
    ]  # fmt: skip
    return {
        ID: [str(pk) for pk in ids],
        NAME: [world.role.name, world.level.name, world.competency.slug, world.role.name.upper()],
        NUMBER: ["1", "2", "3", "8", "1000"],
        TEXT: ["", "training", "GPU", "rate.limited", world.role.name],
        CHOICE: ["csv", "json", "api", "draft", "active", "submitted", "interviewers", "en"],
    }


def value_strategy(kind: str, real: dict[str, list[str]]) -> st.SearchStrategy[str]:
    numbers = st.integers(min_value=-(2**70), max_value=2**70).map(str)
    return st.one_of(
        st.sampled_from(real[kind]),
        st.sampled_from(HOSTILE),
        numbers if kind in (ID, NUMBER) else st.text(max_size=30),
        st.text(max_size=30),
    )


def query_strategy(params: dict[str, str], real: dict[str, list[str]]) -> st.SearchStrategy[str]:
    """A raw query string: the view's parameters (each possibly repeated) and random keys."""
    known = (
        [st.tuples(st.just(name), value_strategy(kind, real)) for name, kind in params.items()]
        if params
        else []
    )
    random_key = st.one_of(st.sampled_from(RANDOM_KEYS), st.text(max_size=10))
    unknown = st.tuples(random_key, value_strategy(TEXT, real))
    pairs = st.lists(st.one_of(*known, unknown) if known else unknown, max_size=8)
    # Django must also cope with what no encoder writes: stray separators, bad escapes.
    tail = st.sampled_from(["", "&", "&&=", "=", "%", "%zz", "&role", "&=x", "&q=%FF%FE"])

    def encode(parts: tuple[list[tuple[str, str]], str]) -> str:
        pairs, tail = parts
        query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
        return query + tail

    return st.tuples(pairs, tail).map(encode)


# Values that broke pages before (#15), each given to every parameter of a view at once.
SUSPECTS = ["²", str(2**63), "9" * 5000, "a\x00", "\r", "x" * 20_000]


def usual_suspects(params: dict[str, str]) -> list[str]:
    queries = ["&".join(f"{name}={quote(v)}" for name in params) for v in SUSPECTS]
    return [*queries, "&".join(f"{name}=1&{name}=2" for name in params)]


# --- the fuzz -------------------------------------------------------------------------------


def get_endpoints() -> list[Endpoint]:
    return [e for e in endpoints() if "GET" in e.methods]


@pytest.fixture
def world(db: None) -> World:
    return build_world()


def fuzz_one(
    world: World, session: str | None, endpoint: Endpoint, real: dict[str, list[str]]
) -> int:
    """Send the endpoint its examples; return how many. Fails on the first 5xx, shrunk."""
    params = params_of(endpoint)
    path = endpoint.path(world)
    sent = 0

    @hypothesis_settings(
        max_examples=EXAMPLES if params else EXAMPLES_WITHOUT_PARAMS,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(query=query_strategy(params, real))
    def run(query: str) -> None:
        nonlocal sent
        sent += 1
        outcome = send(session, "GET", f"{path}?{query}")
        shown = query if len(query) <= 200 else f"{query[:200]}... ({len(query)} characters)"
        assert outcome.status < 500, f"GET {path}?{shown}: {outcome.status} {outcome.error[:300]}"

    if endpoint.name in PARAMS:  # the view's own parameters: the usual suspects first
        for query in usual_suspects(PARAMS[endpoint.name]):
            run = example(query=query)(run)
    run()
    return sent


# `make test` fuzzes the pages as an anonymous caller and an interviewer; the other
# personas run in `make test-slow`.
QUICK_PERSONAS = {"anonymous", "ines"}


@pytest.mark.parametrize(
    "persona",
    [p if p in QUICK_PERSONAS else pytest.param(p, marks=pytest.mark.slow) for p in PERSONAS],
)
def test_no_query_string_makes_a_page_fail(
    world: World, persona: str, record_property: Callable[[str, object], None]
) -> None:
    session = session_for(world, persona)
    real = world_values(world)
    failures, sent = [], 0
    for endpoint in get_endpoints():
        try:
            sent += fuzz_one(world, session, endpoint, real)
        except AssertionError as exc:  # Hypothesis has shrunk it to the smallest query
            failures.append(f"{endpoint.name}: {exc}".splitlines()[0])
    record_property("page_query_fuzz_requests", sent)
    assert not failures, f"{persona}: {len(failures)} URLs answered 5xx:\n" + "\n".join(failures)


# --- PARAMS covers every parameter read --------------------------------------------------------

_reads = threading.local()


class RecordingQueryDict(QueryDict):
    """A query string that notes which keys the view asks for."""

    def _note(self, key: str) -> None:
        reads = getattr(_reads, "keys", None)
        if reads is not None:
            reads.add(key)

    def __getitem__(self, key: str) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self._note(key)
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._note(key)
        return super().get(key, default)

    def getlist(self, key: str, default: Any = None) -> list[Any]:
        self._note(key)
        return super().getlist(key, default)


class RecordQueryReads:
    """Test middleware: give the view a RecordingQueryDict of the same query string."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.GET = RecordingQueryDict(request.META.get("QUERY_STRING", ""))
        return self.get_response(request)


@pytest.fixture
def recording(settings: Any) -> Iterator[set[str]]:
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.RecordQueryReads"]
    _reads.keys = set()
    yield _reads.keys
    _reads.keys = None


def test_params_names_every_parameter_a_view_reads(world: World, recording: set[str]) -> None:
    unlisted: dict[str, set[str]] = {}
    for persona in PERSONAS:
        session = session_for(world, persona)
        for endpoint in get_endpoints():
            for url in {endpoint.path(world), endpoint.url(world)}:
                recording.clear()
                outcome = send(session, "GET", url)
                assert outcome.status < 500, (persona, url, outcome.status, outcome.error)
                extra = recording - params_of(endpoint).keys()
                if extra:
                    unlisted.setdefault(endpoint.name, set()).update(extra)
    assert not unlisted, f"add these to PARAMS, so the fuzz draws them: {unlisted}"


def test_params_and_query_name_only_urls_that_exist() -> None:
    names = {e.name for e in get_endpoints()}
    assert not PARAMS.keys() - names, sorted(PARAMS.keys() - names)
    assert not QUERY.keys() - names, sorted(QUERY.keys() - names)
    kinds = {kind for params in PARAMS.values() for kind in params.values()}
    assert kinds <= {ID, NAME, CHOICE, TEXT, NUMBER}
