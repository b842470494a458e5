"""selectors.exercise_report, against values worked out by hand.

Three answers keyed 4, 1 and 3 on a 1-4 scale. Ines, Omar and Pia score all three;
Sam scores only answer 2; Olga is invited and scores nothing.

    answer (key)   Ines  Omar  Pia  Sam   median  range
    1 (4)            4     3    2    -      3     2-4
    2 (1)            2     1    1    1      1     1-2
    3 (3)            4     3    1    -      3     1-4

Gaps to the median: Ines +1 +1 +1, Omar 0 0 0, Pia -1 0 -2, Sam 0.
Gaps to the key:    Ines 0 +1 +1, Omar -1 0 0, Pia -2 0 -2, Sam 0.

The complete grid is the three answers by Ines, Omar and Pia. By hand: grand mean 7/3,
answer means 3, 4/3, 8/3, interviewer means 10/3, 7/3, 4/3, so SS(answers) = 14/3,
SS(interviewers) = 6, SS(total) = 12 and SS(error) = 4/3; MSR = 7/3, MSC = 3, MSE = 1/3
and ICC(2,1) = (MSR - MSE) / (MSR + 2 MSE + (MSC - MSE)) = 2 / (17/3) = 6/17.
"""

import numpy as np
import pytest
from django.contrib.auth.models import User

from kit.models import Question
from scoring.calibration import stats
from scoring.exercises import selectors, services
from scoring.models import CalibrationExercise
from tests.scoring.exercises.helpers import answers, create, rubric

GRID = [[4, 3, 2], [2, 1, 1], [4, 3, 1]]  # answers x (Ines, Omar, Pia)


@pytest.fixture
def scored(
    question: Question,
    lead: User,
    interviewer: User,
    other_interviewer: User,
    pia: User,
    sam: User,
    olga: User,
) -> CalibrationExercise:
    core, cost, strong, red = rubric(question)
    exercise = create(
        question,
        lead,
        [interviewer, other_interviewer, pia, sam, olga],
        4,
        1,
        3,
        checked=[(core.pk, cost.pk, strong.pk), (), (core.pk, cost.pk)],
    )
    first, second, third = answers(exercise)
    ticks = {
        # Ines misses "cost" on answer 3; Omar misses "cost" twice, "core" and "strong" once;
        # Pia ticks every keyed item (and a red flag besides); Sam has nothing keyed to tick.
        interviewer: [(4, [core, cost, strong]), (2, []), (4, [core])],
        other_interviewer: [(3, [core]), (1, []), (3, [])],
        pia: [(2, [core, cost, strong, red]), (1, [red]), (1, [core, cost])],
    }
    for person, scores in ticks.items():
        for answer, (rating, items) in zip((first, second, third), scores, strict=True):
            services.exercise_rate(
                answer=answer, by=person, rating=rating, checked=[i.pk for i in items]
            )
    services.exercise_rate(answer=second, by=sam, rating=1)
    return exercise


def report_of(exercise: CalibrationExercise, lead: User) -> selectors.ExerciseReport:
    return selectors.exercise_report(exercise=selectors.exercise_get(user=lead, pk=exercise.pk))


def test_it_compares_each_interviewer_with_the_panel_median_and_the_key(
    scored: CalibrationExercise, lead: User
) -> None:
    report = report_of(scored, lead)

    rows = [
        (r.user.username, r.rated, r.vs_median, r.vs_key, r.abs_vs_key) for r in report.participants
    ]
    assert rows == [
        ("ines", 3, 1.0, 0.667, 0.667),
        ("olga", 0, None, None, None),
        ("omar", 3, 0.0, -0.333, 0.333),
        ("pia", 3, -1.0, -1.333, 1.333),
        ("sam", 1, 0.0, 0.0, 0.0),
    ]


def test_it_counts_the_keyed_rubric_items_each_interviewer_missed(
    scored: CalibrationExercise, lead: User
) -> None:
    report = report_of(scored, lead)

    assert {r.user.username: r.missed for r in report.participants} == {
        "ines": [("Estimates the cost with numbers.", 1)],
        "olga": [],
        "omar": [
            ("Estimates the cost with numbers.", 2),
            ("A strong answer also compares two alternatives.", 1),
            ("Explains the mechanism in plain terms.", 1),
        ],
        "pia": [],
        "sam": [],
    }


def test_it_shows_each_answers_key_median_and_range(
    scored: CalibrationExercise, lead: User
) -> None:
    report = report_of(scored, lead)

    assert [(r.answer.order, r.key, r.median, r.low, r.high, r.n) for r in report.answers] == [
        (1, 4, 3.0, 2, 4, 3),
        (2, 1, 1.0, 1, 2, 4),
        (3, 3, 3.0, 1, 4, 3),
    ]


def test_it_computes_the_icc_on_the_complete_grid_only(
    scored: CalibrationExercise, lead: User
) -> None:
    report = report_of(scored, lead)

    # Sam (one answer) and Olga (none) keep their rows but stay out of the grid.
    assert [u.username for u in report.complete] == ["ines", "omar", "pia"]
    expected = stats.icc(np.array(GRID, dtype=np.float64))
    assert report.icc == {
        "values": stats.to_jsonable(expected.values, 3),
        "ci95": stats.to_jsonable(expected.ci95, 3),
    }
    assert report.icc is not None
    assert report.icc["values"]["ICC2"] == round(6 / 17, 3) == 0.353
    assert report.icc["values"]["ICC3"] == round(2 / 3, 3)
    assert report.icc["values"]["ICC2k"] == round(18 / 29, 3)


def test_the_icc_of_the_hand_made_grid_matches_the_mean_squares_worked_by_hand() -> None:
    result = stats.icc(GRID)

    assert result.mean_squares["MSR"] == pytest.approx(7 / 3)
    assert result.mean_squares["MSC"] == pytest.approx(3)
    assert result.mean_squares["MSE"] == pytest.approx(1 / 3)
    msr, msc, mse, n, k = 7 / 3, 3, 1 / 3, 3, 3
    by_hand = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    assert by_hand == pytest.approx(6 / 17)
    assert result.values["ICC2"] == pytest.approx(by_hand)


def test_it_has_no_icc_with_fewer_than_two_complete_interviewers(
    question: Question, lead: User, interviewer: User, other_interviewer: User
) -> None:
    exercise = create(question, lead, [interviewer, other_interviewer], 4, 1, 3)
    first, second, third = answers(exercise)
    for answer, rating in ((first, 4), (second, 1), (third, 3)):
        services.exercise_rate(answer=answer, by=interviewer, rating=rating)
    services.exercise_rate(answer=first, by=other_interviewer, rating=2)
    services.exercise_rate(answer=second, by=other_interviewer, rating=2)

    report = report_of(exercise, lead)

    assert [u.username for u in report.complete] == ["ines"]
    assert report.icc is None
    assert [(r.user.username, r.rated) for r in report.participants] == [("ines", 3), ("omar", 2)]


def test_it_reports_an_exercise_nobody_scored(
    question: Question, lead: User, interviewer: User
) -> None:
    exercise = create(question, lead, [interviewer], 4, 1)

    report = report_of(exercise, lead)

    assert report.icc is None
    assert report.complete == []
    assert [(r.median, r.low, r.high, r.n) for r in report.answers] == [(None, None, None, 0)] * 2
    assert [(r.rated, r.vs_median, r.missed) for r in report.participants] == [(0, None, [])]
