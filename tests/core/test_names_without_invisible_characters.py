"""One-line names refuse Unicode format and bidirectional control characters on every
path a name is written (#30): the API, the pages, the admin (a user's first and last
name included) and the calibration exercise's title. `Eve\\u202egnp.exe\\u200b` reads
"Evexe.png" on screen; each refusal names the field and the character, and writes
nothing.
"""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from core.api.exceptions import ApplicationError
from core.models import AuditEvent
from interviews.models import Candidate
from kit.models import Role
from scoring.exercises import services as exercises
from scoring.models import CalibrationExercise
from tests.conftest import client_for, make_user
from tests.interviews.helpers import snapshot
from tests.kit.admin_forms import change_form_data
from tests.problems import field_errors
from tests.support.factories import make_question
from tests.support.loops import World, make_world

SPOOFED = "Eve\u202egnp.exe\u200b"
BIDI = (
    "Names are one line of text: remove the bidirectional control character (U+202E) "
    "at character 4."
)
CRLF = "Names are one line of text: remove the carriage return (U+000D) at character 4."


@pytest.fixture
def world(db: None) -> World:
    return make_world()


@pytest.fixture
def superuser(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_the_api_refuses_a_spoofed_candidate_name_and_writes_nothing(recruiter: User) -> None:
    response = client_for(recruiter).post(
        "/api/v1/candidates/", {"name": SPOOFED, "email": "eve@example.com"}, format="json"
    )

    assert field_errors(response) == {"name": [BIDI]}
    assert not Candidate.objects.exists()


def test_the_api_refuses_renaming_a_candidate_with_a_zero_width_space(
    recruiter: User, world: World
) -> None:
    before = snapshot()

    response = client_for(recruiter).patch(
        f"/api/v1/candidates/{world.candidate.pk}/", {"name": "Eve\u200b"}, format="json"
    )

    assert field_errors(response) == {
        "name": ["Names are one line of text: remove the zero-width space (U+200B) at character 4."]
    }
    assert snapshot() == before


def test_the_api_refuses_a_spoofed_role_name_and_writes_nothing(lead: User) -> None:
    response = client_for(lead).post("/api/v1/roles/", {"name": SPOOFED}, format="json")

    assert field_errors(response) == {"name": [BIDI]}
    assert not Role.objects.filter(name__startswith="Eve").exists()


def test_the_candidate_page_refuses_a_spoofed_name_and_writes_nothing(
    client: Client, recruiter: User
) -> None:
    client.force_login(recruiter)

    response = client.post(
        reverse("interviews:candidate-new"), {"name": SPOOFED, "email": "eve@example.com"}
    )

    assert response.status_code == 200
    assert f'<span class="field-error">{BIDI}</span>' in response.content.decode()
    assert not Candidate.objects.exists()


def test_the_admin_refuses_a_spoofed_role_name_and_writes_nothing(
    superuser: Client, world: World
) -> None:
    url = reverse("admin:kit_role_change", args=[world.role.pk])
    data = change_form_data(superuser, url)

    response = superuser.post(url, {**data, "name": SPOOFED})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {"name": [BIDI]}
    assert Role.objects.get(pk=world.role.pk).name == world.role.name
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"first_name": "Ada\r\nEvil"}, {"first_name": [CRLF]}),
        ({"last_name": SPOOFED}, {"last_name": [BIDI]}),
        (
            {"first_name": "Ada\u2066", "last_name": "\ufeffLovelace"},
            {
                "first_name": [
                    "Names are one line of text: remove the bidirectional control "
                    "character (U+2066) at character 4."
                ],
                "last_name": [
                    "Names are one line of text: remove the zero-width no-break space "
                    "(byte order mark) (U+FEFF) at character 1."
                ],
            },
        ),
    ],
    ids=["crlf-first-name", "bidi-last-name", "both"],
)
def test_the_admin_refuses_a_user_name_that_is_not_one_line_and_writes_nothing(
    superuser: Client, changes: dict[str, str], errors: dict[str, list[str]]
) -> None:
    ada = make_user("ada", first_name="Ada", last_name="Lovelace")
    url = reverse("admin:auth_user_change", args=[ada.pk])
    data = change_form_data(superuser, url)

    response = superuser.post(url, {**data, **changes})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == errors
    ada.refresh_from_db()
    assert (ada.first_name, ada.last_name) == ("Ada", "Lovelace")
    assert not AuditEvent.objects.exists()


def test_the_admin_still_saves_a_user_name_of_any_script(superuser: Client) -> None:
    ada = make_user("ada", first_name="Ada", last_name="Lovelace")
    url = reverse("admin:auth_user_change", args=[ada.pk])
    data = change_form_data(superuser, url)
    persian = "\u0646\u06cc\u06a9\u200c\u067e\u0648\u0631"  # a non-joiner spells it

    response = superuser.post(url, {**data, "first_name": "Zoë", "last_name": persian})

    assert response.status_code == 302
    ada.refresh_from_db()
    assert (ada.first_name, ada.last_name) == ("Zoë", persian)


@pytest.mark.parametrize(
    ("title", "message"),
    [
        (SPOOFED, f"title: {BIDI}"),
        (
            "November\ncalibration",
            "title: Names are one line of text: remove the line break (U+000A) at character 9.",
        ),
    ],
    ids=["bidi", "line-break"],
)
def test_an_exercise_title_must_be_one_line(
    lead: User, interviewer: User, title: str, message: str
) -> None:
    question = make_question(title="KV cache sizing")

    with pytest.raises(ApplicationError) as refused:
        exercises.exercise_create(
            title=title,
            question=question,
            answers=[
                exercises.AnswerInput("Strong.", 4),
                exercises.AnswerInput("Weak.", 1),
            ],
            participants=[interviewer],
            by=lead,
        )

    assert (refused.value.code, refused.value.message) == ("exercise_title_not_one_line", message)
    assert not CalibrationExercise.objects.exists()
