"""The exact import path (any database): every row read and checked in Python."""

from collections.abc import Iterator

from django.db import connection
from django.utils import timezone

from interviews.models import Candidate, Interview, InterviewQuestion, Loop, Panelist
from kit.models import Level, Role
from scoring.calibration import bulk, importers
from scoring.calibration.history.shared import (
    IMPORTED,
    HistoryImportResult,
    Progress,
    aware,
    entities_create,
    role_questions,
    scale_of,
)
from scoring.models import QuestionRating, Scorecard


def exact_import(
    path: str, role: Role, level: Level, scale_max: int, report: Progress
) -> HistoryImportResult:
    """Import row by row in Python.

    1. First pass: check every row (ImportFailed lists up to 20 problems with
       their line numbers; nothing has been written) and collect the distinct
       candidates, interviewers, questions and scorecards.
    2. Create what is missing: interviewers, candidates, questions.
    3. Per candidate, one decided (or debrief) loop with one interview whose
       panel is everyone who rated them; per candidate and interviewer, one
       submitted scorecard.
    4. Second pass: stream the ratings into the database (COPY on PostgreSQL).
    """
    questions = role_questions(role)

    def scale_for(title: str) -> int:
        return scale_of(questions, title.casefold(), scale_max)

    found = importers.survey(path, scale_max_for=scale_for, progress=lambda n: report("checked", n))
    now = timezone.now()
    made = entities_create(
        role=role, scale_max=scale_max, questions=questions, interviewers=found.interviewers,
        candidates=found.candidates, titles=found.questions,
    )  # fmt: skip
    users, candidates = made.users, made.candidates
    report("entities", 0)

    order = list(found.candidate_questions)
    loop_ids = bulk.insert(
        Loop,
        ["candidate_id", "role_id", "level_id", "status", "warnings", "decision",
         "decision_rationale", "decided_at", "created_at"],
        [
            (
                candidates[name], role.pk, level.pk,
                Loop.Status.DECIDED if found.decisions.get(name) else Loop.Status.DEBRIEF,
                [], found.decisions.get(name, ""),
                IMPORTED if found.decisions.get(name) else "",
                (aware(found.interviewed_at.get(name)) or now) if found.decisions.get(name)
                else None,
                now,
            )
            for name in order
        ],
    )  # fmt: skip
    loops = dict(zip(order, loop_ids, strict=True))
    interview_ids = bulk.insert(
        Interview,
        ["loop_id", "order", "title", "minutes", "competencies", "scheduled_start",
         "scheduled_end", "created_at"],
        [
            (loops[name], 1, "Imported interview", 60, [], aware(found.interviewed_at.get(name)),
             aware(found.interviewed_at.get(name), hours=1), now)
            for name in order
        ],
    )  # fmt: skip
    interviews = dict(zip(order, interview_ids, strict=True))
    item_keys = [(name, title) for name in order for title in found.candidate_questions[name]]
    item_ids = bulk.insert(
        InterviewQuestion,
        ["interview_id", "loop_id", "question_id", "version_id", "order", "reason", "assigned_at"],
        [
            (interviews[name], loops[name], questions[title].pk, questions[title].current_id, n,
             "imported", now)
            for name in order
            for n, title in enumerate(found.candidate_questions[name], start=1)
        ],
    )  # fmt: skip
    items = dict(zip(item_keys, item_ids, strict=True))
    card_keys = list(found.scorecards)
    bulk.insert(
        Panelist,
        ["interview_id", "user_id", "is_shadow"],
        [(interviews[c], users[i], False) for c, i in card_keys],
    )
    card_ids = bulk.insert(
        Scorecard,
        ["interview_id", "interviewer_id", "is_shadow", "status", "recommendation", "summary",
         "created_at", "updated_at", "submitted_at"],
        [
            (interviews[c], users[i], False, Scorecard.Status.SUBMITTED, found.scorecards[(c, i)],
             "", now, now, aware(found.interviewed_at.get(c)) or now)
            for c, i in card_keys
        ],
    )  # fmt: skip
    cards = dict(zip(card_keys, card_ids, strict=True))
    report("scorecards", len(cards))

    versions = {key: q.current_id for key, q in questions.items()}

    def rating_rows() -> Iterator[tuple[object, ...]]:
        for n, row in enumerate(importers.read_rows(path, scale_max_for=scale_for), start=1):
            if n % 50_000 == 0:
                report("written", n)
            key = row.question.casefold()
            yield (cards[(row.candidate, row.interviewer)], items[(row.candidate, key)],
                   versions[key], row.rating, False, "", "")  # fmt: skip

    bulk.copy(
        QuestionRating,
        ["scorecard_id", "item_id", "version_id", "rating", "not_asked", "not_asked_reason",
         "notes"],
        rating_rows(),
    )  # fmt: skip
    report("written", found.rows)
    # Fresh statistics for the planner after a bulk load (PostgreSQL's advice; SQLite
    # takes the same statement), so the calibration the import queues does not plan
    # against empty tables.
    with connection.cursor() as cursor:
        for model in (Candidate, Loop, Interview, InterviewQuestion, Panelist, Scorecard,
                      QuestionRating):  # fmt: skip
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
    return HistoryImportResult(
        rows=found.rows,
        scorecards=len(cards),
        candidates_created=made.candidates_created,
        interviewers_created=made.users_created,
        questions_created=made.questions_created,
    )
