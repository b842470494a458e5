"""/calibration/exercises/: a lead sees every exercise, an interviewer those she is invited to."""

from django.contrib.auth.models import User
from django.test import Client

from kit.models import Question
from scoring.models import CalibrationExercise
from tests.scoring.exercises.helpers import create, signed_in
from tests.scoring.helpers import count_queries

URL = "/calibration/exercises/"


def link(exercise: CalibrationExercise) -> str:
    return f'<a href="/calibration/exercises/{exercise.pk}/"><strong>{exercise.title}</strong></a>'


def test_it_shows_the_lead_every_exercise(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    mine = create(question, lead, [interviewer], 4, 1, 3, title="Ines and Omar")
    theirs = create(question, lead, [other_interviewer], 4, 1, title="Omar only")

    response = signed_in(lead).get(URL)

    assert response.status_code == 200
    body = response.content.decode()
    assert link(mine) in body
    assert link(theirs) in body
    assert '<td class="num" data-label="Answers">3</td>' in body
    assert '<td class="num" data-label="Answers">2</td>' in body
    assert '<a class="button primary" href="/calibration/exercises/new/">New exercise</a>' in body


def test_it_shows_an_interviewer_only_the_exercises_she_is_invited_to(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    invited = create(question, lead, [interviewer, other_interviewer], 4, 1, title="Both")
    other = create(question, lead, [other_interviewer], 4, 1, title="Omar only")

    response = signed_in(interviewer).get(URL)

    assert response.status_code == 200
    body = response.content.decode()
    assert link(invited) in body
    assert link(other) not in body
    assert "Omar only" not in body
    assert "New exercise" not in body


def test_it_tells_an_interviewer_invited_to_nothing(
    question: Question, lead: User, interviewer: User, pia: User
) -> None:
    create(question, lead, [interviewer], 4, 1)

    body = signed_in(pia).get(URL).content.decode()

    assert "You have not been invited to an exercise yet." in body
    assert "November calibration" not in body


def test_it_renders_in_a_fixed_number_of_queries(
    question: Question, lead: User, interviewer: User, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    clients = [signed_in(lead), signed_in(interviewer)]

    def read(client: Client, rows: int) -> None:
        response = client.get(URL)
        assert response.status_code == 200
        assert response.content.decode().count("<strong>") == rows

    for n in range(2):
        create(question, lead, [interviewer], 4, 1, 3, title=f"Exercise {n}")
    # 1 session, 2 user, 3 the viewer's time zone, 4 persona groups, 5 exercises
    # (version, question, created_by joined; answers counted).
    assert [count_queries(lambda c=c: read(c, 2)) for c in clients] == [5, 5]
    for n in range(2, 12):
        create(question, lead, [interviewer], 4, 1, 3, title=f"Exercise {n}")
    for client in clients:
        # One of them reads the viewer's time zone (their profile), as every page does.
        with django_assert_max_num_queries(5):
            read(client, 12)
