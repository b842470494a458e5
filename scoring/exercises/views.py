"""Pages for calibration exercises: the list, a new exercise, scoring and the report."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.http.params import optional_id, optional_int
from core.permissions import is_lead
from interviews.forms import interviewer_choices
from interviews.pools.selectors import pools_visible_to
from kit.models import Question
from scoring.anchors import anchors
from scoring.exercises import selectors, services
from scoring.exercises.limits import ANSWERS_FOR_ICC, ANSWERS_MAX, ANSWERS_MIN


@login_required
def exercise_list(request: HttpRequest) -> HttpResponse:
    exercises = selectors.exercises_for(user=signed_in(request))
    return render(
        request,
        "scoring/exercise_list.html",
        {"exercises": exercises, "lead": is_lead(request.user)},
    )


@login_required
def exercise_new(request: HttpRequest) -> HttpResponse:
    """Pick a question, write the reference answers with their key, invite interviewers
    one by one or a pool's (a pool the lead may not see is a 404)."""
    if not is_lead(request.user):
        raise Http404
    questions = Question.objects.filter(status=Question.Status.ACTIVE).order_by("title")
    chosen = optional_id(request.GET, "question")
    question = questions.select_related("current").filter(pk=chosen).first() if chosen else None
    count = optional_int(request.GET, "answers", minimum=ANSWERS_MIN, maximum=ANSWERS_MAX) or 3
    people = interviewer_choices()
    values: dict[str, Any] = {}
    if request.method == "POST" and question is not None:
        values = request.POST
        pool_id = optional_id(request.POST, "pool")
        pool = (
            get_object_or_404(pools_visible_to(request.user), pk=pool_id)
            if pool_id is not None
            else None
        )
        try:
            answers = [
                services.AnswerInput(
                    transcript=request.POST.get(f"a{n}-transcript", ""),
                    key_rating=int(request.POST.get(f"a{n}-key") or 0),
                    key_checked=tuple(int(v) for v in request.POST.getlist(f"a{n}-checked")),
                )
                for n in range(1, count + 1)
            ]
            invited = {str(u.pk) for u in people} & set(request.POST.getlist("participants"))
            exercise = services.exercise_create(
                title=request.POST.get("title", ""),
                question=question,
                answers=answers,
                participants=[u for u in people if str(u.pk) in invited],
                by=signed_in(request),
                pool=pool,
                trainees=request.POST.get("pool_trainees") == "1",
            )
            messages.success(
                request, "Exercise created; the invited interviewers can score it now."
            )
            return redirect("scoring:exercise", exercise.pk)
        except ValueError:
            messages.error(request, "A key rating or rubric item is not a number.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    current = question.current if question else None
    rubric = list(current.rubric.all()) if current else []
    scale = range(1, current.scale_max + 1) if current else range(0)
    return render(
        request,
        "scoring/exercise_new.html",
        {
            "questions": questions,
            "question": question,
            "rubric": rubric,
            "scale": scale,
            "slots": range(1, count + 1),
            "counts": range(ANSWERS_MIN, ANSWERS_MAX + 1),
            "answers_for_icc": ANSWERS_FOR_ICC,
            "people": people,
            "pools": selectors.pools_to_invite(user=request.user) if question else [],
            "values": values,
        },
    )


@login_required
def exercise_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """Participants score each answer blind; the lead reads the report."""
    user = signed_in(request)
    exercise = selectors.exercise_get(user=user, pk=pk)
    participant = any(u.pk == user.pk for u in exercise.participants.all())
    if request.method == "POST":
        if request.POST.get("action") == "close" and is_lead(user):
            try:
                services.exercise_close(exercise=exercise, by=user)
                messages.success(request, "Exercise closed.")
            except ApplicationError as exc:
                messages.error(request, exc.message)
            return redirect("scoring:exercise", exercise.pk)
        if not participant:
            raise PermissionDenied("Only invited interviewers score this exercise.")
        try:
            scores = [
                (
                    answer.pk,
                    int(request.POST[f"a{answer.pk}-rating"]),
                    [int(v) for v in request.POST.getlist(f"a{answer.pk}-checked")],
                )
                for answer in exercise.answers.all()
                if request.POST.get(f"a{answer.pk}-rating")
            ]
            services.exercise_score(exercise=exercise, by=user, scores=scores)
            messages.success(request, "Scores saved.")
            return redirect("scoring:exercise", exercise.pk)
        except ValueError:
            messages.error(request, "A rating or rubric item is not a number.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    report = selectors.exercise_report(exercise=exercise) if is_lead(user) else None
    mine = selectors.own_exercise_ratings(user=user, exercise=exercise)
    return render(
        request,
        "scoring/exercise.html",
        {
            "exercise": exercise,
            "report": report,
            "participant": participant,
            "mine": mine,
            "gaps": selectors.own_exercise_gaps(exercise=exercise, mine=mine)
            if participant
            else None,
            "anchors": anchors(exercise.version.scale_max),
            "rubric": list(exercise.version.rubric.all()),
        },
    )
