"""The access matrix: every URL the resolver knows, every method it allows, every persona.

The endpoints are not listed by hand. `endpoints()` walks `get_resolver()`, fills each
path parameter with the id of an object of the world in `conftest.py` (chosen by the
path segment before it: `loops/<pk>` is the loop, `scorecards/<pk>` Ines's submitted
card...) and reads the methods off the view. `EXPECTED` gives the status each persona
must get; an endpoint or method the walk finds without an entry fails
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings
from django.core.cache import cache as django_cache
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from pytest_django import DjangoDbBlocker
from rest_framework.views import APIView

from core.api.exceptions import api_not_found
from tests.interviews.helpers import snapshot
from tests.problems import NOT_FOUND
from tests.scoring.helpers import state
from tests.security.conftest import EMAIL, NOTE, PHONE, SUMMARY, World, build_world
from tests.support.shared_db import read_again, rolled_back

# The columns of EXPECTED, in order:
#   anonymous; omar, on the loop, his card a draft (blind); ines, on the loop, card
#   submitted (unblinded); sam, shadow on interview 1 with no card (blind); olga, an
#   interviewer on no loop; rita, recruiter; leo, calibration lead.
# And hank, a hiring manager owning the loop's role, on no panel: olga's column but for
# the cells HANK names (see `expected_status`).
PERSONAS = ("anonymous", "omar", "ines", "sam", "olga", "rita", "leo", "hank")

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

# (url name, method): status for (anonymous, omar, ines, sam, olga, rita, leo)
EXPECTED: dict[tuple[str, str], tuple[int, int, int, int, int, int, int]] = {
    # --- site pages: anonymous visitors are sent to the login page -----------------------
    ("home", "GET"): (302, 302, 302, 302, 302, 302, 302),
    ("home", "POST"): (302, 302, 302, 302, 302, 302, 302),
    ("login", "GET"): (200, 302, 302, 302, 302, 302, 302),
    ("login", "POST"): (200, 302, 302, 302, 302, 302, 302),
    ("login", "PUT"): (200, 302, 302, 302, 302, 302, 302),
    ("logout", "GET"): (405, 405, 405, 405, 405, 405, 405),
    ("logout", "POST"): (302, 302, 302, 302, 302, 302, 302),
    # the bank: everyone signed in reads it
    ("kit:question-list", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-list", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-detail", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-detail", "POST"): (302, 200, 200, 200, 200, 200, 200),
    # retire / restore / draft: the leads' form; a bad status is a 400 with nothing written
    ("kit:question-new", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-new", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-edit", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-edit", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-status", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("kit:question-status", "POST"): (302, 404, 404, 404, 404, 404, 400),
    # who owns a role: the recruiters' page (an empty form clears the owners: a redirect)
    ("kit:role-owners", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners-edit", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners-edit", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # candidates and loops: recruiters' pages, 404 for everyone else
    ("interviews:candidate-list", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-list", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-new", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-new", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-detail", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-detail", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-edit", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-edit", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-list", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-list", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-new", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-new", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-detail", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-detail", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-staff", "GET"): (302, 404, 404, 404, 404, 200, 404),
    # an empty form seats nothing: back to the loop page
    ("interviews:loop-staff", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # the pools' pages: keepers only (404 for the rest, Sam the member included); an
    # empty form is a 400 with nothing written
    ("interviews:pool-new", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-new", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-detail", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-detail", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-path", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-path", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-member-add", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-add", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-member-remove", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-remove", "POST"): (302, 404, 404, 404, 404, 302, 302),
    # graduating Sam by hand: refused (his path is not complete), said on the pool page
    ("interviews:pool-member-graduate", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-graduate", "POST"): (302, 404, 404, 404, 404, 302, 302),
    # Omar's limits: his own and the keepers'
    ("interviews:pool-limits", "GET"): (302, 200, 404, 404, 404, 200, 200),
    ("interviews:pool-limits", "POST"): (302, 400, 404, 404, 404, 400, 400),
    # Sam's seat: Ines signs it off (beside him), and the keepers; not Sam himself
    ("interviews:pool-seat", "GET"): (302, 404, 200, 404, 404, 200, 200),
    ("interviews:pool-seat", "POST"): (302, 404, 400, 404, 404, 400, 400),
    ("interviews:pool-list", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-list", "POST"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:interview-panel", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-panel", "POST"): (302, 404, 404, 404, 404, 200, 404),
    # an empty form adds nothing: the loop page again, with what is missing
    ("interviews:interview-add", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-add", "POST"): (302, 404, 404, 404, 404, 200, 404),
    # Interview 1 has started: removing it is refused, back to the loop page with why.
    ("interviews:interview-remove", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-remove", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # a kit's questions: recruiters, and its interviewers until it starts (interviews.editing:
    # interview 1 has started, 400 for Ines; Sam shadows it, 403)
    ("interviews:question-swap", "GET"): (302, 404, 400, 403, 404, 200, 404),
    ("interviews:question-swap", "POST"): (302, 404, 400, 403, 404, 200, 404),
    ("interviews:question-move", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:question-move", "POST"): (302, 404, 400, 403, 404, 302, 404),
    ("scoring:candidate-export", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("scoring:candidate-export", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("scoring:candidate-erase", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("scoring:candidate-erase", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # an interviewer's pages: interview 1 is Ines's and Sam's, not Omar's
    ("interviews:my-interviews", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("interviews:my-interviews", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("interviews:kit", "GET"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit", "POST"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit-markdown", "GET"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit-markdown", "POST"): (302, 404, 200, 200, 404, 200, 404),
    ("scoring:scorecard", "GET"): (302, 404, 200, 200, 404, 404, 404),
    ("scoring:scorecard", "POST"): (302, 404, 200, 302, 404, 404, 404),
    ("scoring:amend", "GET"): (302, 404, 200, 404, 404, 404, 404),
    ("scoring:amend", "POST"): (302, 404, 200, 404, 404, 404, 404),
    # the debrief: everyone on the loop (blind until they submit), and recruiters
    ("scoring:debrief", "GET"): (302, 200, 200, 200, 404, 200, 404),
    ("scoring:debrief", "POST"): (302, 403, 403, 403, 404, 200, 404),
    # calibration: the dashboard for all (others see their own row), the rest for leads
    ("scoring:calibration", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:calibration", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:calibration-run", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("scoring:calibration-run", "POST"): (302, 404, 404, 404, 404, 404, 302),
    ("scoring:calibration-export", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:calibration-export", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("core:audit-log", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("core:audit-log", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("core:account-token", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("core:account-token", "POST"): (302, 400, 400, 400, 400, 400, 400),
    # Without an action the account page saves the form: an empty one is shown again.
    ("core:account", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("core:account", "POST"): (302, 200, 200, 200, 200, 200, 200),
    # A calendar feed opens with its secret alone, whoever asks: any other is a 404.
    ("interviews:calendar-feed", "GET"): (404, 404, 404, 404, 404, 404, 404),
    ("interviews:calendar-feed", "POST"): (405, 405, 405, 405, 405, 405, 405),
    ("scoring:exercises", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:exercises", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:exercise-new", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:exercise-new", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:exercise", "GET"): (302, 404, 404, 404, 200, 404, 200),
    ("scoring:exercise", "POST"): (302, 404, 404, 404, 302, 404, 403),
    # --- API: anonymous callers get 401 ---------------------------------------------------
    ("api-root", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("api-token", "GET"): (405, 405, 405, 405, 405, 405, 405),
    ("api-token", "POST"): (400, 400, 400, 400, 400, 400, 400),
    ("api-token", "DELETE"): (401, 204, 204, 204, 204, 204, 204),
    ("api-token-rotate", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("api-token-rotate", "POST"): (401, 201, 201, 201, 201, 201, 201),
    ("schema", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # --- probes for orchestrators: no sign-in, nothing about anyone ----------------------
    ("healthz", "GET"): (200, 200, 200, 200, 200, 200, 200),
    ("readyz", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # Prometheus' scrape: 404 to everyone while METRICS_TOKEN is unset (tests/core/test_metrics.py)
    ("prometheus-metrics", "GET"): (404, 404, 404, 404, 404, 404, 404),
    ("prometheus-metrics", "POST"): (404, 404, 404, 404, 404, 404, 404),
    ("swagger-ui", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # the bank: everyone signed in reads it, leads edit it (templates: recruiters too)
    ("role-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("role-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("role-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("role-detail", "PATCH"): (401, 403, 403, 403, 403, 403, 200),
    ("level-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("level-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("competency-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-detail", "PATCH"): (401, 403, 403, 403, 403, 403, 200),
    ("question-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("question-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("question-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("question-detail", "PUT"): (401, 403, 403, 403, 403, 403, 400),
    ("loop-template-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-template-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("loop-template-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-template-detail", "PUT"): (401, 403, 403, 403, 403, 400, 400),
    # candidates: recruiters only; by id, 404 for everyone else
    ("candidate-list", "GET"): (401, 403, 403, 403, 403, 200, 403),
    ("candidate-list", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("candidate-detail", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-detail", "PATCH"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-export", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-erase", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("candidate-erase", "POST"): (401, 404, 404, 404, 404, 200, 404),
    # loops and interviews: scoped reads, recruiter writes (seen but not yours: 403)
    ("loop-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-list", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("loop-preview", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-preview", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("loop-detail", "GET"): (401, 200, 200, 200, 404, 200, 404),
    ("interview-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("interview-detail", "GET"): (401, 404, 200, 200, 404, 200, 404),
    ("interview-detail", "PUT"): (401, 404, 403, 403, 404, 400, 404),
    # its questions: as the pages above (interviews.editing)
    # Ines may read the alternatives of her started interview, not change it (swap: 400).
    ("interview-alternatives", "GET"): (401, 404, 200, 403, 404, 200, 404),
    ("interview-reorder", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("interview-reorder", "POST"): (401, 404, 400, 403, 404, 400, 404),
    ("interview-swap", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("interview-swap", "POST"): (401, 404, 400, 403, 404, 400, 404),
    # scorecards: your own; others' submitted ones once you owe none (recruiters: all)
    ("scorecard-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("scorecard-list", "POST"): (401, 400, 400, 400, 400, 400, 400),
    ("scorecard-detail", "GET"): (401, 404, 200, 404, 404, 200, 404),
    ("scorecard-detail", "PUT"): (401, 404, 409, 404, 404, 404, 404),
    ("scorecard-submit", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-submit", "POST"): (401, 404, 409, 404, 404, 404, 404),
    ("scorecard-amend", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-amend", "POST"): (401, 404, 400, 404, 404, 404, 404),
    ("loop-debrief", "GET"): (401, 200, 200, 200, 404, 200, 404),
    # interviewer pools and training (interviews.pools): keepers (recruiters, leads, the
    # role's hiring managers) write; members read their pools; a 403 before the body
    ("pool-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("pool-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("pool-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("pool-detail", "PATCH"): (401, 404, 403, 403, 404, 400, 400),
    ("pool-membership-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("pool-membership-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("pool-membership-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("pool-membership-detail", "DELETE"): (401, 404, 403, 403, 404, 204, 204),
    ("pool-membership-graduate", "GET"): (401, 405, 405, 405, 405, 405, 405),
    # Sam's path is not complete: 409 path_incomplete
    ("pool-membership-graduate", "POST"): (401, 404, 403, 403, 404, 409, 409),
    # everyone sets their own limits (an empty body changes nothing); Omar's row
    ("interviewer-limits-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("interviewer-limits-list", "POST"): (401, 200, 201, 201, 201, 201, 201),
    ("interviewer-limits-detail", "GET"): (401, 200, 404, 404, 404, 200, 200),
    ("interviewer-limits-detail", "PUT"): (401, 200, 404, 404, 404, 200, 200),
    ("training-path-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("training-path-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("training-path-detail", "PUT"): (401, 404, 403, 403, 404, 400, 400),
    # Sam's seat: his own, Ines's to sign off (she sits beside him), the keepers'
    ("training-seat-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("training-seat-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("training-seat-sign-off", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("training-seat-sign-off", "POST"): (401, 404, 400, 403, 404, 400, 400),
    # staffing a loop: as building it (interviews.staffing)
    ("loop-staff", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-staff", "POST"): (401, 404, 404, 404, 404, 200, 404),
    ("loop-staff-accept", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-staff-accept", "POST"): (401, 404, 404, 404, 404, 400, 404),
    ("loop-decision", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-decision", "POST"): (401, 403, 403, 403, 404, 400, 404),
    ("loop-cancel", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-cancel", "POST"): (401, 403, 403, 403, 404, 400, 404),
    ("loop-reopen", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-reopen", "POST"): (401, 403, 403, 403, 404, 400, 404),
    # calibration: the latest snapshot for all (filtered), the rest for leads
    ("calibration-latest", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("calibration-history", "GET"): (401, 403, 403, 403, 403, 403, 200),
    ("calibration-runs", "GET"): (401, 403, 403, 403, 403, 403, 405),
    ("calibration-runs", "POST"): (401, 403, 403, 403, 403, 403, 400),
    # a run is an object: those who may not see it get 404, as everywhere else
    ("calibration-run", "GET"): (401, 404, 404, 404, 404, 404, 200),
    # webhooks: leads and recruiters, each their own (the world's is rita's); by id,
    # 404 for everyone else
    ("webhook-list", "GET"): (401, 403, 403, 403, 403, 200, 200),
    ("webhook-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("webhook-detail", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-detail", "PATCH"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-detail", "DELETE"): (401, 404, 404, 404, 404, 204, 404),
    ("webhook-deliveries", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-delivery", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-delivery-replay", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("webhook-delivery-replay", "POST"): (401, 404, 404, 404, 404, 202, 404),
}

# Hank's column where it is not Olga's: he builds and staffs loops of the role he owns
# (interviews.staffing), and reads no more than an interviewer on no loop otherwise.
HANK: dict[tuple[str, str], int] = {
    # the pages of the loops he staffs, as Rita's (candidates' pages stay hers: 404)
    ("interviews:loop-list", "GET"): 200,
    ("interviews:loop-list", "POST"): 200,
    ("interviews:loop-new", "GET"): 200,
    ("interviews:loop-new", "POST"): 200,
    ("interviews:loop-detail", "GET"): 200,
    ("interviews:loop-detail", "POST"): 200,
    ("interviews:interview-panel", "POST"): 200,
    ("interviews:interview-add", "POST"): 200,
    ("interviews:interview-remove", "POST"): 302,
    ("interviews:question-swap", "GET"): 200,
    ("interviews:question-swap", "POST"): 200,
    ("interviews:question-move", "POST"): 302,
    # the API: builds (an empty body is a 400 past the permission check), reads and staffs
    ("interviews:loop-staff", "GET"): 200,
    ("interviews:loop-staff", "POST"): 302,
    ("interviews:pool-list", "GET"): 200,
    ("interviews:pool-list", "POST"): 200,
    ("interviews:pool-new", "GET"): 200,
    ("interviews:pool-new", "POST"): 400,
    ("interviews:pool-detail", "GET"): 200,
    ("interviews:pool-detail", "POST"): 400,
    ("interviews:pool-path", "GET"): 200,
    ("interviews:pool-path", "POST"): 400,
    ("interviews:pool-member-add", "POST"): 400,
    ("interviews:pool-member-remove", "POST"): 302,
    ("interviews:pool-member-graduate", "POST"): 302,
    ("interviews:pool-limits", "GET"): 200,
    ("interviews:pool-limits", "POST"): 400,
    ("interviews:pool-seat", "GET"): 200,
    ("interviews:pool-seat", "POST"): 400,
    ("pool-list", "POST"): 400,
    ("pool-detail", "GET"): 200,
    ("pool-detail", "PATCH"): 400,
    ("pool-membership-list", "POST"): 400,
    ("pool-membership-detail", "GET"): 200,
    ("pool-membership-detail", "DELETE"): 204,
    ("pool-membership-graduate", "POST"): 409,
    ("interviewer-limits-detail", "GET"): 200,
    ("interviewer-limits-detail", "PUT"): 200,
    ("training-path-detail", "GET"): 200,
    ("training-path-detail", "PUT"): 400,
    ("training-seat-detail", "GET"): 200,
    ("training-seat-sign-off", "POST"): 400,
    ("loop-staff", "POST"): 200,
    ("loop-staff-accept", "POST"): 400,
    ("loop-list", "POST"): 400,
    ("loop-preview", "POST"): 400,
    ("loop-detail", "GET"): 200,
    ("interview-detail", "GET"): 200,
    ("interview-detail", "PUT"): 400,
    ("interview-alternatives", "GET"): 200,
    ("interview-reorder", "POST"): 400,
    ("interview-swap", "POST"): 400,
    # Olga's exercise is not his
    ("scoring:exercise", "GET"): 404,
    ("scoring:exercise", "POST"): 404,
}


def expected_status(persona: str, cell: tuple[str, str], row: tuple[int, ...]) -> int:
    """Return the status `persona` must get for `cell`, whose EXPECTED row is `row`."""
    if persona == "hank":
        return HANK.get(cell, row[PERSONAS.index("olga")])
    return row[PERSONAS.index(persona)]


# The same endpoints on Omar's draft card: a draft is only ever seen by its author.
DRAFT_EXPECTED: dict[tuple[str, str], tuple[int, int, int, int, int, int, int]] = {
    ("scorecard-detail", "GET"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-detail", "PUT"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-submit", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-submit", "POST"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-amend", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-amend", "POST"): (401, 400, 404, 404, 404, 404, 404),
    ("scoring:amend", "GET"): (302, 302, 404, 404, 404, 404, 404),
    ("scoring:amend", "POST"): (302, 302, 404, 404, 404, 404, 404),
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


def _json(body: str) -> Any:
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
    for value in _dicts(_json(outcome.body)):
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


# --- the matrix -----------------------------------------------------------------------------


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
            body = _json(outcome.body) or {}
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
