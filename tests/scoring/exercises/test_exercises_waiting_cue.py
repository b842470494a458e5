"""My interviews tells an interviewer which calibration exercises wait for their scores
(scoring.exercises.selectors.exercises_waiting_for, through the `calibration` tags)."""

from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kit.models import Question
from scoring.exercises import selectors, services
from tests.scoring.exercises.helpers import answers, create, signed_in

URL = "/interviews/"


def cue(html: str) -> str:
    start = html.index('id="exercises-waiting"')
    return html[start : html.index("</section>", start)]


def test_it_lists_the_open_exercises_with_answers_left_and_how_far_along_she_is(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    started = create(question, lead, [interviewer], 4, 1, 3, title="Started")
    fresh = create(question, lead, [interviewer, other_interviewer], 2, 3, title="Fresh")
    done = create(question, lead, [interviewer], 3, 1, title="Done")
    closed = create(question, lead, [interviewer], 3, 1, title="Closed")
    create(question, lead, [other_interviewer], 3, 1, title="Not hers")
    services.exercise_rate(answer=answers(started)[0], by=interviewer, rating=4)
    for answer in answers(done):
        services.exercise_rate(answer=answer, by=interviewer, rating=3)
    # Omar scoring Fresh does not count as hers.
    services.exercise_rate(answer=answers(fresh)[0], by=other_interviewer, rating=2)
    services.exercise_close(exercise=closed, by=lead)

    with CaptureQueriesContext(connection) as queries:
        waiting = selectors.exercises_waiting_for(user=interviewer)
    assert len(queries) == 1
    assert [(e.title, e.n_scored, e.n_answers) for e in waiting] == [
        ("Started", 1, 3),
        ("Fresh", 0, 2),
    ]

    html = cue(signed_in(interviewer).get(URL).content.decode())
    assert "Calibration exercises waiting for you" in html
    started_link = f'<a href="/calibration/exercises/{started.pk}/">Started</a>'
    assert f"{started_link}: 1 of 3 answers scored." in html
    assert f'<a href="/calibration/exercises/{fresh.pk}/">Fresh</a>: 0 of 2 answers scored.' in html
    for absent in ("Done", "Closed", "Not hers"):
        assert absent not in html


def test_there_is_no_cue_when_nothing_waits(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    create(question, lead, [other_interviewer], 3, 1, title="Not hers")
    body = signed_in(interviewer).get(URL).content.decode()
    assert 'id="exercises-waiting"' not in body
    assert selectors.exercises_waiting_for(user=lead) == []
