"""Loop assembly over a 10,000-question bank, against a baseline measured in the same run.

Run from the repository root:  python bench/assemble.py

It builds a throwaway SQLite database (a temporary file, migrated here), fills it
with 10,000 questions and some interview history, then times

* baseline: listing the candidate questions assembly starts from: the active
  questions of the role covering the level, with their current version and
  competencies, materialised to a list;
* selectors.loop_plan: everything assembly does (template, that same list,
  exposure over 90 days, the candidate's history, the pure planner).

and prints the median of several runs of each and their ratio. No assertions.
"""

import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = 10_000
HISTORY_LOOPS = 500
RUNS = 7


def setup_django(path: Path) -> None:
    # Settings read DATABASE_URL when imported, so set it before django.setup().
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def build_bank():  # type: ignore[no-untyped-def]
    from django.db import transaction
    from django.db.models import OuterRef, Subquery
    from django.utils import timezone

    from interviews.models import Candidate, Interview, InterviewQuestion, Loop
    from kit.models import Competency, Level, Question, QuestionVersion, Role
    from kit.services import SlotData, loop_template_save

    rng = random.Random(42)
    with transaction.atomic():
        role = Role.objects.create(name="AI Infrastructure Engineer")
        slugs = [
            "distributed-training",
            "gpu-memory",
            "numerics",
            "gpu-performance",
            "networking",
            "inference-serving",
            "cost-efficiency",
            "cluster-operations",
            "incident-response",
            "system-design",
        ]
        comps = [Competency.objects.create(slug=s, name=s) for s in slugs]
        levels = list(Level.objects.order_by("rank"))
        l5 = next(lv for lv in levels if lv.name == "L5")
        loop_template_save(
            role=role,
            level=l5,
            name="L5",
            slots=[
                SlotData("Training at scale", 60, tuple(slugs[0:3]), 3),
                SlotData("GPU performance and networking", 60, tuple(slugs[3:5]), 3),
                SlotData("Inference and cost", 60, tuple(slugs[5:7]), 2),
                SlotData("Incident and system design", 60, tuple(slugs[7:10]), 2, 2),
            ],
        )
        questions = []
        for i in range(QUESTIONS):
            low = rng.choice([None, *levels[:3]])
            high = rng.choice([None, *levels[2:]])
            status = rng.choices(["active", "retired", "draft"], [8, 1, 1])[0]
            questions.append(
                Question(
                    role=role, title=f"Question {i}", status=status, min_level=low, max_level=high
                )
            )
        questions = Question.objects.bulk_create(questions, batch_size=2000)
        QuestionVersion.objects.bulk_create(
            [
                QuestionVersion(
                    question=q,
                    number=1,
                    prompt=f"{q.title}: how would you approach it?",
                    outline="Explains the mechanism. Estimates the cost.",
                    minutes=rng.choice([10, 15, 20]),
                )
                for q in questions
            ],
            batch_size=2000,
        )
        Question.objects.filter(current__isnull=True).update(
            current=Subquery(
                QuestionVersion.objects.filter(question=OuterRef("pk"), number=1).values("pk")[:1]
            )
        )
        through = Question.competencies.through
        through.objects.bulk_create(
            [
                through(question_id=q.pk, competency_id=c.pk)
                for q in questions
                for c in rng.sample(comps, rng.choice([1, 1, 2, 3]))
            ],
            batch_size=5000,
        )
        # Interview history over the last 120 days, so exposure has rows to count.
        now = timezone.now()
        candidates = Candidate.objects.bulk_create(
            [Candidate(name=f"Earlier {n}") for n in range(HISTORY_LOOPS)]
        )
        loops = Loop.objects.bulk_create(
            [Loop(candidate=c, role=role, level=l5) for c in candidates]
        )
        interviews = Interview.objects.bulk_create(
            [
                Interview(
                    loop=loop,
                    order=1,
                    title="Earlier",
                    minutes=240,
                    scheduled_start=now - timedelta(days=rng.uniform(1, 120)),
                    scheduled_end=now,
                )
                for loop in loops
            ]
        )
        versions = dict(Question.objects.values_list("pk", "current_id"))
        ids = list(versions)
        InterviewQuestion.objects.bulk_create(
            [
                InterviewQuestion(
                    interview=interview,
                    loop_id=interview.loop_id,
                    question_id=qid,
                    version_id=versions[qid],
                    order=order,
                )
                for interview in interviews
                for order, qid in enumerate(rng.sample(ids, 8), start=1)
            ],
            batch_size=2000,
        )
        candidate = Candidate.objects.create(name="Benchmark candidate")
    return role, l5, candidate


def medians(first, second) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median seconds of each function; runs alternate so drift hits both alike."""
    first(), second()  # warm up
    times: tuple[list[float], list[float]] = ([], [])
    for run in range(RUNS):
        order = [(0, first), (1, second)] if run % 2 == 0 else [(1, second), (0, first)]
        for index, fn in order:
            start = time.perf_counter()
            fn()
            times[index].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-assemble-") as tmp:
        setup_django(Path(tmp) / "bench.sqlite3")
        from interviews import selectors
        from kit.models import Question
        from kit.selectors import covers_level

        started = time.perf_counter()
        role, level, candidate = build_bank()
        print(f"built {QUESTIONS:,} questions and {HISTORY_LOOPS} earlier loops "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip

        def baseline() -> list:  # type: ignore[type-arg]
            return list(
                Question.objects.filter(
                    role=role, status=Question.Status.ACTIVE, current__isnull=False
                )
                .filter(covers_level(level))
                .select_related("current")
                .prefetch_related("competencies")
                .order_by("id")
            )

        def plan():  # type: ignore[no-untyped-def]
            return selectors.loop_plan(candidate=candidate, role=role, level=level)

        eligible = len(baseline())
        result = plan()
        picked = sum(len(s.picks) for s in result.slots)
        print(f"{eligible:,} candidate questions for {level}; plan picked {picked}, "
              f"{len(result.warnings)} warnings")  # fmt: skip

        base, assembled = medians(baseline, plan)
        print(f"baseline (list candidate questions): {base * 1000:8.1f} ms  (median of {RUNS})")
        print(
            f"selectors.loop_plan:                 {assembled * 1000:8.1f} ms  (median of {RUNS})"
        )
        print(f"ratio loop_plan / baseline:          {assembled / base:8.2f}")


if __name__ == "__main__":
    main()
