"""Only active members of the Interviewers group sit on a panel, whichever way it is set (#15).

The panel page always offered only interviewers, but the API seated any active
account: a recruiter, a lead, someone with no persona. Every seat is made by
interviews.services.interview_update, so the rule is checked there; the API and the
page report it naming the field and the person, and nothing is written.
"""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core.permissions import INTERVIEWER, LEAD, RECRUITER
from interviews import services, views
from interviews.models import Interview, Loop, Panelist
from tests.conftest import client_for, make_user
from tests.interviews.helpers import snapshot
from tests.problems import field_errors

START = (timezone.now() + timedelta(days=7)).replace(microsecond=0)
END = START + timedelta(minutes=45)


def not_in_group(username: str) -> str:
    return (
        f"{username} is not in the Interviewers group: only active members of the "
        "Interviewers group sit on panels."
    )


def deactivated(username: str) -> str:
    return (
        f"{username} is deactivated: only active members of the Interviewers group sit on panels."
    )


def put(user: User, interview: Interview, **body: object):  # type: ignore[no-untyped-def]
    return client_for(user).put(f"/api/v1/interviews/{interview.pk}/", body, format="json")


@pytest.fixture
def people(db: None) -> dict[str, User]:
    """Everyone who is not an interviewer, and one who was."""
    gone = make_user("gone", INTERVIEWER)
    gone.is_active = False
    gone.save()
    return {
        "recruiter": make_user("rhea", RECRUITER),
        "lead": make_user("lena", LEAD),
        "nobody": make_user("noah"),
        "deactivated": gone,
    }


EXPECTED = {"recruiter": ("rhea", not_in_group), "lead": ("lena", not_in_group),
            "nobody": ("noah", not_in_group), "deactivated": ("gone", deactivated)}  # fmt: skip


@pytest.mark.parametrize("who", list(EXPECTED))
def test_the_api_refuses_a_non_interviewer_on_the_panel_and_writes_nothing(
    recruiter: User, interviewer: User, interviews: list[Interview], people: dict[str, User],
    who: str,
) -> None:  # fmt: skip
    username, message = EXPECTED[who]
    before = snapshot()

    response = put(recruiter, interviews[0], interviewers=[interviewer.username, username],
                   scheduled_start=START.isoformat(), scheduled_end=END.isoformat())  # fmt: skip

    assert field_errors(response) == {"interviewers": [message(username)]}
    assert snapshot() == before


@pytest.mark.parametrize("who", list(EXPECTED))
def test_the_api_refuses_a_non_interviewer_as_shadow_and_writes_nothing(
    recruiter: User, interviewer: User, interviews: list[Interview], people: dict[str, User],
    who: str,
) -> None:  # fmt: skip
    username, message = EXPECTED[who]
    before = snapshot()

    response = put(recruiter, interviews[0], interviewers=[interviewer.username], shadow=username)

    assert field_errors(response) == {"shadow": [message(username)]}
    assert snapshot() == before


def test_the_api_names_every_refused_person_in_their_field(
    recruiter: User, interviews: list[Interview], people: dict[str, User]
) -> None:
    before = snapshot()

    response = put(recruiter, interviews[0], interviewers=["rhea", "noah"], shadow="gone")

    assert field_errors(response) == {
        "interviewers": [not_in_group("rhea"), not_in_group("noah")],
        "shadow": [deactivated("gone")],
    }
    assert snapshot() == before


def test_a_recruiter_or_lead_who_also_interviews_may_sit_on_a_panel(
    recruiter: User, interviews: list[Interview], people: dict[str, User]
) -> None:
    interviewers = Group.objects.get(name=INTERVIEWER)
    for person in (people["recruiter"], people["lead"]):
        person.groups.add(interviewers)

    response = put(recruiter, interviews[0], interviewers=["rhea"], shadow="lena")

    assert response.status_code == 200
    assert list(interviews[0].panel.values_list("user__username", "is_shadow")) == [
        ("rhea", False),
        ("lena", True),
    ]


def test_someone_who_left_the_group_keeps_no_new_seat(
    recruiter: User, interviewer: User, other_interviewer: User, interviews: list[Interview]
) -> None:
    assert put(recruiter, interviews[0], interviewers=["ines", "omar"]).status_code == 200
    other_interviewer.groups.clear()
    before = snapshot()

    response = put(recruiter, interviews[0], interviewers=["ines", "omar"])

    assert field_errors(response) == {"interviewers": [not_in_group("omar")]}
    assert snapshot() == before  # the earlier panel stays as it was


@pytest.mark.parametrize("who", list(EXPECTED))
def test_the_service_refuses_a_non_interviewer_for_every_caller(
    interviewer: User, interviews: list[Interview], people: dict[str, User], who: str
) -> None:
    # seed_demo, the tests' helpers and any future caller seat people through this service.
    username, message = EXPECTED[who]
    person = people[who]
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.interview_update(interview=interviews[0], interviewers=[interviewer, person])

    assert refused.value.message_dict == {"interviewers": [message(username)]}
    with pytest.raises(ValidationError) as refused:
        services.interview_update(
            interview=interviews[0], interviewers=[interviewer], shadow=person
        )

    assert refused.value.message_dict == {"shadow": [message(username)]}
    assert snapshot() == before


def test_the_rule_is_read_from_the_database_not_from_the_objects_given(
    interviewer: User, other_interviewer: User, interviews: list[Interview]
) -> None:
    # `other_interviewer` was loaded while still active.
    User.objects.filter(pk=other_interviewer.pk).update(is_active=False)
    before = snapshot()

    with pytest.raises(ValidationError) as refused:
        services.interview_update(
            interview=interviews[0], interviewers=[interviewer, other_interviewer]
        )

    assert refused.value.message_dict == {"interviewers": [deactivated("omar")]}
    assert snapshot() == before


def test_building_a_loop_seats_nobody(loop: Loop) -> None:
    # Loop creation makes interviews only; their panels are set with interview_update.
    assert loop.interviews.count() == 2
    assert not Panelist.objects.exists()


# --- the page -----------------------------------------------------------------------------


def panel_form(interview: Interview, interviewers: list[User]) -> dict[str, object]:
    prefix = f"i{interview.pk}"
    return {
        f"{prefix}-interviewers": [u.pk for u in interviewers],
        f"{prefix}-shadow": "",
        f"{prefix}-scheduled_start": "",
        f"{prefix}-scheduled_end": "",
    }


def test_the_page_offers_and_accepts_only_interviewers(
    client: Client, recruiter: User, interviewer: User, interviews: list[Interview],
    people: dict[str, User],
) -> None:  # fmt: skip
    client.force_login(recruiter)
    page = client.get(reverse("interviews:loop-detail", args=[interviews[0].loop_id]))
    offered = page.content.decode()
    assert f'value="{interviewer.pk}"' in offered
    for person in people.values():
        assert f'value="{person.pk}"' not in offered
    before = snapshot()

    response = client.post(
        reverse("interviews:interview-panel", args=[interviews[0].pk]),
        panel_form(interviews[0], [interviewer, people["recruiter"]]),
    )

    assert response.status_code == 200
    assert f"{people['recruiter'].pk} is not one of the available choices." in (
        response.content.decode()
    )
    assert snapshot() == before


def test_the_page_shows_the_refusal_when_someone_left_the_group_meanwhile(
    client: Client, monkeypatch: pytest.MonkeyPatch, recruiter: User, interviewer: User,
    other_interviewer: User, interviews: list[Interview],
) -> None:  # fmt: skip
    # The page's choices were read just before Omar left the Interviewers group: the
    # form accepts him, and the service, reading the database, refuses him.
    choices = views.interviewer_choices()
    other_interviewer.groups.clear()
    monkeypatch.setattr(views, "interviewer_choices", lambda: choices)
    client.force_login(recruiter)
    before = snapshot()

    response = client.post(
        reverse("interviews:interview-panel", args=[interviews[0].pk]),
        panel_form(interviews[0], [interviewer, other_interviewer]),
    )

    assert response.status_code == 200
    assert f"Interviewers: {not_in_group('omar')}" in response.content.decode()
    assert snapshot() == before
