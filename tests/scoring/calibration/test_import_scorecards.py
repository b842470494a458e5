"""`manage.py import_scorecards FILE.csv`: historical ratings, all checked before any is written.

Every refusal asserts the exact `FILE:LINE: message` and that no row was written.
The happy path runs on whichever database the suite runs on; on PostgreSQL the
rows go through COPY (scoring.calibration.bulk), so JSON columns written that way are checked.
"""

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management.base import CommandError
from django.db import OperationalError, connection

from core.permissions import INTERVIEWER
from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit import services as kit_services
from kit.models import Question, Role
from scoring.calibration import bulk
from scoring.models import QuestionRating, Scorecard
from tests.scoring.calibration.helpers import ROLE, counts, import_scorecards, write_csv
from tests.support.factories import RoleFactory, make_question

UTC = dt.UTC
FULL_HEADER = ("candidate", "interviewer", "question", "rating", "recommendation", "decision",
               "interviewed_at")  # fmt: skip


def refused(path: Path, *args: str) -> str:
    """Run the import expecting a refusal; return the message, having checked nothing changed."""
    before = counts()
    with pytest.raises(CommandError) as failure:
        import_scorecards(path, "--role", ROLE, *args)
    assert counts() == before
    return str(failure.value)


# --- the happy path ------------------------------------------------------------------------


def test_it_creates_candidates_interviewers_questions_scorecards_and_ratings(
    role: Role, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "history.csv",
        [
            ("Ada Byron", "kim", "Sharding a model", 3),
            ("Ada Byron", "kim", "Serving latency", 5),
            ("Ada Byron", "lee", "Sharding a model", 2),
            ("Bo Chen", "kim", "Serving latency", 1),
            ("Bo Chen", "lee", "Serving latency", 2),
            ("Bo Chen", "lee", "Sharding a model", 4),
        ],
    )

    out = import_scorecards(path, "--role", ROLE, "--scale-max", "5", "--level", "L5")

    assert out.strip() == (
        f"{path}: 6 ratings in 4 scorecards; created 2 candidates, 2 interviewers, 2 questions"
    )
    assert sorted(Candidate.objects.values_list("name", flat=True)) == ["Ada Byron", "Bo Chen"]
    for username in ("kim", "lee"):
        user = User.objects.get(username=username)
        assert list(user.groups.values_list("name", flat=True)) == [INTERVIEWER]
        assert not user.has_usable_password()
    questions = {q.title: q for q in Question.objects.select_related("current")}
    assert sorted(questions) == ["Serving latency", "Sharding a model"]
    for question in questions.values():
        assert (question.role, question.status) == (role, Question.Status.DRAFT)
        assert (question.current.number, question.current.scale_max) == (1, 5)
        assert question.current.in_use
        assert question.current.prompt == question.title

    # One decided-or-debrief loop per candidate at the given level, one interview each.
    for loop in Loop.objects.select_related("candidate", "level"):
        assert (loop.role, loop.level.name, loop.status) == (role, "L5", Loop.Status.DEBRIEF)
        assert (loop.decision, loop.decided_at) == ("", None)
        assert loop.warnings == []
        interview = loop.interviews.get()
        assert interview.competencies == []
        assert (interview.scheduled_start, interview.scheduled_end) == (None, None)
        panel = Panelist.objects.filter(interview=interview)
        assert sorted(panel.values_list("user__username", "is_shadow")) == [
            ("kim", False),
            ("lee", False),
        ]
    items = InterviewQuestion.objects.filter(loop__candidate__name="Ada Byron").order_by("order")
    assert [i.question.title for i in items] == ["Sharding a model", "Serving latency"]

    # One submitted scorecard per (candidate, interviewer), one rating per row.
    cards = Scorecard.objects.select_related("interviewer", "interview__loop__candidate")
    assert sorted((c.interview.loop.candidate.name, c.interviewer.username) for c in cards) == [
        ("Ada Byron", "kim"),
        ("Ada Byron", "lee"),
        ("Bo Chen", "kim"),
        ("Bo Chen", "lee"),
    ]
    for card in cards:
        assert (card.status, card.is_shadow, card.recommendation) == ("submitted", False, "")
        assert card.submitted_at is not None
    ratings = QuestionRating.objects.select_related(
        "scorecard__interviewer", "scorecard__interview__loop__candidate", "item__question"
    )
    assert sorted(
        (
            r.scorecard.interview.loop.candidate.name,
            r.scorecard.interviewer.username,
            r.item.question.title,
            r.rating,
        )
        for r in ratings
    ) == [
        ("Ada Byron", "kim", "Serving latency", 5),
        ("Ada Byron", "kim", "Sharding a model", 3),
        ("Ada Byron", "lee", "Sharding a model", 2),
        ("Bo Chen", "kim", "Serving latency", 1),
        ("Bo Chen", "lee", "Serving latency", 2),
        ("Bo Chen", "lee", "Sharding a model", 4),
    ]
    for rating in ratings:
        assert rating.version_id == questions[rating.item.question.title].current_id
        assert rating.item.interview_id == rating.scorecard.interview_id
        assert (rating.not_asked, rating.not_asked_reason, rating.notes) == (False, "", "")


def test_optional_columns_land_on_the_scorecard_and_a_decided_loop(
    role: Role, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "history.csv",
        [
            ("Ada Byron", "kim", "Sharding a model", 3, "yes", "hire", "2024-03-01 10:00"),
            ("Ada Byron", "kim", "Serving latency", 4, "", "", ""),
            ("Ada Byron", "lee", "Sharding a model", 4, "STRONG_YES", "HIRE", "2024-03-01"),
            ("Bo Chen", "kim", "Serving latency", 1, "", "", ""),
            ("Bo Chen", "kim", "Sharding a model", 2, "strong_no", "", ""),
        ],
        header=FULL_HEADER,
    )

    import_scorecards(path, "--role", ROLE)

    ada = Loop.objects.get(candidate__name="Ada Byron")
    # The earliest interview date of the candidate dates the interview and the decision.
    first = dt.datetime(2024, 3, 1, tzinfo=UTC)
    assert (ada.status, ada.decision, ada.decided_at) == (Loop.Status.DECIDED, "hire", first)
    assert ada.decision_rationale == "Imported with historical scorecards."
    interview = ada.interviews.get()
    assert (interview.scheduled_start, interview.scheduled_end) == (
        first,
        first + dt.timedelta(hours=1),
    )
    bo = Loop.objects.get(candidate__name="Bo Chen")
    assert (bo.status, bo.decision, bo.decided_at) == (Loop.Status.DEBRIEF, "", None)
    cards = {
        (c.interview.loop.candidate.name, c.interviewer.username): c
        for c in Scorecard.objects.select_related("interviewer", "interview__loop__candidate")
    }
    assert {key: c.recommendation for key, c in cards.items()} == {
        ("Ada Byron", "kim"): "yes",
        ("Ada Byron", "lee"): "strong_yes",
        ("Bo Chen", "kim"): "strong_no",
    }
    assert cards[("Ada Byron", "kim")].submitted_at == first
    assert cards[("Ada Byron", "lee")].submitted_at == first


def test_interviewed_at_is_read_in_the_site_time_zone_on_the_loop_too(
    role: Role, tmp_path: Path, settings
) -> None:  # type: ignore[no-untyped-def]
    settings.TIME_ZONE = "Europe/Paris"
    path = write_csv(
        tmp_path / "history.csv",
        [("Ada Byron", "kim", "Sharding a model", 3, "yes", "hire", "2024-03-01 10:00")],
        header=FULL_HEADER,
    )

    import_scorecards(path, "--role", ROLE)

    # 10:00 in Paris (UTC+1 in March) is 09:00 UTC, for the interview, card and decision alike.
    moment = dt.datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    loop = Loop.objects.get()
    assert loop.interviews.get().scheduled_start == moment
    assert Scorecard.objects.get().submitted_at == moment
    assert loop.decided_at == moment


def test_it_reuses_existing_questions_users_and_candidates(
    role: Role, interviewer: User, tmp_path: Path
) -> None:
    existing = make_question(role=role, title="Sharding a model", scale_max=4)
    # The question was edited after being used: ratings pin its current version (v2).
    kit_services.question_version_mark_used(version=existing.current)
    kit_services.question_update(
        question=existing,
        content=kit_services.Content(
            prompt="How would you shard a 70B model?", outline="Tensor parallel. Pipeline."
        ),
    )
    existing.refresh_from_db()
    assert existing.current.number == 2
    Candidate.objects.create(name="Ada Byron", email="ada@example.com")
    before = counts()
    path = write_csv(
        tmp_path / "history.csv",
        [
            ("Ada Byron", "ines", "SHARDING A MODEL", 4),
            ("Ada Byron", "kim", "SHARDING A MODEL", 3),
            ("Ada Byron", "kim", "Serving latency", 7),
            ("Bo Chen", "kim", "sharding a model", 1),
        ],
    )

    out = import_scorecards(path, "--role", ROLE, "--scale-max", "7")

    assert out.strip().endswith("created 1 candidates, 1 interviewers, 1 questions")
    after = counts()
    assert after["Candidate"] == before["Candidate"] + 1
    assert after["User"] == before["User"] + 1
    assert after["Question"] == before["Question"] + 1
    existing.refresh_from_db()
    assert (existing.title, existing.status) == ("Sharding a model", "active")
    assert existing.current.scale_max == 4
    on_existing = QuestionRating.objects.filter(item__question=existing)
    assert sorted(on_existing.values_list("scorecard__interviewer__username", "rating")) == [
        ("ines", 4),
        ("kim", 1),
        ("kim", 3),
    ]
    assert set(on_existing.values_list("version_id", flat=True)) == {existing.current_id}
    assert Scorecard.objects.get(interviewer=interviewer).interview.loop.candidate.email == (
        "ada@example.com"
    )
    new = Question.objects.get(title="Serving latency")
    assert (new.status, new.current.scale_max) == ("draft", 7)


def test_a_question_of_another_role_is_not_reused(role: Role, tmp_path: Path) -> None:
    other = make_question(role=RoleFactory(name="Data Engineer"), title="Sharding a model")
    path = write_csv(tmp_path / "history.csv", [("Ada Byron", "kim", "Sharding a model", 3)])

    import_scorecards(path, "--role", ROLE)

    rating = QuestionRating.objects.select_related("item__question").get()
    assert rating.item.question != other
    assert rating.item.question.role == role


def test_a_blank_line_and_a_byte_order_mark_are_accepted(role: Role, tmp_path: Path) -> None:
    path = tmp_path / "history.csv"
    path.write_bytes(
        b"\xef\xbb\xbfCandidate , Interviewer,Question,RATING\r\n"
        b"Ada Byron,kim,Sharding a model,3\r\n"
        b",,,\r\n"
        b"\r\n"
        b"Bo Chen,kim,Sharding a model,2\r\n"
    )

    import_scorecards(path, "--role", ROLE)

    assert QuestionRating.objects.count() == 2


# --- refusals: exact message, nothing written -------------------------------------------


def test_it_refuses_an_empty_file(role: Role, tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")

    assert refused(path) == f"{path}:1: file is empty (expected a header row)"


def test_it_refuses_a_header_with_no_rows(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "header.csv", [])

    assert refused(path) == f"{path}:2: no rows after the header"


def test_it_refuses_a_header_missing_a_column(role: Role, tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "h.csv", [("Ada", "kim", "Q")], header=("candidate", "interviewer", "question")
    )

    assert refused(path) == f"{path}:1: header lacks column(s) rating"


def test_it_refuses_an_unknown_column(role: Role, tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "h.csv",
        [("Ada", "kim", "Q", 3, "x")],
        header=("candidate", "interviewer", "question", "rating", "score"),
    )

    assert refused(path) == f"{path}:1: unknown column 'score'"


GOOD = ("Ada Byron", "kim", "Sharding a model", "3", "yes", "hire", "2024-03-01")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (("Bo", "kim", "Q", "three", "", "", ""), "rating 'three' is not a whole number"),
        (("Bo", "kim", "Q", "2.5", "", "", ""), "rating '2.5' is not a whole number"),
        (("Bo", "kim", "Q", "6", "", "", ""), "rating 6 is outside the scale 1–5"),
        (("Bo", "kim", "Q", "0", "", "", ""), "rating 0 is outside the scale 1–5"),
        (("Bo", "kim", "Q", "-1", "", "", ""), "rating -1 is outside the scale 1–5"),
        (("", "kim", "Q", "3", "", "", ""), "'candidate' is empty"),
        (("Bo", "  ", "Q", "3", "", "", ""), "'interviewer' is empty"),
        (("Bo", "kim", "", "3", "", "", ""), "'question' is empty"),
        (("Bo", "kim", "Q", "", "", "", ""), "'rating' is empty"),
        (
            ("Bo", "kim smith", "Q", "3", "", "", ""),
            "interviewer 'kim smith' is not a valid username (letters, digits and @.+-_ only)",
        ),
        (
            ("Bo", "kim", "Q", "3", "maybe", "", ""),
            "recommendation 'maybe' is not one of no, strong_no, strong_yes, yes",
        ),
        (("Bo", "kim", "Q", "3", "", "offer", ""), "decision 'offer' is not hire or no_hire"),
        (
            ("Bo", "kim", "Q", "3", "", "", "last tuesday"),
            "interviewed_at 'last tuesday' is not a date (YYYY-MM-DD[ HH:MM])",
        ),
        (
            ("Bo", "kim", "Q", "3", "", "", "2024-02-30"),
            "interviewed_at '2024-02-30' is not a date (YYYY-MM-DD[ HH:MM])",
        ),
        (
            ("Bo\u2028Bcc: x", "kim", "Q", "3", "", "", ""),
            "candidate: Names are one line of text: remove the line separator (U+2028) at"
            " character 3.",
        ),
        (
            ("Bo", "kim", "Ring\tallreduce", "3", "", "", ""),
            "question: Names are one line of text: remove the tab (U+0009) at character 5.",
        ),
        (("Bo", "kim", "Q", "3", "", ""), "expected 7 fields, found 6"),
        (("Bo", "kim", "Q", "3", "", "", "", "extra"), "expected 7 fields, found 8"),
        (GOOD, "kim already rated 'Sharding a model' for Ada Byron"),
        (
            ("Ada Byron", "kim", "Serving latency", "3", "no", "", ""),
            "recommendation 'no' differs from 'yes' given earlier for kim on Ada Byron",
        ),
        (
            ("Ada Byron", "lee", "Serving latency", "3", "", "no_hire", ""),
            "decision 'no_hire' differs from 'hire' given earlier for Ada Byron",
        ),
    ],
)
def test_it_refuses_a_bad_row_naming_its_line(
    role: Role, tmp_path: Path, row: tuple[str, ...], message: str
) -> None:
    path = write_csv(tmp_path / "bad.csv", [GOOD, row], header=FULL_HEADER)

    assert refused(path, "--scale-max", "5") == f"{path}:3: {message}"


def test_it_checks_a_rating_against_an_existing_question_own_scale(
    role: Role, tmp_path: Path
) -> None:
    make_question(role=role, title="Sharding a model", scale_max=4)
    path = write_csv(
        tmp_path / "bad.csv",
        [("Ada", "kim", "Serving latency", 9), ("Ada", "kim", "sharding a model", 5)],
    )

    # 9 fits the new question's --scale-max 10; 5 does not fit the existing question's 1-4.
    assert refused(path, "--scale-max", "10") == f"{path}:3: rating 5 is outside the scale 1–4"


def test_it_refuses_bytes_that_are_not_utf8_naming_their_line(role: Role, tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes(
        b"candidate,interviewer,question,rating\n"
        b"Ada Byron,kim,Sharding a model,3\n"
        b"Bo Chen,kim,Sharding a model,2\n"
        b"Jos\xe9 Garc\xeda,kim,Sharding a model,4\n"
    )

    assert refused(path) == f"{path}:4: not valid UTF-8 (byte 0xe9 at column 4)"


def test_it_names_the_line_of_bad_bytes_deep_in_a_large_file(role: Role, tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    good = b"".join(b"Candidate %05d,kim,Sharding a model,3\n" % n for n in range(1, 3001))
    path.write_bytes(
        b"candidate,interviewer,question,rating\n" + good + b"Jos\xe9,kim,Sharding a model,4\n"
    )

    assert refused(path) == f"{path}:3002: not valid UTF-8 (byte 0xe9 at column 4)"


def test_it_refuses_a_missing_file(role: Role, tmp_path: Path) -> None:
    path = tmp_path / "nowhere.csv"

    assert refused(path) == f"{path}: no such file"


def test_it_refuses_a_scale_max_outside_2_to_10(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "ok.csv", [("Ada", "kim", "Q", 3)])

    assert refused(path, "--scale-max", "11") == "--scale-max must be between 2 and 10, not 11"
    assert refused(path, "--scale-max", "1") == "--scale-max must be between 2 and 10, not 1"


def test_it_refuses_an_unknown_level(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "ok.csv", [("Ada", "kim", "Q", 3)])

    assert refused(path, "--level", "L9") == "no level named 'L9'"


def test_it_lists_every_problem_in_line_order(role: Role, tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "bad.csv",
        [
            ("Ada", "kim", "Q", 3),
            ("Ada", "kim", "Q", 2),
            ("Bo", "kim", "Q", "x"),
            ("Cy", "", "Q", 1),
        ],
    )

    assert refused(path) == "\n".join(
        [
            f"{path}:3: kim already rated 'Q' for Ada",
            f"{path}:4: rating 'x' is not a whole number",
            f"{path}:5: 'interviewer' is empty",
        ]
    )


def test_it_lists_20_problems_and_says_it_stopped(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "bad.csv", [(f"C{n}", "kim", "Q", "x") for n in range(30)])

    message = refused(path)

    lines = message.splitlines()
    assert lines == [
        *(f"{path}:{n}: rating 'x' is not a whole number" for n in range(2, 22)),
        f"{path}: stopped after 20 problems",
    ]


def test_it_says_it_stopped_after_20_duplicate_rows_too(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "dup.csv", [("Ada", "kim", "Q", 3)] * 31)

    lines = refused(path).splitlines()

    assert lines == [
        *(f"{path}:{n}: kim already rated 'Q' for Ada" for n in range(3, 23)),
        f"{path}: stopped after 20 problems",
    ]


def test_a_bad_row_after_many_good_rows_writes_nothing(role: Role, tmp_path: Path) -> None:
    rows: list[tuple[object, ...]] = [
        (f"Candidate {c}", f"rater-{r}", f"Question {q}", 1 + (c + r + q) % 4)
        for c in range(250)
        for r in range(4)
        for q in range(3)
    ]
    path = write_csv(tmp_path / "late.csv", [*rows, ("Candidate 0", "rater-0", "Question 0", 9)])

    assert refused(path) == f"{path}:3002: rating 9 is outside the scale 1–4"


def test_a_failure_while_writing_the_ratings_leaves_nothing_behind(
    role: Role, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [(f"Candidate {c}", f"rater-{r}", "Question", 1 + (c + r) % 4)
            for c in range(100) for r in range(3)]  # fmt: skip
    path = write_csv(tmp_path / "ok.csv", rows)
    if connection.vendor == "postgresql":
        # The database itself gives up once the ratings are in, as with a full disk:
        # a statement trigger (undone with the test's transaction) raises disk_full.
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$"
            )
            cursor.execute(
                "CREATE TRIGGER disk_full AFTER INSERT ON scoring_questionrating "
                "FOR EACH STATEMENT EXECUTE FUNCTION disk_full()"
            )
    else:
        real_copy = bulk.copy

        def disk_full(model: Any, fields: Any, rows: Any) -> int:
            if model is not QuestionRating:
                return real_copy(model, fields, rows)
            # Half the ratings go in, then the database gives up (the edge, simulated).
            real_copy(model, fields, itertools.islice(rows, 150))
            raise OperationalError("could not extend file: No space left on device")

        monkeypatch.setattr(bulk, "copy", disk_full)
    before = counts()

    with pytest.raises(OperationalError, match="could not extend file"):
        import_scorecards(path, "--role", ROLE)

    assert counts() == before


def test_a_question_title_repeated_in_another_case_is_one_question(
    role: Role, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "case.csv",
        [("Ada", "kim", "Sharding a model", 3), ("Ada", "lee", "SHARDING A MODEL", 2)],
    )

    import_scorecards(path, "--role", ROLE)

    question = Question.objects.get()
    assert InterviewQuestion.objects.filter(question=question).count() == 1
    assert QuestionRating.objects.filter(item__question=question).count() == 2


def test_a_refused_file_creates_no_role(db: None, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "bad.csv", [("Ada", "kim", "Q", "x")])
    before = counts()

    with pytest.raises(CommandError):
        import_scorecards(path, "--role", "Platform Engineer")
    with pytest.raises(CommandError):
        import_scorecards(path)

    assert counts() == before
    assert not Role.objects.exists()


def test_it_imports_into_the_only_role_without_role_given(role: Role, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "ok.csv", [("Ada", "kim", "Q", 3)])

    import_scorecards(path)

    assert Role.objects.get() == role
    assert Loop.objects.get().role == role
    assert Interview.objects.count() == 1
