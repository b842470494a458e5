"""/api/v1/interviews/: list and read, scoped to what the caller may see."""

from interviews import services
from interviews.models import Interview
from tests.conftest import client_for
from tests.interviews.helpers import pinned
from tests.support.api import iso


def interview_json(interview: Interview, panel: list[dict]) -> dict:
    loop = interview.loop
    return {
        "id": interview.pk,
        "loop": loop.pk,
        "candidate": {"id": loop.candidate_id, "name": "Casey Quinn"},
        "role": "AI Infrastructure Engineer",
        "level": "L5",
        "order": interview.order,
        "title": interview.title,
        "minutes": 45,
        "interviewers_wanted": interview.interviewers_wanted,
        "scheduled_start": iso(interview.scheduled_start),
        "scheduled_end": iso(interview.scheduled_end),
        "panel": panel,
        "questions": [
            {
                "id": item.pk,
                "order": item.order,
                "question": item.question_id,
                "title": item.question.title,
                "version": 1,
                "minutes": 15,
                "reason": item.reason,
                **pinned(item),
            }
            for item in interview.questions.order_by("order")
        ],
    }


INES = {"username": "ines", "name": "Ines", "is_shadow": False}
OMAR = {"username": "omar", "name": "Omar", "is_shadow": False}


def test_a_recruiter_lists_every_interview(recruiter, panels, interviews):
    for interview in interviews:
        interview.refresh_from_db()
    response = client_for(recruiter).get("/api/v1/interviews/")
    assert response.status_code == 200
    assert response.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [interview_json(interviews[0], [INES]), interview_json(interviews[1], [OMAR])],
    }


def test_an_interviewer_lists_only_the_interviews_they_sit_on(interviewer, panels, interviews):
    interviews[0].refresh_from_db()
    response = client_for(interviewer).get("/api/v1/interviews/")
    assert response.status_code == 200
    assert response.json()["results"] == [interview_json(interviews[0], [INES])]


def test_a_shadow_sees_the_interview_they_sit_in_on(
    recruiter, other_interviewer, interviewer, panels, interviews
):
    first = interviews[0]
    first.refresh_from_db()
    services.interview_update(
        interview=first,
        interviewers=[interviewer],
        shadow=other_interviewer,
        scheduled_start=first.scheduled_start,
        scheduled_end=first.scheduled_end,
    )
    response = client_for(other_interviewer).get("/api/v1/interviews/")
    assert [r["id"] for r in response.json()["results"]] == [first.pk, interviews[1].pk]


def test_it_reads_one_interview(interviewer, panels, interviews):
    first = interviews[0]
    first.refresh_from_db()
    response = client_for(interviewer).get(f"/api/v1/interviews/{first.pk}/")
    assert response.status_code == 200
    assert response.json() == interview_json(first, [INES])


def test_it_filters_by_loop(recruiter, world, panels, interviews):
    other = services.loop_create(
        candidate=services.candidate_create(name="Blake"), role=world.role, level=world.level
    )
    api = client_for(recruiter)
    assert api.get("/api/v1/interviews/").json()["count"] == 4
    found = api.get(f"/api/v1/interviews/?loop={other.pk}").json()["results"]
    assert [r["id"] for r in found] == list(
        other.interviews.order_by("order").values_list("pk", flat=True)
    )


def test_an_interviewer_with_no_interviews_gets_an_empty_list(lead, panels):
    response = client_for(lead).get("/api/v1/interviews/")
    assert response.status_code == 200
    assert response.json()["results"] == []
