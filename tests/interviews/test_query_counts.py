"""Lists and pages run a fixed number of queries however many rows they show."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from core.permissions import HIRING_MANAGER, INTERVIEWER
from interviews import services
from interviews.models import Interview, Loop
from kit.services import SlotData, loop_template_save
from tests.conftest import client_for, make_user
from tests.support.factories import CompetencyFactory, level, make_question
from tests.support.loops import World
from tests.support.shared_db import persona, rolled_back

LOOPS = 12


def fresh(user: User) -> User:
    # A new instance, so the persona lookup is not already cached on it.
    return User.objects.get(pk=user.pk)


@pytest.fixture(scope="module")
def busy_built_once(
    world_built_once: World, django_db_blocker: DjangoDbBlocker
) -> Iterator[list[Loop]]:
    """12 candidates with an L5 loop each; Ines and Omar on every interview, Sam shadowing.
    Built once for the module, inside its world (tests/support/shared_db.py)."""
    with rolled_back(django_db_blocker):
        interviewer = persona("ines", INTERVIEWER, first_name="Ines")
        other_interviewer = persona("omar", INTERVIEWER, first_name="Omar")
        sam = make_user("sam", INTERVIEWER, first_name="Sam")
        loops = []
        start = timezone.now() + timedelta(days=1)
        for n in range(LOOPS):
            candidate = services.candidate_create(
                name=f"Candidate {n:02d}", email=f"c{n}@example.com", phone=f"+1 555 01{n:02d}"
            )
            loop = services.loop_create(
                candidate=candidate, role=world_built_once.role, level=world_built_once.level
            )
            for k, interview in enumerate(loop.interviews.order_by("order")):
                begins = start + timedelta(days=n, hours=k)
                services.interview_update(
                    interview=interview,
                    interviewers=[interviewer, other_interviewer],
                    shadow=sam,
                    scheduled_start=begins,
                    scheduled_end=begins + timedelta(minutes=45),
                )
            loops.append(loop)
        yield loops


@pytest.fixture
def busy(busy_built_once: list[Loop], db: None) -> list[Loop]:
    """The module's busy loops, read again in the test's savepoint."""
    return list(Loop.objects.filter(pk__in=[loop.pk for loop in busy_built_once]).order_by("pk"))


@pytest.fixture
def wide(world, interviewer) -> Loop:
    """An L4 loop of six interviews, three questions each, every question with a rubric
    and follow-ups; Ines sits on all six."""
    CompetencyFactory(slug="wide")
    loop_template_save(
        role=world.role,
        level=level("L4"),
        name="Wide L4",
        slots=[
            SlotData(title=f"Part {n}", minutes=60, competencies=("wide",), question_count=3)
            for n in range(6)
        ],
    )
    for n in range(18):
        make_question(
            role=world.role,
            title=f"wide-{n:02d}",
            competencies=["wide"],
            follow_ups=("What first?", "What next?", "What if it fails?"),
        )
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=level("L4"))
    for interview in loop.interviews.all():
        services.interview_update(interview=interview, interviewers=[interviewer])
    return loop


# --- API ---------------------------------------------------------------------------------


def test_the_interview_list_api(recruiter, busy, django_assert_max_num_queries):
    api = client_for(fresh(recruiter))
    # 1 the caller's persona groups
    # 1 count for the pagination
    # 1 the interviews with loop, candidate, role and level
    # 1 their panels with the users
    # 1 their questions with question and version
    # 1 the rubric items of those versions, 1 their follow-ups
    with django_assert_max_num_queries(7):
        response = api.get("/api/v1/interviews/")
    assert response.json()["count"] == 2 * LOOPS
    assert all(len(r["panel"]) == 3 for r in response.json()["results"])


def test_the_interview_list_api_for_an_interviewer(
    interviewer, busy, django_assert_max_num_queries
):
    api = client_for(fresh(interviewer))
    # 1 persona groups, 1 count, 1 interviews, 1 panels, 1 questions,
    # 1 rubric items, 1 follow-ups
    with django_assert_max_num_queries(7):
        response = api.get("/api/v1/interviews/")
    assert response.json()["count"] == 2 * LOOPS


def test_the_interview_list_api_for_a_hiring_manager(world, busy, django_assert_max_num_queries):
    manager = make_user("hank", HIRING_MANAGER, first_name="Hank")
    world.role.owners.add(manager)
    api = client_for(fresh(manager))
    # 1 persona groups, 1 count, 1 interviews (of the roles they own), 1 panels,
    # 1 questions, 1 rubric items, 1 follow-ups
    with django_assert_max_num_queries(7):
        response = api.get("/api/v1/interviews/")
    assert response.json()["count"] == 2 * LOOPS


def test_the_loop_list_api(recruiter, busy, django_assert_max_num_queries):
    api = client_for(fresh(recruiter))
    # 1 persona groups
    # 1 count for the pagination
    # 1 the loops with candidate, role and level
    with django_assert_max_num_queries(3):
        response = api.get("/api/v1/loops/")
    assert response.json()["count"] == LOOPS


def test_the_loop_list_api_for_an_interviewer(interviewer, busy, django_assert_max_num_queries):
    api = client_for(fresh(interviewer))
    # 1 persona groups, 1 count, 1 the loops they sit on
    with django_assert_max_num_queries(3):
        response = api.get("/api/v1/loops/")
    assert response.json()["count"] == LOOPS


def test_the_loop_detail_api(recruiter, wide, django_assert_max_num_queries):
    api = client_for(fresh(recruiter))
    # 1 persona groups
    # 1 the loop with candidate, role and level
    # 1 its interviews
    # 1 their panels with the users
    # 1 their questions with question and version
    # 1 the rubric items of those versions, 1 their follow-ups
    with django_assert_max_num_queries(7):
        response = api.get(f"/api/v1/loops/{wide.pk}/")
    assert len(response.json()["interviews"]) == 6


# --- pages ---------------------------------------------------------------------------------


def test_the_my_interviews_page(client, interviewer, busy, django_assert_max_num_queries):
    client.force_login(interviewer)
    # 1 session, 1 user, 1 persona groups (navigation)
    # 1 the interviews with loop, candidate, role and level
    # 1 their panels with the users
    # 1 the calibration exercises waiting for the interviewer's scores
    # 1 the interviewer's pools (with their training seats: a second query, and their
    #   load a third, only when they are in a pool)
    # 1 the training seats the interviewer signs off (interviews.pools sign_offs_owed)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:my-interviews"))
    assert response.content.decode().count('/kit/"') == 2 * LOOPS


def test_the_kit_page(client, interviewer, wide, django_assert_max_num_queries):
    interview = Interview.objects.filter(loop=wide).first()
    client.force_login(interviewer)
    # 1 session, 1 user, 1 persona groups (visibility and navigation)
    # 1 the interview with loop, candidate, role and level
    # 1 its panel with the users, 1 its questions (visibility prefetch)
    # 1 the questions at their versions, 1 their rubric items, 1 their follow-ups
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:kit", args=[interview.pk]))
    assert response.content.decode().count("What if it fails?") == 3


def test_the_kit_markdown(client, interviewer, wide, django_assert_max_num_queries):
    interview = Interview.objects.filter(loop=wide).first()
    client.force_login(interviewer)
    # 1 session, 1 user, 1 persona groups (is the caller a recruiter?)
    # 1 the interview, 1 its panel, 1 its questions (visibility)
    # 1 the questions at their versions, 1 their rubric items, 1 their follow-ups
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:kit-markdown", args=[interview.pk]))
    assert response.content.decode().count("What if it fails?") == 3


def test_the_loop_page(client, recruiter, wide, django_assert_max_num_queries):
    client.force_login(recruiter)
    # 1 session, 1 user, 1 persona groups
    # 1 the loop with candidate, role and level
    # 1 its interviews, 1 their panels with the users, 1 their questions and versions
    # 1 the people who may sit on a panel (the same choices for every interview's form)
    # 1 their seats in open loops on the days of this loop's interviews
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(12):
        response = client.get(reverse("interviews:loop-detail", args=[wide.pk]))
    assert response.content.decode().count('<fieldset class="slot"') == 6


def test_the_loop_list_page(client, recruiter, busy, django_assert_max_num_queries):
    client.force_login(recruiter)
    # 1 session, 1 user, 1 persona groups
    # 1 count for the pagination
    # 1 the page of loops with candidate, role, level and interview count
    # 3 the filters' choices: roles, levels, people on panels
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:loop-list"))
    assert response.content.decode().count("Candidate ") >= LOOPS


def test_the_candidate_list_page(client, recruiter, busy, django_assert_max_num_queries):
    client.force_login(recruiter)
    # 1 session, 1 user, 1 persona groups
    # 1 count for the pagination, 1 the page of candidates with their loop counts
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(6):
        response = client.get(reverse("interviews:candidate-list"))
    assert response.content.decode().count("Build a loop</a>") == LOOPS + 1


def test_the_build_page_preview(client, recruiter, world, busy, django_assert_max_num_queries):
    client.force_login(recruiter)
    query = {"candidate": world.candidate.pk, "role": world.role.pk, "level": world.level.pk}
    # 1 session, 1 user, 1 persona groups
    # 3 the form's candidate, role and level
    # 3 the template, its slots, their competencies
    # 1 exposure, 2 the questions and their competencies, 1 the candidate's history
    # 1 the candidate's open loops
    # 3 the choices of the three selects
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(18):
        response = client.get(reverse("interviews:loop-new"), query)
    assert "Save this loop" in response.content.decode()
