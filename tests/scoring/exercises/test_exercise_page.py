"""/calibration/exercises/{id}/: participants score blind; the lead reads the report and closes."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.models import AuditEvent
from core.permissions import INTERVIEWER
from kit.models import Question
from scoring.exercises import services
from scoring.models import CalibrationExercise, ExerciseRating, ReferenceAnswer
from tests.conftest import make_user
from tests.scoring.exercises.helpers import answers, create, rubric, signed_in
from tests.scoring.helpers import count_queries

GRID = [[4, 3, 2], [2, 1, 1], [4, 3, 1]]  # answers x (Ines, Omar, Pia); see test_exercise_report


@pytest.fixture
def exercise(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> CalibrationExercise:
    return create(question, lead, [interviewer, other_interviewer], 4, 1, 3)


def url(exercise: CalibrationExercise) -> str:
    return f"/calibration/exercises/{exercise.pk}/"


def stored() -> list[tuple[int, int, int, set[int]]]:
    return [
        (s.answer_id, s.interviewer_id, s.rating, {c.pk for c in s.checked.all()})
        for s in ExerciseRating.objects.order_by("pk")
    ]


def radio(answer: ReferenceAnswer, value: int, checked: bool) -> str:
    return (
        f'<input type="radio" name="a{answer.pk}-rating" value="{value}" '
        f"{'checked' if checked else ''}>"
    )


def box(answer: ReferenceAnswer, item: int, checked: bool) -> str:
    return (
        f'<input type="checkbox" name="a{answer.pk}-checked" value="{item}" '
        f"{'checked' if checked else ''}>"
    )


def test_it_shows_a_participant_the_transcripts_and_a_scoring_form(
    exercise: CalibrationExercise, interviewer: User
) -> None:
    response = signed_in(interviewer).get(url(exercise))

    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>November calibration</h1>" in body
    assert '<blockquote class="prompt">How big is the KV cache?</blockquote>' in body
    for n, answer in enumerate(answers(exercise), start=1):
        assert f'<blockquote class="transcript">Transcript {n}</blockquote>' in body
        for value in range(1, 5):
            assert radio(answer, value, checked=False) in body
    assert "Save my scores" in body
    # The key is the lead's: a participant does not see it.
    assert "key 4" not in body
    assert " checked>" not in body


def test_it_keeps_a_participants_choices_on_reload(
    question: Question, exercise: CalibrationExercise, interviewer: User
) -> None:
    first, second, third = answers(exercise)
    core, cost, strong, red = rubric(question)
    client = signed_in(interviewer)

    response = client.post(
        url(exercise),
        {
            f"a{first.pk}-rating": "3",
            f"a{first.pk}-checked": [str(core.pk), str(strong.pk)],
            f"a{second.pk}-rating": "1",
            f"a{second.pk}-checked": [str(red.pk)],
        },
    )

    assert response.status_code == 302
    assert response.url == url(exercise)
    assert stored() == [
        (first.pk, interviewer.pk, 3, {core.pk, strong.pk}),
        (second.pk, interviewer.pk, 1, {red.pk}),
    ]
    body = client.get(url(exercise)).content.decode()
    assert "Scores saved." in body
    assert radio(first, 3, checked=True) in body
    assert box(first, core.pk, checked=True) in body
    assert box(first, strong.pk, checked=True) in body
    assert box(first, cost.pk, checked=False) in body
    assert radio(second, 1, checked=True) in body
    assert box(second, red.pk, checked=True) in body
    assert radio(third, 1, checked=False) in body
    assert body.count(" checked>") == 5

    # A second save changes the scores in place.
    client.post(url(exercise), {f"a{first.pk}-rating": "4"})
    assert stored() == [
        (first.pk, interviewer.pk, 4, set()),
        (second.pk, interviewer.pk, 1, {red.pk}),
    ]


def test_it_never_shows_a_participant_the_others_scores_or_the_report(
    exercise: CalibrationExercise, interviewer: User, other_interviewer: User
) -> None:
    for answer in answers(exercise):
        services.exercise_rate(answer=answer, by=other_interviewer, rating=4)

    response = signed_in(interviewer).get(url(exercise))

    assert response.status_code == 200
    body = response.content.decode()
    assert "Omar" not in body
    assert "omar" not in body
    assert "Agreement" not in body
    assert "ICC" not in body
    assert "median" not in body
    assert " checked>" not in body


def test_it_hides_the_exercise_from_an_interviewer_who_is_not_invited(
    exercise: CalibrationExercise, pia: User
) -> None:
    client = signed_in(pia)
    first = answers(exercise)[0]

    assert client.get(url(exercise)).status_code == 404
    assert client.post(url(exercise), {f"a{first.pk}-rating": "3"}).status_code == 404
    assert stored() == []
    assert "November calibration" not in client.get("/calibration/exercises/").content.decode()


def test_it_hides_the_exercise_from_a_recruiter(
    exercise: CalibrationExercise, recruiter: User
) -> None:
    assert signed_in(recruiter).get(url(exercise)).status_code == 404


def test_it_forbids_a_lead_who_is_not_a_participant_to_score(
    exercise: CalibrationExercise, lead: User
) -> None:
    first = answers(exercise)[0]

    response = signed_in(lead).post(url(exercise), {f"a{first.pk}-rating": "3"})

    assert response.status_code == 403
    assert stored() == []


def test_it_saves_none_of_the_scores_when_one_is_refused(
    exercise: CalibrationExercise, interviewer: User
) -> None:
    first, second, _ = answers(exercise)

    response = signed_in(interviewer).post(
        url(exercise), {f"a{first.pk}-rating": "3", f"a{second.pk}-rating": "9"}
    )

    assert response.status_code == 200
    assert "answer 2: rating 9 is outside the scale 1–4." in response.content.decode()
    assert stored() == []


def test_it_refuses_a_rating_that_is_not_a_number(
    exercise: CalibrationExercise, interviewer: User
) -> None:
    first = answers(exercise)[0]

    response = signed_in(interviewer).post(url(exercise), {f"a{first.pk}-rating": "three"})

    assert response.status_code == 200
    assert "A rating or rubric item is not a number." in response.content.decode()
    assert stored() == []


def test_it_shows_the_lead_the_report(
    question: Question, lead: User, interviewer: User, other_interviewer: User, pia: User
) -> None:
    exercise = create(question, lead, [interviewer, other_interviewer, pia], 4, 1, 3)
    people = [interviewer, other_interviewer, pia]
    for answer, row in zip(answers(exercise), GRID, strict=True):
        for person, rating in zip(people, row, strict=True):
            services.exercise_rate(answer=answer, by=person, rating=rating)
    services.exercise_rate(
        answer=answers(exercise)[0], by=pia, rating=2, checked=[rubric(question)[0].pk]
    )

    response = signed_in(lead).get(url(exercise))

    assert response.status_code == 200
    body = response.content.decode()
    assert "<h2>Agreement</h2>" in body
    assert "Over 3 answers × 3 interviewers who scored them all:" in body
    assert "<strong>ICC(2,1) 0.353</strong>" in body
    assert "ICC(3,1) 0.667, ICC(2,k) 0.621." in body
    assert (
        '<tr><td>Ines</td><td class="num">3 / 3</td>\n'
        '        <td class="num">1.0</td><td class="num">0.667</td><td class="num">0.667</td>'
    ) in body
    assert (
        '<tr><td>Omar</td><td class="num">3 / 3</td>\n'
        '        <td class="num">0.0</td><td class="num">-0.333</td><td class="num">0.333</td>'
    ) in body
    assert (
        '<tr><td>Pia</td><td class="num">3 / 3</td>\n'
        '        <td class="num">-1.0</td><td class="num">-1.333</td><td class="num">1.333</td>'
    ) in body
    assert "key 4 · median 3.0 · range 2–4 · 3 scored" in body
    assert "key 1 · median 1.0 · range 1–2 · 3 scored" in body
    assert "key 3 · median 3.0 · range 1–4 · 3 scored" in body
    assert '<button name="action" value="close">Close exercise</button>' in body
    assert "Save my scores" not in body


def test_it_shows_no_none_when_the_panel_agrees_perfectly(
    exercise: CalibrationExercise, lead: User, interviewer: User, other_interviewer: User
) -> None:
    # With no residual variance the ICC is 1 but its confidence interval is undefined.
    for answer, rating in zip(answers(exercise), (4, 1, 3), strict=True):
        for person in (interviewer, other_interviewer):
            services.exercise_rate(answer=answer, by=person, rating=rating)

    body = signed_in(lead).get(url(exercise)).content.decode()

    assert "<strong>ICC(2,1) 1.0</strong>" in body
    assert "None" not in body


def test_the_lead_closes_it_and_then_scores_are_refused(
    exercise: CalibrationExercise, lead: User, interviewer: User
) -> None:
    first = answers(exercise)[0]
    services.exercise_rate(answer=first, by=interviewer, rating=2)

    response = signed_in(lead).post(url(exercise), {"action": "close"})

    assert response.status_code == 302
    assert response.url == url(exercise)
    exercise.refresh_from_db()
    assert exercise.status == CalibrationExercise.Status.CLOSED
    assert AuditEvent.objects.filter(action="exercise.closed").count() == 1
    body = signed_in(lead).get(url(exercise)).content.decode()
    assert "Close exercise" not in body
    assert '<span class="status status-closed">Closed</span>' in body

    client = signed_in(interviewer)
    response = client.post(url(exercise), {f"a{first.pk}-rating": "4"})

    assert response.status_code == 200
    body = response.content.decode()
    assert "This exercise is closed; its scores can no longer change." in body
    assert "This exercise is closed. Your scores are kept in the lead's report." in body
    assert "Save my scores" not in body
    assert stored() == [(first.pk, interviewer.pk, 2, set())]


def test_it_tells_the_lead_an_exercise_is_already_closed(
    exercise: CalibrationExercise, lead: User
) -> None:
    services.exercise_close(exercise=exercise, by=lead)
    client = signed_in(lead)

    response = client.post(url(exercise), {"action": "close"})

    assert response.status_code == 302
    assert "This exercise is already closed." in client.get(url(exercise)).content.decode()
    assert AuditEvent.objects.filter(action="exercise.closed").count() == 1


def test_a_participant_cannot_close_it(exercise: CalibrationExercise, interviewer: User) -> None:
    signed_in(interviewer).post(url(exercise), {"action": "close"})

    exercise.refresh_from_db()
    assert exercise.status == CalibrationExercise.Status.OPEN
    assert not AuditEvent.objects.filter(action="exercise.closed").exists()


def scored(question: Question, lead: User, n_answers: int, n_people: int) -> CalibrationExercise:
    """An exercise of `n_answers` answers that `n_people` interviewers all scored, with ticks."""
    people = [make_user(f"{n_answers}x{n_people}-{n}", INTERVIEWER) for n in range(n_people)]
    exercise = create(
        question,
        lead,
        people,
        *[1 + n % 4 for n in range(n_answers)],
        checked=[[r.pk for r in rubric(question)[:2]]] * n_answers,
        title=f"{n_answers} x {n_people}",
    )
    core = rubric(question)[0].pk
    for a, answer in enumerate(answers(exercise)):
        for p, person in enumerate(people):
            services.exercise_rate(
                answer=answer, by=person, rating=1 + (a + p) % 4, checked=[core] if p % 2 else []
            )
    return exercise


def test_the_report_renders_in_a_fixed_number_of_queries(
    question: Question, lead: User, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    small = scored(question, lead, 3, 3)
    big = scored(question, lead, 8, 10)
    client = signed_in(lead)

    def read(exercise: CalibrationExercise, people: int) -> None:
        response = client.get(url(exercise))
        assert response.status_code == 200
        assert f"× {people} interviewers who scored them all" in response.content.decode()

    # 1 session, 2 user, 3 persona groups, 4 exercise (version, question, created_by
    # joined; answers counted), 5 answers, 6 their key rubric items, 7 the version's
    # rubric, 8 participants, 9 scores (interviewer joined), 10 rubric items ticked,
    # 11 the lead's own scores (none, so nothing ticked to fetch).
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(12):
        read(big, 10)
    assert count_queries(lambda: read(small, 3)) == count_queries(lambda: read(big, 10)) == 12


def test_the_scoring_form_renders_in_a_fixed_number_of_queries(
    question: Question, lead: User, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    small = scored(question, lead, 3, 3)
    big = scored(question, lead, 8, 10)
    client = signed_in(User.objects.get(username="8x10-1"))
    other = signed_in(User.objects.get(username="3x3-1"))

    def read(client: Client, exercise: CalibrationExercise, answers: int) -> None:
        response = client.get(url(exercise))
        assert response.status_code == 200
        assert response.content.decode().count("<fieldset") == answers

    # 1 session, 2 user, 3 persona groups, 4 exercise, 5 answers, 6 their key rubric
    # items, 7 the version's rubric, 8 participants, 9 her own scores, 10 the items she
    # ticked.
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(11):
        read(client, big, 8)
    assert count_queries(lambda: read(other, small, 3)) == 11
