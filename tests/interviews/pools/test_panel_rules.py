"""A panel chosen by hand: allowed over the proposal's rules, with warnings the recruiter
sees and the audit log keeps; the trainee rule holds on every way to seat someone."""

from datetime import timedelta

from core.models import AuditEvent
from interviews.models import Interview, Panelist
from interviews.pools import services
from tests.conftest import client_for
from tests.interviews.pools.conftest import END, START, interviewer_in
from tests.problems import detail


def test_someone_over_their_limit_outside_hours_or_on_the_loop_is_seated_with_warnings(
    pool, recruiter, scheduled
):
    serving, training = scheduled
    weekly = interviewer_in("wes", per_day=1, per_week=1)
    early = interviewer_in("nina", "America/New_York")
    twice = interviewer_in("tom")
    Panelist.objects.create(interview=training, user=twice)
    other = Interview.objects.create(
        loop=training.loop, order=3, title="Extra", minutes=45,
        scheduled_start=START + timedelta(days=1), scheduled_end=END + timedelta(days=1),
    )  # fmt: skip
    Panelist.objects.create(interview=other, user=weekly)
    warnings = services.panel_accept(
        interview=serving, interviewers=[weekly, early, twice], by=recruiter
    )
    assert warnings == [
        "Wes is already on this candidate's loop.",
        "Wes is at their weekly limit.",
        "Nina is outside their working hours then.",
        "Tom is already on this candidate's loop.",
    ]
    assert set(serving.panel.values_list("user__username", flat=True)) == {"wes", "nina", "tom"}
    event = AuditEvent.objects.get(action="panel.accepted")
    assert event.data["warnings"] == warnings
    assert event.actor == recruiter


def test_a_booked_length_other_than_the_interviews_minutes_is_pointed_out(
    pool, recruiter, scheduled
):
    serving = scheduled[0]
    serving.scheduled_end = START + timedelta(hours=1)
    serving.save()
    warnings = services.panel_accept(
        interview=serving, interviewers=[interviewer_in("bo")], by=recruiter
    )
    assert warnings == ["Serving is booked for 60 minutes (12:00-13:00 UTC) but takes 45."]


def test_the_interview_api_refuses_a_trainee_in_a_counted_seat_and_writes_nothing(
    pool, recruiter, scheduled
):
    trainee = interviewer_in("theo")
    services.membership_add(pool=pool, user=trainee, status="training", by=recruiter)
    response = client_for(recruiter).put(
        f"/api/v1/interviews/{scheduled[0].pk}/",
        {"interviewers": ["theo"], "shadow": None,
         "scheduled_start": START.isoformat(), "scheduled_end": END.isoformat()},
        format="json",
    )  # fmt: skip
    assert detail(response, 400, "trainee_not_counted") == (
        "Theo is still training for Serving: a trainee sits only as a shadow until they graduate."
    )
    assert not Panelist.objects.exists()
    # As a shadow they may sit.
    qualified = interviewer_in("quin")
    response = client_for(recruiter).put(
        f"/api/v1/interviews/{scheduled[0].pk}/",
        {"interviewers": ["quin"], "shadow": "theo",
         "scheduled_start": START.isoformat(), "scheduled_end": END.isoformat()},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    assert qualified.panel_seats.count() == 1
