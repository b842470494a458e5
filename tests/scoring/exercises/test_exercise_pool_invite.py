"""Inviting a pool to an exercise (issue 34): every current qualified member of the
pool, and its trainees when the lead ticks them, beside anyone chosen one by one; the
invitations are audited. A pool that adds nobody is refused, a pool the lead may not
see is a 404, and neither writes anything."""

import html
from collections.abc import Sequence

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from core.accounts.models import Notice
from core.api.exceptions import ApplicationError
from core.models import AuditEvent
from core.outbox.models import OutgoingEmail
from core.permissions import INTERVIEWER
from interviews.pools.models import Pool, PoolMembership
from kit.models import Question, QuestionVersion
from scoring.exercises import services
from scoring.models import CalibrationExercise, ReferenceAnswer
from tests.conftest import make_user
from tests.scoring.exercises.helpers import keyed, signed_in

URL = "/calibration/exercises/new/"


def member(pool: Pool, user: User, status: str = "qualified", removed: bool = False) -> User:
    PoolMembership.objects.create(
        pool=pool, user=user, status=status, removed_at=timezone.now() if removed else None
    )
    return user


@pytest.fixture
def pool(question: Question, interviewer: User, other_interviewer: User) -> Pool:
    """Serving: Ines and Omar qualified, Tara training; Rex removed, Ivy qualified but
    no longer active."""
    serving = Pool.objects.create(name="Serving", role=question.role)
    member(serving, interviewer)
    member(serving, other_interviewer)
    member(serving, make_user("tara", INTERVIEWER), status="training")
    member(serving, make_user("rex", INTERVIEWER), removed=True)
    member(serving, make_user("ivy", INTERVIEWER, is_active=False))  # type: ignore[arg-type]
    return serving


def invited(exercise: CalibrationExercise) -> list[str]:
    return sorted(exercise.participants.values_list("username", flat=True))


def invitations() -> list[str]:
    emails = OutgoingEmail.objects.filter(kind=Notice.EXERCISE_INVITED)
    return sorted(emails.values_list("user__username", flat=True))


def nothing_written(question: Question) -> None:
    assert CalibrationExercise.objects.count() == 0
    assert ReferenceAnswer.objects.count() == 0
    assert invitations() == []
    assert not AuditEvent.objects.filter(action="exercise.invited").exists()
    assert QuestionVersion.objects.get(pk=question.current_id).in_use is False


def create(
    question: Question, lead: User, pool: Pool, trainees: bool, people: Sequence[User] = ()
) -> CalibrationExercise:
    return services.exercise_create(
        title="Serving calibration",
        question=question,
        answers=keyed(3, 2),
        participants=list(people),
        by=lead,
        pool=pool,
        trainees=trainees,
    )


def test_it_invites_the_pools_qualified_members(question: Question, lead: User, pool: Pool) -> None:
    exercise = create(question, lead, pool, trainees=False)

    assert invited(exercise) == ["ines", "omar"]
    assert invitations() == ["ines", "omar"]
    event = AuditEvent.objects.get(action="exercise.invited")
    assert (event.actor, event.target) == (lead, str(exercise))
    assert event.data == {
        "exercise": exercise.pk,
        "invited": list(exercise.participants.order_by("username").values_list("pk", flat=True)),
        "pool": pool.pk,
        "trainees": False,
    }


def test_it_invites_the_trainees_too_when_asked(question: Question, lead: User, pool: Pool) -> None:
    exercise = create(question, lead, pool, trainees=True)

    assert invited(exercise) == ["ines", "omar", "tara"]
    assert invitations() == ["ines", "omar", "tara"]
    assert AuditEvent.objects.get(action="exercise.invited").data["trainees"] is True


def test_someone_chosen_and_in_the_pool_is_invited_once(
    question: Question, lead: User, pool: Pool, interviewer: User, pia: User
) -> None:
    exercise = create(question, lead, pool, trainees=False, people=[interviewer, pia])

    assert invited(exercise) == ["ines", "omar", "pia"]
    assert invitations() == ["ines", "omar", "pia"]


def test_invitations_without_a_pool_are_audited_too(
    question: Question, lead: User, interviewer: User
) -> None:
    exercise = services.exercise_create(
        title="One by one", question=question, answers=keyed(3, 2),
        participants=[interviewer], by=lead,
    )  # fmt: skip

    assert AuditEvent.objects.get(action="exercise.invited").data == {
        "exercise": exercise.pk,
        "invited": [interviewer.pk],
        "pool": None,
        "trainees": False,
    }


@pytest.mark.parametrize(
    ("trainees", "message"),
    [
        (False, "The pool Training has no qualified members to invite."),
        (True, "The pool Training has no qualified members or trainees to invite."),
    ],
)
def test_it_refuses_a_pool_that_adds_nobody(
    question: Question, lead: User, interviewer: User, trainees: bool, message: str
) -> None:
    empty = Pool.objects.create(name="Training", role=question.role)
    member(empty, make_user("rex", INTERVIEWER), removed=True)
    if not trainees:
        member(empty, make_user("tara", INTERVIEWER), status="training")

    with pytest.raises(ApplicationError) as caught:
        # Someone chosen one by one does not make up for the pool the lead meant.
        create(question, lead, empty, trainees=trainees, people=[interviewer])

    assert (caught.value.message, caught.value.code) == (message, "exercise_no_invitees")
    nothing_written(question)


def form(question: Question, pool: Pool | int, **changes: str) -> dict[str, object]:
    data: dict[str, object] = {
        "title": "Serving calibration",
        "pool": str(pool.pk if isinstance(pool, Pool) else pool),
        "a1-transcript": "Two times layers times heads times head size, per token.",
        "a1-key": "4",
        "a2-transcript": "It is big.",
        "a2-key": "1",
    }
    data.update(changes)
    return data


def test_the_page_offers_the_pools_with_their_counts(
    question: Question, lead: User, pool: Pool
) -> None:
    body = signed_in(lead).get(f"{URL}?question={question.pk}").content.decode()

    # Ivy is qualified but inactive: she counts as a member, but is not invited.
    assert f'<option value="{pool.pk}">Serving (3 qualified, 1 training)</option>' in body
    assert '<input type="checkbox" name="pool_trainees" value="1">' in body


def test_the_lead_invites_a_pool_and_its_trainees_on_the_page(
    question: Question, lead: User, pool: Pool
) -> None:
    response = signed_in(lead).post(
        f"{URL}?question={question.pk}&answers=2", form(question, pool, pool_trainees="1")
    )

    exercise = CalibrationExercise.objects.get()
    assert response.status_code == 302
    assert invited(exercise) == ["ines", "omar", "tara"]
    assert AuditEvent.objects.get(action="exercise.invited").data["pool"] == pool.pk


def test_the_page_refuses_an_empty_pool_with_a_message(question: Question, lead: User) -> None:
    empty = Pool.objects.create(name="Training", role=question.role)

    response = signed_in(lead).post(
        f"{URL}?question={question.pk}&answers=2", form(question, empty)
    )

    assert response.status_code == 200
    assert "The pool Training has no qualified members to invite." in html.unescape(
        response.content.decode()
    )
    # The form keeps the lead's choice of pool.
    assert f'<option value="{empty.pk}" selected>' in response.content.decode()
    nothing_written(question)


def test_a_pool_the_lead_may_not_see_is_not_found(
    question: Question, lead: User, pool: Pool
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(lead)
    gone = pool.pk + 1000

    response = client.post(f"{URL}?question={question.pk}&answers=2", form(question, gone))

    assert response.status_code == 404
    nothing_written(question)


def test_a_pool_that_is_not_a_number_is_a_bad_request(question: Question, lead: User) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(lead)

    response = client.post(
        f"{URL}?question={question.pk}&answers=2", {**form(question, 0), "pool": "x"}
    )

    assert response.status_code == 400
    nothing_written(question)


def test_nobody_but_a_lead_may_invite_a_pool(
    question: Question, recruiter: User, pool: Pool
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(recruiter)

    response = client.post(f"{URL}?question={question.pk}&answers=2", form(question, pool))

    assert response.status_code == 404
    nothing_written(question)
