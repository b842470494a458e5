"""The loop page's one form for every interview's panel and time, and the past-time rule.

The form saves every changed interview through interviews.scheduling.loop_schedule in
one transaction: one refusal saves nothing and is shown beside its field. A new or
changed start before now is refused on the page and by PUT /api/v1/interviews/{id}/.
"""

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from core.accounts.models import Profile
from core.permissions import INTERVIEWER
from interviews import scheduling, selectors, services
from interviews.models import Interview, Loop, Panelist
from kit.services import SlotData, loop_template_save
from tests.conftest import client_for, make_user
from tests.interviews.helpers import snapshot
from tests.problems import detail
from tests.support.factories import CompetencyFactory, level, make_question

TOMORROW = (timezone.now() + timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)


def local(value: datetime | None, fmt: str = "%Y-%m-%dT%H:%M") -> str:
    """A time as a datetime-local field sends it, in the current zone."""
    return timezone.localtime(value).strftime(fmt) if value else ""


def fields(
    interview: Interview,
    interviewers: list[User] | None = None,
    *,
    shadow: User | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> dict[str, object]:
    """One interview's part of the form; an empty panel and no time unless given."""
    prefix = f"i{interview.pk}-"
    return {
        f"{prefix}interviewers": [u.pk for u in interviewers or []],
        f"{prefix}shadow": shadow.pk if shadow else "",
        f"{prefix}scheduled_start": local(start),
        f"{prefix}scheduled_end": local(end),
    }


def as_it_is(interview: Interview) -> dict[str, object]:
    """One interview's part of the form as the page shows it, unchanged."""
    seats = list(interview.panel.order_by("id"))
    prefix = f"i{interview.pk}-"
    return {
        f"{prefix}interviewers": [s.user_id for s in seats if not s.is_shadow],
        f"{prefix}shadow": next((s.user_id for s in seats if s.is_shadow), ""),
        # The page shows the seconds a time has (the panels fixture's have some).
        f"{prefix}scheduled_start": local(interview.scheduled_start, "%Y-%m-%dT%H:%M:%S"),
        f"{prefix}scheduled_end": local(interview.scheduled_end, "%Y-%m-%dT%H:%M:%S"),
    }


def save(client, recruiter, loop, *parts):  # type: ignore[no-untyped-def]
    client.force_login(recruiter)
    data: dict[str, object] = {}
    for part in parts:
        data.update(part)
    return client.post(reverse("interviews:loop-detail", args=[loop.pk]), data)


def panel(interview: Interview) -> list[tuple[str, bool]]:
    return list(interview.panel.order_by("id").values_list("user__username", "is_shadow"))


def test_the_one_form_saves_every_interview_at_once(
    client, recruiter, interviewer, other_interviewer, loop, interviews
):
    serving, training = interviews
    sam = make_user("sam", INTERVIEWER)
    response = save(
        client,
        recruiter,
        loop,
        fields(
            serving, [interviewer], shadow=sam, start=TOMORROW, end=TOMORROW + timedelta(minutes=45)
        ),
        fields(
            training,
            [other_interviewer, sam],
            start=TOMORROW + timedelta(hours=1),
            end=TOMORROW + timedelta(hours=1, minutes=45),
        ),
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("interviews:loop-detail", args=[loop.pk])
    serving.refresh_from_db()
    training.refresh_from_db()
    assert (serving.scheduled_start, serving.scheduled_end) == (
        TOMORROW,
        TOMORROW + timedelta(minutes=45),
    )
    assert training.scheduled_start == TOMORROW + timedelta(hours=1)
    assert panel(serving) == [("ines", False), ("sam", True)]
    assert panel(training) == [("omar", False), ("sam", False)]
    loop.refresh_from_db()
    assert loop.status == Loop.Status.SCHEDULED
    page = client.get(response["Location"]).content.decode()
    assert "Saved the panels and times of Serving, Training." in page


def test_an_untouched_interview_is_neither_saved_nor_refused(
    client, recruiter, interviewer, loop, interviews
):
    # Training has nobody yet: left as it is, it does not stop Serving from saving.
    serving, training = interviews
    response = save(
        client,
        recruiter,
        loop,
        fields(serving, [interviewer], start=TOMORROW, end=TOMORROW + timedelta(minutes=45)),
        as_it_is(training),
    )
    assert response.status_code == 302
    assert panel(serving) == [("ines", False)]
    assert panel(training) == []
    loop.refresh_from_db()
    assert loop.status == Loop.Status.DRAFT


def test_saving_the_page_unchanged_writes_nothing(client, recruiter, panels, interviews):
    serving, training = interviews
    before = snapshot()
    response = save(client, recruiter, panels, as_it_is(serving), as_it_is(training))
    assert response.status_code == 302
    assert "Nothing changed." in client.get(response["Location"]).content.decode()
    assert snapshot() == before


def test_one_refused_interview_saves_none_and_shows_its_reason_beside_the_field(
    client, recruiter, interviewer, other_interviewer, loop, interviews
):
    serving, training = interviews
    before = snapshot()
    # Serving alone would be saved; Training then overlaps it for the candidate.
    response = save(
        client,
        recruiter,
        loop,
        fields(serving, [interviewer], start=TOMORROW, end=TOMORROW + timedelta(minutes=45)),
        fields(
            training,
            [other_interviewer],
            start=TOMORROW + timedelta(minutes=30),
            end=TOMORROW + timedelta(minutes=75),
        ),
    )

    assert response.status_code == 200
    assert snapshot() == before
    html = response.content.decode()
    start = f"id_i{training.pk}-scheduled_start"
    reason = re.search(rf'<span class="field-error" id="{start}-error">([^<]*)</span>', html)
    assert reason is not None
    assert reason.group(1).startswith("It overlaps Serving (")
    assert f'aria-describedby="{start}-error" aria-invalid="true" id="{start}"' in html
    # The summary links to the field; what was entered is shown again.
    assert f'<a href="#{start}">Training · Starts: It overlaps Serving' in html
    assert f'value="{local(TOMORROW + timedelta(minutes=30))}"' in html
    assert html.count('class="field-error"') == 1


def test_two_interviews_trade_times_in_one_save(client, recruiter, interviewer, panels, interviews):
    # Ines sits on both, so the swap is checked for her diary as well as the candidate's.
    serving, training = interviews
    services.interview_update(
        interview=training,
        interviewers=[interviewer],
        scheduled_start=training.scheduled_start,
        scheduled_end=training.scheduled_end,
    )
    serving.refresh_from_db()
    training.refresh_from_db()
    first, second = serving.scheduled_start, training.scheduled_start
    moved = {**as_it_is(serving), **as_it_is(training)}
    for interview, start in ((serving, second), (training, first)):
        moved[f"i{interview.pk}-scheduled_start"] = local(start, "%Y-%m-%dT%H:%M:%S")
        moved[f"i{interview.pk}-scheduled_end"] = local(
            start + timedelta(minutes=45), "%Y-%m-%dT%H:%M:%S"
        )

    response = save(client, recruiter, panels, moved)

    assert response.status_code == 302, response.content.decode()
    serving.refresh_from_db()
    training.refresh_from_db()
    assert (serving.scheduled_start, training.scheduled_start) == (second, first)
    panels.refresh_from_db()
    assert panels.status == Loop.Status.SCHEDULED


def test_a_swap_into_someone_elses_time_is_still_a_clash(
    client, recruiter, interviewer, other_interviewer, panels, interviews
):
    """Lifting the moving interviews' times does not hide a clash with one that stays."""
    serving, training = interviews
    before = snapshot()
    moved = {**as_it_is(serving), **as_it_is(training)}
    # Both move, and Training lands on Serving's new time.
    later = serving.scheduled_start + timedelta(hours=3)
    for interview in (serving, training):
        moved[f"i{interview.pk}-scheduled_start"] = local(later)
        moved[f"i{interview.pk}-scheduled_end"] = local(later + timedelta(minutes=45))

    response = save(client, recruiter, panels, moved)

    assert response.status_code == 200
    assert "It overlaps Serving (" in response.content.decode()
    assert snapshot() == before


def test_an_emptied_panel_is_refused_beside_the_interviewers(client, recruiter, panels, interviews):
    serving, training = interviews
    before = snapshot()
    response = save(
        client,
        recruiter,
        panels,
        fields(serving, [], start=serving.scheduled_start, end=serving.scheduled_end),
        as_it_is(training),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert (
        f'<span class="field-error" id="id_i{serving.pk}-interviewers-error">'
        "An interview needs at least one interviewer.</span>"
    ) in html
    assert f'<fieldset class="picker" aria-describedby="id_i{serving.pk}-interviewers-error">' in (
        html
    )
    assert snapshot() == before


def test_the_page_refuses_a_start_in_the_past_beside_the_starts_field(
    client, recruiter, interviewer, loop, interviews
):
    serving, training = interviews
    before = snapshot()
    yesterday = TOMORROW - timedelta(days=2)
    response = save(
        client,
        recruiter,
        loop,
        fields(serving, [interviewer], start=yesterday, end=yesterday + timedelta(minutes=45)),
        as_it_is(training),
    )
    assert response.status_code == 200
    shown = timezone.localtime(yesterday)
    assert (
        f'<span class="field-error" id="id_i{serving.pk}-scheduled_start-error">'
        f"{shown:%a %d %b %H:%M %Z} is in the past: pick a start from now on.</span>"
    ) in response.content.decode()
    assert snapshot() == before


def held(interview: Interview, person: User) -> Interview:
    """Give `interview` a time two days ago, as an import would (the service takes it)."""
    start = TOMORROW - timedelta(days=3)
    return services.interview_update(
        interview=interview,
        interviewers=[person],
        scheduled_start=start,
        scheduled_end=start + timedelta(minutes=45),
    )


def test_a_held_interview_keeps_its_past_time_when_its_panel_changes(
    client, recruiter, interviewer, other_interviewer, loop, interviews
):
    serving, training = interviews
    held(serving, interviewer)
    response = save(
        client,
        recruiter,
        loop,
        fields(
            serving,
            [interviewer, other_interviewer],
            start=serving.scheduled_start,
            end=serving.scheduled_end,
        ),
        as_it_is(training),
    )
    assert response.status_code == 302
    assert panel(serving) == [("ines", False), ("omar", False)]


def body(*people: User, start: datetime | None, end: datetime | None) -> dict[str, object]:
    return {
        "interviewers": [u.username for u in people],
        "scheduled_start": start.isoformat() if start else None,
        "scheduled_end": end.isoformat() if end else None,
    }


def test_the_api_refuses_a_start_in_the_past(recruiter, interviewer, interviews):
    before = snapshot()
    yesterday = TOMORROW - timedelta(days=2)
    response = client_for(recruiter).put(
        f"/api/v1/interviews/{interviews[0].pk}/",
        body(interviewer, start=yesterday, end=yesterday + timedelta(minutes=45)),
        format="json",
    )
    assert detail(response, 400, "time_in_past") == (
        f"{yesterday:%a %d %b %H:%M UTC} is in the past: pick a start from now on."
    )
    assert snapshot() == before


def test_the_api_keeps_a_held_interviews_time_and_refuses_moving_it_into_the_past(
    recruiter, interviewer, other_interviewer, interviews
):
    serving = held(interviews[0], interviewer)
    api = client_for(recruiter)
    url = f"/api/v1/interviews/{serving.pk}/"
    start, end = serving.scheduled_start, serving.scheduled_end
    assert start is not None and end is not None
    kept = api.put(url, body(interviewer, other_interviewer, start=start, end=end), format="json")
    assert kept.status_code == 200
    assert panel(serving) == [("ines", False), ("omar", False)]

    before = snapshot()
    earlier = start - timedelta(hours=1)
    moved = api.put(url, body(interviewer, start=earlier, end=end), format="json")
    assert detail(moved, 400, "time_in_past").endswith("is in the past: pick a start from now on.")
    assert snapshot() == before


def test_a_decided_loop_saves_nothing(client, recruiter, interviewer, panels, interviews):
    Loop.objects.filter(pk=panels.pk).update(status=Loop.Status.DECIDED, decision="hire")
    before = snapshot()
    response = save(
        client,
        recruiter,
        panels,
        fields(interviews[0], [interviewer], start=TOMORROW, end=TOMORROW + timedelta(hours=1)),
    )
    assert response.status_code == 200
    assert "This loop is decided; it can no longer change." in response.content.decode()
    assert snapshot() == before


def test_times_are_entered_and_shown_in_the_viewers_zone(
    client, recruiter, interviewer, loop, interviews
):
    serving, training = interviews
    client.cookies["tz"] = "Asia/Tokyo"
    client.force_login(recruiter)
    page = client.get(reverse("interviews:loop-detail", args=[loop.pk])).content.decode()
    assert '<span class="muted small" id="schedule-zone">Times in Asia/Tokyo</span>' in page
    assert f'<label for="id_i{serving.pk}-scheduled_start">Starts <span class="hint">' in page
    day = (timezone.now() + timedelta(days=3)).date()
    response = client.post(
        reverse("interviews:loop-detail", args=[loop.pk]),
        {
            **fields(serving, [interviewer]),
            f"i{serving.pk}-scheduled_start": f"{day}T09:30",
            f"i{serving.pk}-scheduled_end": f"{day}T10:15",
            **as_it_is(training),
        },
    )
    assert response.status_code == 302
    serving.refresh_from_db()
    assert serving.scheduled_start == datetime.fromisoformat(f"{day}T00:30+00:00")


# --- the people picker: their other interviews that day ---------------------------------


def other_loop(world, person: User, start: datetime) -> Interview:  # type: ignore[no-untyped-def]
    """Person's seat on another candidate's interview at `start`."""
    elsewhere = services.loop_create(
        candidate=services.candidate_create(name="Robin Other"), role=world.role, level=world.level
    )
    interview = elsewhere.interviews.order_by("order").first()
    assert interview is not None
    return services.interview_update(
        interview=interview,
        interviewers=[person],
        scheduled_start=start,
        scheduled_end=start + timedelta(minutes=45),
    )


def test_the_picker_lists_checkboxes_with_each_persons_other_interviews_that_day(
    client, recruiter, world, interviewer, other_interviewer, panels, interviews
):
    serving = interviews[0]  # Ines, tomorrow
    # At 09:00, so two hours later is still the same day whenever the suite runs.
    services.interview_update(
        interview=serving,
        interviewers=[interviewer],
        scheduled_start=TOMORROW,
        scheduled_end=TOMORROW + timedelta(minutes=45),
    )
    serving.refresh_from_db()
    assert serving.scheduled_start is not None
    other_loop(world, other_interviewer, serving.scheduled_start + timedelta(hours=2))
    client.force_login(recruiter)
    html = client.get(reverse("interviews:loop-detail", args=[panels.pk])).content.decode()
    picker = html[html.index(f'id="id_i{serving.pk}-interviewers"') :]
    picker = picker[: picker.index("</ul>")]
    assert re.search(
        rf'<input type="checkbox" name="i{serving.pk}-interviewers" value="{interviewer.pk}"'
        r"[^>]* checked>",
        picker,
    )
    assert "Ctrl" not in html and '<select name="i' in html  # the shadow stays a select
    later = timezone.localtime(serving.scheduled_start + timedelta(hours=2))
    end = later + timedelta(minutes=45)
    assert (
        f'<span class="busy small">also {later:%H:%M}–{end:%H:%M UTC} Serving (Robin Other)</span>'
        in picker
    )
    # Ines's own seat on this interview is not "another" interview.
    assert picker.count('class="busy small"') == 1


def test_the_pickers_busy_hints_are_in_the_viewers_zone_with_its_abbreviation(
    client, recruiter, world, interviewer, other_interviewer, panels, interviews
):
    Profile.objects.create(user=recruiter, time_zone="Asia/Kolkata")
    serving = interviews[0]
    services.interview_update(
        interview=serving,
        interviewers=[interviewer],
        scheduled_start=TOMORROW,
        scheduled_end=TOMORROW + timedelta(minutes=45),
    )
    # 11:00 UTC is 16:30 in Kolkata, the same day there as the 09:00 UTC interview.
    later = TOMORROW + timedelta(hours=2)
    other_loop(world, other_interviewer, later)
    client.force_login(recruiter)
    html = client.get(reverse("interviews:loop-detail", args=[panels.pk])).content.decode()
    picker = html[html.index(f'id="id_i{serving.pk}-interviewers"') :]
    picker = picker[: picker.index("</ul>")]
    shown = later.astimezone(ZoneInfo("Asia/Kolkata"))
    assert f"also {shown:%H:%M}–{shown + timedelta(minutes=45):%H:%M} IST Serving" in picker
    assert shown.strftime("%H:%M") == "16:30"


def test_a_refused_save_shows_who_is_busy_on_the_day_typed(
    client, recruiter, world, interviewer, other_interviewer, panels, interviews
):
    serving = interviews[0]  # Ines, tomorrow
    # Omar is busy at 09:00 in four days; the recruiter moves Serving to that day and
    # puts him on it: refused (his clash), and the picker shows that day's other seats.
    typed = TOMORROW + timedelta(days=3)
    other_loop(world, other_interviewer, typed)
    sent = {
        **fields(serving, [other_interviewer], start=typed, end=typed + timedelta(minutes=45)),
        **as_it_is(interviews[1]),
    }
    response = save(client, recruiter, panels, sent)
    assert response.status_code == 200
    html = response.content.decode()
    picker = html[html.index(f'id="id_i{serving.pk}-interviewers"') :]
    picker = picker[: picker.index("</ul>")]
    shown = timezone.localtime(typed)
    assert (
        f'<span class="busy small">also {shown:%H:%M}–{shown + timedelta(minutes=45):%H:%M UTC} '
        "Serving (Robin Other)</span>" in picker
    )


def test_seats_on_days_skips_cancelled_seats_and_closed_loops_in_one_query(
    world, interviewer, other_interviewer
):
    ines_seat = other_loop(world, interviewer, TOMORROW)
    omar_seat = other_loop(world, other_interviewer, TOMORROW + timedelta(hours=1))
    closed = other_loop(world, interviewer, TOMORROW + timedelta(hours=3))
    Loop.objects.filter(pk=closed.loop_id).update(status=Loop.Status.CANCELLED)
    Panelist.objects.filter(interview=omar_seat).update(cancelled_at=timezone.now())
    other_loop(world, interviewer, TOMORROW + timedelta(days=2))  # another day

    with CaptureQueriesContext(connection) as queries:
        found = selectors.seats_on_days(
            user_ids=[interviewer.pk, other_interviewer.pk],
            days=[timezone.localdate(TOMORROW)],
        )
    assert len(queries) == 1
    assert {key: [s.interview_id for s in seats] for key, seats in found.items()} == {
        (interviewer.pk, timezone.localdate(TOMORROW)): [ines_seat.pk],
    }
    assert selectors.seats_on_days(user_ids=[interviewer.pk], days=[]) == {}


def test_an_unchanged_plan_is_not_a_change(panels, interviews):
    serving = Interview.objects.prefetch_related("panel").get(pk=interviews[0].pk)
    seat = serving.panel.all()[0]
    same = scheduling.Plan(
        interview=serving,
        interviewers=[seat.user],
        scheduled_start=serving.scheduled_start,
        scheduled_end=serving.scheduled_end,
    )
    assert not same.changed
    assert scheduling.Plan(interview=serving, interviewers=[seat.user]).changed


# --- query count ----------------------------------------------------------------------


@pytest.fixture
def ten(world, recruiter) -> Loop:  # type: ignore[no-untyped-def]
    """An L4 loop of ten interviews over two days, two interviewers each, who also sit
    on another candidate's interviews those days."""
    CompetencyFactory(slug="ten")
    loop_template_save(
        role=world.role,
        level=level("L4"),
        name="Ten L4",
        slots=[
            SlotData(title=f"Part {n}", minutes=30, competencies=("ten",), question_count=1)
            for n in range(10)
        ],
    )
    for n in range(10):
        make_question(role=world.role, title=f"ten-{n}", competencies=["ten"])
    people = [make_user(f"person{n}", INTERVIEWER) for n in range(6)]
    loop = services.loop_create(candidate=world.candidate, role=world.role, level=level("L4"))
    for n, interview in enumerate(loop.interviews.order_by("order")):
        start = TOMORROW + timedelta(days=n % 2, hours=n)
        services.interview_update(
            interview=interview,
            interviewers=people[n % 3 : n % 3 + 2],
            scheduled_start=start,
            scheduled_end=start + timedelta(minutes=30),
        )
    for n, person in enumerate(people):
        other_loop(world, person, TOMORROW + timedelta(days=n % 2, hours=12 + n))
    return loop


def test_the_loop_page_with_ten_interviews(client, recruiter, ten, django_assert_max_num_queries):
    client.force_login(recruiter)
    client.get(reverse("interviews:loop-detail", args=[ten.pk]))  # the zone is remembered
    # 1 session, 1 user, 1 persona groups
    # 1 the loop with candidate, role and level
    # 1 its interviews, 1 their panels with the users, 1 their questions and versions
    # 1 the questions' rubric items, 1 their follow-ups
    # 1 the people who may sit on a panel (the same choices for every interview's form)
    # 1 their seats in open loops on the days of this loop's interviews
    # 1 the competencies of the role's questions (the form that adds an interview)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(13):
        response = client.get(reverse("interviews:loop-detail", args=[ten.pk]))
    html = response.content.decode()
    assert html.count('<fieldset class="slot"') == 10
    assert html.count('class="busy small"') > 10
