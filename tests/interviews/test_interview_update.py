"""PUT /api/v1/interviews/{id}/: panel, shadow and time; the loop becomes scheduled."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from core.permissions import INTERVIEWER
from interviews import services
from interviews.models import Loop, Panelist
from tests.conftest import client_for, make_user
from tests.interviews.helpers import snapshot
from tests.problems import detail, field_errors
from tests.support.api import iso
from tests.support.loops import World, make_world
from tests.support.shared_db import make_personas, persona_user, read_again, rolled_back

START = (timezone.now() + timedelta(days=7)).replace(microsecond=0)
END = START + timedelta(minutes=45)


# Rita, Ines, Omar, the small world and the candidate's loop (interviews in draft), made
# once for the module; each test reads them again in a savepoint of its own
# (tests/support/shared_db.py).
SHARED_PERSONAS = ("recruiter", "interviewer", "other_interviewer")


@dataclass
class Shared:
    world: World
    loop: Loop


@pytest.fixture(scope="module")
def shared(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[Shared]:
    with rolled_back(django_db_blocker):
        make_personas(*SHARED_PERSONAS)
        world = make_world()
        loop = services.loop_create(
            candidate=world.candidate,
            role=world.role,
            level=world.level,
            by=persona_user("recruiter"),
        )
        yield Shared(world=world, loop=loop)


@pytest.fixture
def recruiter(shared: Shared, db: None) -> User:
    return persona_user("recruiter")


@pytest.fixture
def interviewer(shared: Shared, db: None) -> User:
    return persona_user("interviewer")


@pytest.fixture
def other_interviewer(shared: Shared, db: None) -> User:
    return persona_user("other_interviewer")


@pytest.fixture
def world(shared: Shared, db: None) -> World:
    return read_again(shared.world)


@pytest.fixture
def loop(shared: Shared, db: None) -> Loop:
    """The candidate's loop: Serving (serving-1, serving-2), Training (both-1, training-1)."""
    return Loop.objects.get(pk=shared.loop.pk)


def put(user, interview, body):  # type: ignore[no-untyped-def]
    return client_for(user).put(f"/api/v1/interviews/{interview.pk}/", body, format="json")


def body(*interviewers, shadow=None, start=START, end=END):  # type: ignore[no-untyped-def]
    return {
        "interviewers": [u.username for u in interviewers],
        "shadow": shadow.username if shadow else None,
        "scheduled_start": start.isoformat() if start else None,
        "scheduled_end": end.isoformat() if end else None,
    }


def test_it_sets_the_panel_the_shadow_and_the_time(
    recruiter, interviewer, other_interviewer, interviews
):
    first = interviews[0]
    response = put(recruiter, first, body(interviewer, shadow=other_interviewer))
    assert response.status_code == 200
    data = response.json()
    assert data["panel"] == [
        {"username": "ines", "name": "Ines", "is_shadow": False},
        {"username": "omar", "name": "Omar", "is_shadow": True},
    ]
    assert (data["scheduled_start"], data["scheduled_end"]) == (iso(START), iso(END))
    first.refresh_from_db()
    assert (first.scheduled_start, first.scheduled_end) == (START, END)
    assert list(first.panel.values_list("user__username", "is_shadow")) == [
        ("ines", False),
        ("omar", True),
    ]


def test_it_replaces_the_previous_panel(recruiter, interviewer, other_interviewer, interviews):
    first = interviews[0]
    pia = make_user("pia", INTERVIEWER, first_name="Pia")
    put(recruiter, first, body(interviewer, shadow=other_interviewer))
    response = put(recruiter, first, body(other_interviewer, pia))
    assert response.status_code == 200
    assert list(first.panel.values_list("user__username", "is_shadow")) == [
        ("omar", False),
        ("pia", False),
    ]


def test_a_seat_that_stays_keeps_its_row_and_when_its_reminder_went_out(
    recruiter, interviewer, other_interviewer, interviews
):
    first = interviews[0]
    pia = make_user("pia", INTERVIEWER, first_name="Pia")
    put(recruiter, first, body(interviewer, other_interviewer))
    reminded = timezone.now() - timedelta(hours=3)
    seat = Panelist.objects.get(interview=first, user=interviewer)
    Panelist.objects.filter(pk=seat.pk).update(reminded_at=reminded)
    later = timedelta(hours=2)

    response = put(recruiter, first, body(interviewer, pia, start=START + later, end=END + later))

    assert response.status_code == 200
    kept = Panelist.objects.get(interview=first, user=interviewer)
    assert (kept.pk, kept.reminded_at) == (seat.pk, reminded)
    assert sorted(first.panel.values_list("user__username", flat=True)) == ["ines", "pia"]


def test_the_shadow_and_an_interviewer_can_trade_places_in_one_save(
    recruiter, interviewer, other_interviewer, interviews
):
    first = interviews[0]
    put(recruiter, first, body(interviewer, shadow=other_interviewer))

    response = put(recruiter, first, body(other_interviewer, shadow=interviewer))

    assert response.status_code == 200
    assert sorted(first.panel.values_list("user__username", "is_shadow")) == [
        ("ines", True),
        ("omar", False),
    ]


def test_the_loop_is_scheduled_once_every_interview_has_a_panel_and_a_time(
    recruiter, interviewer, other_interviewer, interviews, loop
):
    assert put(recruiter, interviews[0], body(interviewer)).status_code == 200
    loop.refresh_from_db()
    assert loop.status == Loop.Status.DRAFT
    later = timedelta(hours=1)
    put(recruiter, interviews[1], body(other_interviewer, start=START + later, end=END + later))
    loop.refresh_from_db()
    assert loop.status == Loop.Status.SCHEDULED


def test_an_interview_without_a_time_keeps_the_loop_in_draft(
    recruiter, interviewer, other_interviewer, interviews, loop
):
    put(recruiter, interviews[0], body(interviewer))
    put(recruiter, interviews[1], body(other_interviewer, start=None, end=None))
    loop.refresh_from_db()
    assert loop.status == Loop.Status.DRAFT


def test_clearing_a_time_moves_a_scheduled_loop_back_to_draft(
    recruiter, interviewer, interviews, panels
):
    assert panels.status == Loop.Status.SCHEDULED
    put(recruiter, interviews[1], body(interviewer, start=None, end=None))
    panels.refresh_from_db()
    assert panels.status == Loop.Status.DRAFT


@pytest.mark.parametrize(
    ("case", "code", "message"),
    [
        ("no interviewers", "panel_empty", "An interview needs at least one interviewer."),
        (
            "shadow on the panel",
            "shadow_is_interviewer",
            "Ines cannot be both interviewer and shadow.",
        ),
        ("listed twice", "interviewer_listed_twice", "An interviewer is listed twice."),
        ("end before start", "time_reversed", "The interview must end after it starts."),
        ("end equals start", "time_reversed", "The interview must end after it starts."),
        ("start without end", "time_incomplete", "Give both a start and an end time, or neither."),
        ("end without start", "time_incomplete", "Give both a start and an end time, or neither."),
    ],
)
def test_it_refuses_an_impossible_panel_or_time_and_changes_nothing(
    recruiter, interviewer, other_interviewer, panels, interviews, case, code, message
):
    payload = {
        "no interviewers": body(),
        "shadow on the panel": body(interviewer, other_interviewer, shadow=interviewer),
        "listed twice": body(interviewer, interviewer),
        "end before start": body(interviewer, start=END, end=START),
        "end equals start": body(interviewer, start=START, end=START),
        "start without end": body(interviewer, end=None),
        "end without start": body(interviewer, start=None),
    }[case]
    before = snapshot()
    response = put(recruiter, interviews[0], payload)
    assert detail(response, 400, code) == message
    assert snapshot() == before


def test_it_refuses_a_time_when_the_candidate_is_in_another_interview(
    recruiter, interviewer, other_interviewer, interviews
):
    put(recruiter, interviews[0], body(interviewer))
    before = snapshot()

    half = timedelta(minutes=30)
    response = put(recruiter, interviews[1], body(other_interviewer, start=START + half,
                                                  end=END + half))  # fmt: skip

    start, end = timezone.localtime(START), timezone.localtime(END)
    assert detail(response, 400, "interview_clash") == (
        f"It overlaps {interviews[0].title} ({start:%a %d %b %H:%M}–{end:%H:%M %Z}): "
        "the candidate cannot be in two interviews at once."
    )
    assert snapshot() == before


def test_back_to_back_interviews_are_fine(recruiter, interviewer, interviews):
    put(recruiter, interviews[0], body(interviewer))

    response = put(recruiter, interviews[1], body(interviewer, start=END, end=END + (END - START)))

    assert response.status_code == 200


def test_it_refuses_an_interviewer_already_on_another_interview_then(
    recruiter, interviewer, other_interviewer, interviews, elsewhere
):
    put(recruiter, elsewhere, body(other_interviewer, start=START, end=END))
    before = snapshot()

    # Omar as the shadow is as busy as Omar on the panel.
    response = put(recruiter, interviews[0], body(interviewer, shadow=other_interviewer))

    start, end = timezone.localtime(START), timezone.localtime(END)
    assert detail(response, 400, "interviewer_busy") == (
        f"Omar is already on {elsewhere.title} with Jo Other then "
        f"({start:%a %d %b %H:%M}–{end:%H:%M %Z})."
    )
    assert snapshot() == before


def test_it_refuses_an_unknown_or_inactive_user_and_changes_nothing(recruiter, interviews):
    gone = make_user("gone")
    gone.is_active = False
    gone.save()
    before = snapshot()
    for name in ("nobody", "gone"):
        response = put(recruiter, interviews[0], {"interviewers": [name]})
        assert list(field_errors(response)) == ["interviewers"]
    assert snapshot() == before


def test_it_refuses_to_change_a_decided_loop(recruiter, interviewer, interviews, loop):
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.DECIDED, decision="hire")
    before = snapshot()
    response = put(recruiter, interviews[0], body(interviewer))
    assert detail(response, 400, "loop_decided") == "This loop is decided; it can no longer change."
    assert snapshot() == before


def post_panel(client, recruiter, interview, fields, **kwargs):  # type: ignore[no-untyped-def]
    """POST the loop page's panel form for `interview`, its field names prefixed."""
    client.force_login(recruiter)
    url = reverse("interviews:interview-panel", args=[interview.pk])
    return client.post(url, {f"i{interview.pk}-{k}": v for k, v in fields.items()}, **kwargs)


def test_the_panel_page_form_sets_the_panel_and_time(
    client, recruiter, interviewer, other_interviewer, interviews
):
    first = interviews[0]
    response = post_panel(
        client,
        recruiter,
        first,
        {
            "interviewers": [interviewer.pk],
            "shadow": other_interviewer.pk,
            "scheduled_start": START.strftime("%Y-%m-%dT%H:%M"),
            "scheduled_end": END.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"#interview-{first.pk}")
    first.refresh_from_db()
    assert first.scheduled_start == START.replace(second=0)
    assert list(first.panel.values_list("user__username", "is_shadow")) == [
        ("ines", False),
        ("omar", True),
    ]


def test_the_panel_page_form_reports_a_refusal_and_changes_nothing(
    client, recruiter, interviewer, interviews
):
    before = snapshot()
    response = post_panel(
        client,
        recruiter,
        interviews[0],
        {"interviewers": [interviewer.pk], "shadow": interviewer.pk},
        follow=True,
    )
    assert response.status_code == 200
    assert "Ines cannot be both interviewer and shadow." in response.content.decode()
    assert snapshot() == before


def test_the_panel_page_form_keeps_what_was_entered_after_a_refusal(
    client, recruiter, interviewer, other_interviewer, interviews
):
    before = snapshot()

    response = post_panel(
        client,
        recruiter,
        interviews[0],
        {
            "interviewers": [interviewer.pk, other_interviewer.pk],
            "scheduled_start": "2031-03-04T11:00",
            "scheduled_end": "2031-03-04T10:00",
        },
    )

    assert response.status_code == 200  # shown again, not redirected
    html = response.content.decode()
    # The reason beside the field it concerns, which points at it.
    end = f"id_i{interviews[0].pk}-scheduled_end"
    assert f'aria-describedby="{end}-error" aria-invalid="true" id="{end}"' in html
    assert (
        f'<span class="field-error" id="{end}-error">The interview must end after it starts.</span>'
        in html
    )
    for person in (interviewer, other_interviewer):
        assert re.search(rf'<input type="checkbox" [^>]*value="{person.pk}"[^>]* checked>', html)
    assert 'value="2031-03-04T11:00"' in html
    assert snapshot() == before


def test_a_person_on_a_decided_loop_is_free_again(
    recruiter, interviewer, other_interviewer, interviews, elsewhere
):
    put(recruiter, elsewhere, body(other_interviewer))
    Loop.objects.filter(pk=elsewhere.loop_id).update(status=Loop.Status.DECIDED)

    assert (
        put(recruiter, interviews[0], body(interviewer, shadow=other_interviewer)).status_code
        == 200
    )


def test_it_refuses_a_time_when_the_candidate_is_in_another_open_loop(
    recruiter, interviewer, other_interviewer, interviews, world
):
    second_loop = services.loop_create(
        candidate=world.candidate,
        role=world.role,
        level=world.level,
        by=recruiter,
        allow_duplicate=True,
    )
    elsewhere = second_loop.interviews.order_by("order").first()
    put(recruiter, elsewhere, body(other_interviewer))
    before = snapshot()

    response = put(recruiter, interviews[0], body(interviewer))

    assert detail(response, 400, "interview_clash").startswith(f"It overlaps {elsewhere.title} (")
    assert snapshot() == before


def test_a_failure_half_way_writes_nothing(recruiter, interviewer, interviews, monkeypatch):
    before = snapshot()

    def fail(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("the database went away")

    # After the time is saved and the old panel deleted: the whole update rolls back.
    monkeypatch.setattr(Panelist.objects, "bulk_create", fail)
    with pytest.raises(RuntimeError):
        services.interview_update(
            interview=interviews[0], interviewers=[interviewer], scheduled_start=START,
            scheduled_end=END,
        )  # fmt: skip

    assert snapshot() == before
