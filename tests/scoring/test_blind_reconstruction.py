"""Reconstructing co-panelists' ratings from everything a blind panelist can read.

Ines holds two seats in loop L: an interviewer seat on interview A, and a
second seat on interview B (a shadow seat, or a second interviewer seat). She
submits A and keeps a draft for B, so she is blind in L. She also interviewed
four earlier candidates of the role, so calibration has a row for her.

Everything she can read (API resources, pages, her calibration row, counts,
timestamps, statuses, headers) is captured; then her co-panelists on L submit
one by one, each submission running the calibration job, and after each one
everything is captured again and compared: nothing may change, or the change
would tell her what they rated. Once she submits B, her view does change:
the loop status, and (at the next snapshot) her own row, which now counts L.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from interviews.models import Interview, Loop
from kit.models import Role
from scoring.models import CalibrationSnapshot, Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.scoring.blind_reads import (
    Read,
    another_loop,
    card,
    changed,
    page_paths,
    reads,
)
from tests.scoring.calibration.helpers import calibrate_json
from tests.support.loops import Built, Seat, build_loop

ROLE = "AI Infrastructure Engineer"
LATEST = "/api/v1/calibration/latest/"

# Ines's usual ratings run high and her co-panelists' low; in L she rates low and
# they rate high, so any figure of hers that counted L would move as they submit.
INES_IN_L = [1, 2, 1, 1]
PIA_IN_L = [4, 4, 4, 3]
SAM_IN_L = [2, 2, 3, 2]
OMAR_IN_L = [4, 3, 4, 4]
INES_B = [1, 1, 2, 1]


@dataclass
class Scene:
    built: Built
    role: Role
    ines: User
    second_seat: str  # "shadow" or "interviewer": Ines's seat on interview B
    card_ids: list[int]
    pages: list[str]

    @property
    def loop(self) -> Loop:
        return self.built.loop

    @property
    def a(self) -> Interview:
        return self.built.interviews[0]

    @property
    def b(self) -> Interview:
        return self.built.interviews[1]

    def read(self) -> dict[str, Read]:
        return reads(
            self.ines, loop=self.loop, role=self.role, card_ids=self.card_ids, pages=self.pages
        )


@pytest.fixture(params=[pytest.param("shadow", marks=pytest.mark.slow), "interviewer"])
def scene(
    request: pytest.FixtureRequest,
    recruiter: User,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    sam: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> Scene:
    ines, omar = interviewer, other_interviewer
    second_seat = request.param
    b_seat = (
        Seat(interviewers=[omar], shadow=ines)
        if second_seat == "shadow"
        else Seat(interviewers=[omar, ines])
    )
    with django_capture_on_commit_callbacks(execute=True):
        built = build_loop(seats=[Seat(interviewers=[ines, pia], shadow=sam), b_seat])
        role = built.loop.role
        for k in range(1, 5):
            earlier = another_loop(
                role=role,
                candidate_name=f"Earlier candidate {k}",
                seats=[Seat(interviewers=[ines, pia]), Seat(interviewers=[omar])],
                start=timezone.now().replace(microsecond=0) - timedelta(days=10 + k),
                by=recruiter,
            )
            first, second = earlier.interviews
            card(ines, first, [(k + q) % 2 + 3 for q in range(4)])
            card(pia, first, [(k + q) % 3 + 1 for q in range(4)])
            card(omar, second, [(k + 2 * q) % 4 + 1 for q in range(4)])
        a, b = built.interviews
        card(ines, a, INES_IN_L)
        card(ines, b, INES_B, submit=False)
    newest = Scorecard.objects.order_by("-pk").values_list("pk", flat=True).first()
    assert newest is not None
    # The loop's cards, and the ids the co-panelists' cards will take.
    first_in_l = Scorecard.objects.filter(interview__loop=built.loop).order_by("pk").first()
    assert first_in_l is not None
    card_ids = list(range(first_in_l.pk - 1, newest + 8))
    return Scene(
        built=built,
        role=role,
        ines=ines,
        second_seat=second_seat,
        card_ids=card_ids,
        pages=page_paths(user=ines, loop=built.loop, role=role),
    )


def own_row(user: User, role: Role) -> dict[str, Any] | None:
    response = client_for(user).get(LATEST, {"role": role.name})
    assert response.status_code == 200
    rows = response.json()["interviewers"]
    assert len(rows) <= 1
    return rows[0] if rows else None


def full_row(lead: User, user: User, role: Role) -> dict[str, Any]:
    result = client_for(lead).get(LATEST, {"role": role.name}).json()
    return next(r for r in result["interviewers"] if r["interviewer_id"] == user.pk)


def status_seen(user: User, loop: Loop) -> str:
    status: str = client_for(user).get(f"/api/v1/loops/{loop.pk}/").json()["status"]
    return status


def described(diff: dict[str, tuple[Read, Read]]) -> str:
    """The first few changed channels, before and after, for the failure message."""
    return "\n".join(
        f"{where}:\n  before {before.status} {before.body[:600]}\n  after  {after.status} "
        f"{after.body[:600]}"
        for where, (before, after) in list(diff.items())[:3]
    )


def submit_in_l(
    capture: Callable[..., Any], user: User, interview: Interview, ratings: list[int]
) -> None:
    with capture(execute=True):
        card(user, interview, ratings)


def test_nothing_ines_can_read_changes_as_her_co_panelists_submit_until_she_does(
    scene: Scene,
    pia: User,
    sam: User,
    other_interviewer: User,
    lead: User,
    recruiter: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    ines, role, loop = scene.ines, scene.role, scene.loop
    before = scene.read()
    # The channels answer her (a capture of 404s would prove nothing).
    readable = [where for where, read in before.items() if read.status == 200]
    latest = "api /api/v1/calibration/latest/?role=AI+Infrastructure+Engineer"
    for where in (
        "api /api/v1/loops/",
        f"api /api/v1/loops/{loop.pk}/",
        f"api /api/v1/loops/{loop.pk}/debrief/",
        f"api /api/v1/interviews/?loop={loop.pk}",
        "api /api/v1/scorecards/",
        latest,
        latest + "&level=L5",
        "page /interviews/",
        f"page /loops/{loop.pk}/debrief/",
        f"page /calibration/?role={role.pk}",
        f"page /interviews/{scene.b.pk}/scorecard/",
    ):
        assert where in readable, where
    # She has something to lose: a row of her own, with figures from the earlier loops.
    baseline = own_row(ines, role)
    assert baseline is not None and baseline["ratings"] == 16
    assert baseline["leniency"] is not None
    assert status_seen(ines, loop) == "scheduled"
    row_as_lead_sees_it = full_row(lead, ines, role)

    snapshots = CalibrationSnapshot.objects.count()
    for user, interview, ratings, stored_anew in (
        (pia, scene.a, PIA_IN_L, True),
        # A shadow's card is not counted, but it ends his open seat, which the own
        # rows depend on (the watermark digests who is blind where): a new snapshot.
        (sam, scene.a, SAM_IN_L, True),
        (other_interviewer, scene.b, OMAR_IN_L, True),
    ):
        submit_in_l(django_capture_on_commit_callbacks, user, interview, ratings)

        stored = CalibrationSnapshot.objects.count()
        assert (stored > snapshots) is stored_anew, user  # the job ran and stored new figures
        snapshots = stored
        diff = changed(before, scene.read())
        assert list(diff) == [], described(diff)

    # What she cannot see did move: the role-wide figures count L, and the loop's status
    # stepped (to debrief when her open seat is a shadow's, which holds nothing up).
    assert full_row(lead, ines, role) != row_as_lead_sees_it
    loop.refresh_from_db()
    assert loop.status == ("debrief" if scene.second_seat == "shadow" else "in_progress")

    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_submit(
            scorecard=Scorecard.objects.get(interview=scene.b, interviewer=ines), by=ines
        )

    after = scene.read()
    assert status_seen(ines, loop) == "debrief"
    assert changed(before, after)
    # Her last seat done changes the watermark even where it is a shadow's (no rating
    # of it counts): the run that follows computes the row that counts L.
    mine = own_row(ines, role)
    assert mine is not None
    assert mine != baseline
    # A's four ratings now count, and B's too where her second seat is an interviewer's.
    assert mine["ratings"] == (20 if scene.second_seat == "shadow" else 24)
    assert mine == full_row(lead, ines, role)


def calibrated_without(loop: Loop, role: Role) -> dict[str, Any]:
    """Return the snapshot `calibrate` stores when none of the loop's cards count (as
    if never submitted); the database is then put back."""
    with transaction.atomic():
        Scorecard.objects.filter(interview__loop=loop).update(status=Scorecard.Status.DRAFT)
        result: dict[str, Any] = calibrate_json("--role", role.name)
        transaction.set_rollback(True)
    return result


def test_her_own_row_is_the_row_of_a_run_over_the_ratings_without_the_loop(
    scene: Scene,
    pia: User,
    other_interviewer: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    submit_in_l(django_capture_on_commit_callbacks, pia, scene.a, PIA_IN_L)
    submit_in_l(django_capture_on_commit_callbacks, other_interviewer, scene.b, OMAR_IN_L)
    mine = own_row(scene.ines, scene.role)

    without = calibrated_without(scene.loop, scene.role)

    expected = next(r for r in without["interviewers"] if r["interviewer_id"] == scene.ines.pk)
    # Compared as JSON: the API's floats against the command's.
    assert json.dumps(mine, sort_keys=True) == json.dumps(expected, sort_keys=True)
    # And the run without L is not the run with it: L moves her full row.
    latest = CalibrationSnapshot.objects.filter(role=scene.role, level=None).latest("computed_at")
    with_l = next(r for r in latest.result["interviewers"] if r["interviewer_id"] == scene.ines.pk)
    assert with_l != expected
