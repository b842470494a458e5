"""A closed exercise shows each participant the key and their own gap to it, per answer
(selectors.own_exercise_gaps); an open one shows neither, and no one sees another's scores."""

import pytest
from django.contrib.auth.models import User

from kit.models import Question
from scoring.exercises import selectors, services
from scoring.models import CalibrationExercise
from tests.scoring.calibration.helpers import tables
from tests.scoring.exercises.helpers import answers, create, rubric, signed_in
from tests.scoring.helpers import count_queries

TITLE = "The key and your scores"


def url(exercise: CalibrationExercise) -> str:
    return f"/calibration/exercises/{exercise.pk}/"


@pytest.fixture
def exercise(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> CalibrationExercise:
    """Keys 4, 1, 3; the key ticks both core points on answer 1 and the red flag on 3.
    Ines scores answer 1 a 3 (one core point ticked) and answer 2 a 2 (red flag ticked),
    and leaves answer 3; Omar scores every answer a 4."""
    core, cost, _strong, red = rubric(question)
    built = create(
        question, lead, [interviewer, other_interviewer], 4, 1, 3,
        checked=[[core.pk, cost.pk], [], [red.pk]],
    )  # fmt: skip
    first, second, third = answers(built)
    services.exercise_rate(answer=first, by=interviewer, rating=3, checked=[core.pk])
    services.exercise_rate(answer=second, by=interviewer, rating=2, checked=[red.pk])
    for answer in (first, second, third):
        services.exercise_rate(answer=answer, by=other_interviewer, rating=4)
    return built


def test_a_participant_sees_the_key_and_their_own_gap_once_it_closes(
    question: Question, exercise: CalibrationExercise, lead: User, interviewer: User
) -> None:
    _core, cost, _strong, red = rubric(question)
    services.exercise_close(exercise=exercise, by=lead)

    body = signed_in(interviewer).get(url(exercise)).content.decode()

    assert tables(body)[TITLE] == [
        ["Answer", "Key", "Your score", "Gap", "Key items you did not tick",
         "Items you ticked beyond the key"],
        ["Answer 1", "4", "3", "-1", cost.text, "—"],
        ["Answer 2", "1", "2", "+1", "—", red.text],
        ["Answer 3", "3", "—", "—", "not scored", "—"],
    ]  # fmt: skip
    # Her own scores only: nothing of Omar's, nor the panel's.
    assert "Omar" not in body and "omar" not in body
    assert "median" not in body and "ICC" not in body


def test_an_open_exercise_shows_no_key(exercise: CalibrationExercise, interviewer: User) -> None:
    body = signed_in(interviewer).get(url(exercise)).content.decode()

    assert TITLE not in body
    assert "Save my scores" in body
    assert selectors.own_exercise_gaps(exercise=exercise, mine={}) is None


def test_a_participant_who_scored_nothing_sees_the_key_with_nothing_of_theirs(
    question: Question, lead: User, interviewer: User, pia: User
) -> None:
    built = create(question, lead, [interviewer, pia], 2, 3)
    services.exercise_close(exercise=built, by=lead)

    found = tables(signed_in(pia).get(url(built)).content.decode())[TITLE]

    assert found[1:] == [
        ["Answer 1", "2", "—", "—", "not scored", "—"],
        ["Answer 2", "3", "—", "—", "not scored", "—"],
    ]


def test_a_lead_who_does_not_take_part_reads_the_report_not_a_gap_table(
    exercise: CalibrationExercise, lead: User
) -> None:
    services.exercise_close(exercise=exercise, by=lead)

    body = signed_in(lead).get(url(exercise)).content.decode()

    assert "Agreement" in body and TITLE not in body


def test_the_closed_page_makes_as_many_queries_for_more_answers(
    question: Question, lead: User, interviewer: User
) -> None:
    core = rubric(question)[0].pk
    small = create(question, lead, [interviewer], 1, 2, title="small", checked=[[core]] * 2)
    big = create(question, lead, [interviewer], *[1, 2, 3, 4] * 2, title="big",
                 checked=[[core]] * 8)  # fmt: skip
    for built in (small, big):
        for answer in answers(built):
            services.exercise_rate(answer=answer, by=interviewer, rating=2, checked=[core])
        services.exercise_close(exercise=built, by=lead)
    client = signed_in(interviewer)

    def read(built: CalibrationExercise, rows: int) -> None:
        response = client.get(url(built))
        assert len(tables(response.content.decode())[TITLE]) == 1 + rows

    # 1 session, 2 user, 3 the viewer's time zone, 4 persona groups, 5 exercise, 6 answers,
    # 7 their key rubric items, 8 the version's rubric, 9 participants, 10 her own scores,
    # 11 the items she ticked: the key and her gaps come from what the page already holds.
    assert count_queries(lambda: read(small, 2)) == count_queries(lambda: read(big, 8)) == 11
