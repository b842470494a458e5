"""Server-rendered pages for candidates, loops, interviews and kits."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core.permissions import INTERVIEWER
from interviews import services
from interviews.models import Candidate, Loop
from kit.models import Level, LoopSlot, Question, Role
from tests.conftest import make_user
from tests.interviews.helpers import snapshot
from tests.support.loops import EMAIL, PHONE


@pytest.fixture
def signed_in(client):  # type: ignore[no-untyped-def]
    def sign_in(user):  # type: ignore[no-untyped-def]
        client.force_login(user)
        return client

    return sign_in


# --- home -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("persona", "target"),
    [
        ("recruiter", "interviews:loop-list"),
        ("lead", "kit:question-list"),
        ("interviewer", "interviews:my-interviews"),
    ],
)
def test_home_sends_each_persona_to_their_start_page(signed_in, request, persona, target):
    response = signed_in(request.getfixturevalue(persona)).get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse(target)


# --- candidates -------------------------------------------------------------------------


def test_a_recruiter_adds_a_candidate(signed_in, recruiter):
    client = signed_in(recruiter)
    assert client.get(reverse("interviews:candidate-new")).status_code == 200
    response = client.post(
        reverse("interviews:candidate-new"),
        {
            "name": " Jordan Lee ",
            "email": "jordan@example.com",
            "phone": "+1 555 0101",
            "notes": "",
        },
    )
    candidate = Candidate.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("interviews:candidate-detail", args=[candidate.pk])
    assert (candidate.name, candidate.email, candidate.phone) == (
        "Jordan Lee",
        "jordan@example.com",
        "+1 555 0101",
    )
    detail = client.get(response["Location"]).content.decode()
    assert "Added Jordan Lee." in detail
    assert "jordan@example.com" in detail


def test_an_invalid_email_shows_a_form_error_and_adds_nobody(signed_in, recruiter):
    response = signed_in(recruiter).post(
        reverse("interviews:candidate-new"), {"name": "Jordan", "email": "not-an-email"}
    )
    assert response.status_code == 200
    assert '<span class="field-error">Enter a valid email address.</span>' in (
        response.content.decode()
    )
    assert not Candidate.objects.exists()


def test_a_recruiter_edits_a_candidate(signed_in, recruiter, world):
    url = reverse("interviews:candidate-edit", args=[world.candidate.pk])
    client = signed_in(recruiter)
    form = client.get(url).content.decode()
    assert EMAIL in form
    response = client.post(
        url, {"name": "Casey Q. Quinn", "email": EMAIL, "phone": "+1 555 0199", "notes": "ok"}
    )
    assert response.status_code == 302
    world.candidate.refresh_from_db()
    assert (world.candidate.name, world.candidate.phone, world.candidate.notes) == (
        "Casey Q. Quinn",
        "+1 555 0199",
        "ok",
    )


def test_an_edit_with_an_invalid_email_shows_the_error_and_changes_nothing(
    signed_in, recruiter, world
):
    before = snapshot()
    response = signed_in(recruiter).post(
        reverse("interviews:candidate-edit", args=[world.candidate.pk]),
        {"name": "Casey", "email": "casey@", "phone": "", "notes": ""},
    )
    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()
    assert snapshot() == before


def test_the_candidate_list_shows_contact_details_and_loop_counts(signed_in, recruiter, loop):
    body = signed_in(recruiter).get(reverse("interviews:candidate-list")).content.decode()
    assert "Casey Quinn" in body
    assert EMAIL in body
    assert PHONE in body
    assert re.search(r'<td class="num"[^>]*>1</td>', body)


def test_the_candidate_page_lists_their_loops(signed_in, recruiter, loop):
    body = (
        signed_in(recruiter)
        .get(reverse("interviews:candidate-detail", args=[loop.candidate_id]))
        .content.decode()
    )
    assert reverse("interviews:loop-detail", args=[loop.pk]) in body
    assert PHONE in body


# --- building a loop ----------------------------------------------------------------------


def build_query(world, level: str = "L5") -> dict:  # type: ignore[no-untyped-def]
    return {"candidate": world.candidate.pk, "role": world.role.pk, "level": level_pk(level)}


def level_pk(name: str) -> int:
    return Level.objects.get(name=name).pk


def test_the_build_page_previews_reasons_without_saving(signed_in, recruiter, world):
    before = snapshot()
    response = signed_in(recruiter).get(reverse("interviews:loop-new"), build_query(world))
    assert response.status_code == 200
    body = response.content.decode()
    for title in ("serving-1", "serving-2", "both-1", "training-1"):
        assert f"<strong>{title}</strong>" in body
    assert "covers networking, training; not asked in 90 days; fits L5, 15 min" in body
    assert "30 of 45 min" in body
    assert "Save this loop" in body
    assert "short of questions" not in body
    assert snapshot() == before


def test_the_build_page_preview_shows_warnings(signed_in, recruiter, world):
    services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, allow_duplicate=True
    )
    before = snapshot()
    body = (
        signed_in(recruiter)
        .get(reverse("interviews:loop-new"), build_query(world))
        .content.decode()
    )
    assert "Some interviews are short of questions." in body
    assert "Slot &#x27;Serving&#x27; has 1 of 2 questions" in body
    assert snapshot() == before


def test_the_build_page_saves_the_loop(signed_in, recruiter, world):
    response = signed_in(recruiter).post(reverse("interviews:loop-new"), build_query(world))
    loop = Loop.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("interviews:loop-detail", args=[loop.pk])
    assert (loop.candidate, loop.created_by, loop.interviews.count()) == (
        world.candidate,
        recruiter,
        2,
    )


def test_the_build_page_asks_before_a_second_open_loop_and_saves_nothing_unasked(
    signed_in, recruiter, world
):
    first = services.loop_create(candidate=world.candidate, role=world.role, level=world.level)
    client = signed_in(recruiter)
    body = client.get(reverse("interviews:loop-new"), build_query(world)).content.decode()
    assert "Casey Quinn already has 1 open loop:" in body
    assert reverse("interviews:loop-detail", args=[first.pk]) in body
    assert 'name="allow_duplicate"' in body
    before = snapshot()
    response = client.post(reverse("interviews:loop-new"), build_query(world))
    assert response.status_code == 200
    assert "Casey Quinn already has an open loop" in response.content.decode()
    assert snapshot() == before
    response = client.post(
        reverse("interviews:loop-new"), {**build_query(world), "allow_duplicate": "on"}
    )
    assert response.status_code == 302
    assert Loop.objects.filter(candidate=world.candidate).count() == 2


def test_a_decided_loops_interview_leaves_upcoming_and_offers_no_scorecard(
    signed_in, interviewer, panels, interviews
):
    Loop.objects.filter(pk=panels.pk).update(status=Loop.Status.DECIDED, decision="no_hire")
    body = signed_in(interviewer).get(reverse("interviews:my-interviews")).content.decode()
    upcoming, _, past = body.partition("<h2>Upcoming</h2>")[2].partition("<h2>Past</h2>")
    assert "Casey Quinn" not in upcoming and "Nothing scheduled for you." in upcoming
    assert "Casey Quinn" in past and "Loop decided" in past
    assert "Start scorecard" not in body


def test_the_build_page_explains_a_missing_template_and_saves_nothing(signed_in, recruiter, world):
    before = snapshot()
    client = signed_in(recruiter)
    for method in (client.get, client.post):
        response = method(reverse("interviews:loop-new"), build_query(world, "L3"))
        assert response.status_code == 200
        assert "There is no loop template for AI Infrastructure Engineer at L3." in (
            response.content.decode()
        )
    assert snapshot() == before


def test_the_build_page_starts_with_an_empty_form(signed_in, recruiter, world):
    response = signed_in(recruiter).get(reverse("interviews:loop-new"))
    assert response.status_code == 200
    assert "Save this loop" not in response.content.decode()


def test_the_build_page_preselects_the_only_role(signed_in, recruiter, world):
    page = signed_in(recruiter)
    assert Role.objects.count() == 2

    body = page.get(reverse("interviews:loop-new")).content.decode()
    assert f'<option value="{world.role.pk}" selected>' not in body

    others = Role.objects.exclude(pk=world.role.pk)
    Question.objects.filter(role__in=others).delete()
    others.delete()
    body = page.get(reverse("interviews:loop-new")).content.decode()
    assert f'<option value="{world.role.pk}" selected>' in body


# --- loops --------------------------------------------------------------------------


def test_the_loop_list_shows_each_loop(signed_in, recruiter, world, panels):
    services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, allow_duplicate=True
    )
    body = signed_in(recruiter).get(reverse("interviews:loop-list")).content.decode()
    assert body.count("Casey Quinn</strong>") == 2
    assert body.count('class="warn-dot"') == 1
    assert "status-scheduled" in body and "status-draft" in body


def test_the_loop_page_shows_interviews_questions_reasons_and_panel_forms(
    signed_in, recruiter, world, panels
):
    services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, allow_duplicate=True
    )
    second = Loop.objects.order_by("-pk").first()
    client = signed_in(recruiter)
    body = client.get(reverse("interviews:loop-detail", args=[panels.pk])).content.decode()
    for title in ("serving-1", "serving-2", "both-1", "training-1"):
        assert f">{title}</a>" in body
    assert "covers serving; not asked in 90 days; fits L5, 15 min" in body
    assert "Ines</span>" in body and "Omar</span>" in body
    for item in panels.interviews.first().questions.all():
        assert reverse("interviews:question-swap", args=[item.pk]) in body
        assert reverse("interviews:question-move", args=[item.pk]) in body
    # One form for both interviews' panels and times, one Save.
    assert body.count('<fieldset class="slot"') == 2
    assert body.count("Save panels and times") == 1
    warned = client.get(reverse("interviews:loop-detail", args=[second.pk])).content.decode()
    assert "Assembly warnings" in warned
    assert "Slot &#x27;Serving&#x27; has 1 of 2 questions" in warned


def test_the_loop_page_says_how_many_interviewers_each_panel_still_needs(
    signed_in, recruiter, world, interviewer, other_interviewer
):
    sam = make_user("sam", INTERVIEWER)
    slots = LoopSlot.objects.filter(template__role=world.role, template__level=world.level)
    first_slot, second_slot = slots.order_by("order")
    LoopSlot.objects.filter(pk=first_slot.pk).update(interviewer_count=2)
    LoopSlot.objects.filter(pk=second_slot.pk).update(interviewer_count=1)
    loop = services.loop_create(
        candidate=world.candidate, role=world.role, level=world.level, by=recruiter
    )
    first, second = loop.interviews.order_by("order")
    # Editing the template recreates its slots: the loop keeps what it was built with.
    slots.delete()
    client = signed_in(recruiter)

    def hints() -> list[str]:
        body = client.get(reverse("interviews:loop-detail", args=[loop.pk])).content
        return re.findall(r'<span class="flag">([^<]*)</span>', body.decode())

    assert hints() == ["2 more interviewers needed", "1 more interviewer needed"]
    services.interview_update(interview=first, interviewers=[interviewer], shadow=sam)
    # A shadow sits in to learn: it does not fill a seat.
    assert hints() == ["1 more interviewer needed", "1 more interviewer needed"]
    services.interview_update(interview=second, interviewers=[other_interviewer])
    assert hints() == ["1 more interviewer needed"]
    # A decided loop's panels no longer change: no call to fill them.
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.DECIDED, decision="hire")
    assert hints() == []
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.SCHEDULED, decision="")
    services.interview_update(interview=first, interviewers=[interviewer, other_interviewer])
    assert hints() == []


def test_a_decided_loop_offers_no_changes(signed_in, recruiter, loop):
    Loop.objects.filter(pk=loop.pk).update(status=Loop.Status.DECIDED, decision="hire")
    body = signed_in(recruiter).get(reverse("interviews:loop-detail", args=[loop.pk]))
    text = body.content.decode()
    assert "Decision: <strong>Hire</strong>" in text
    assert "Save panel" not in text
    assert 'id="schedule"' not in text
    assert "Swap</a>" not in text


# --- interviewers ----------------------------------------------------------------------


def held_three_days_ago(world, *, interviewers, shadow=None) -> Loop:  # type: ignore[no-untyped-def]
    """Avery Past's loop, whose first interview was held three days ago by this panel."""
    past = services.loop_create(
        candidate=services.candidate_create(name="Avery Past"), role=world.role, level=world.level
    )
    held = timezone.now() - timedelta(days=3)
    services.interview_update(
        interview=past.interviews.first(),
        interviewers=interviewers,
        shadow=shadow,
        scheduled_start=held,
        scheduled_end=held + timedelta(minutes=45),
    )
    return past


def test_my_interviews_lists_owed_upcoming_and_past(
    signed_in, interviewer, world, panels, interviews
):
    past = held_three_days_ago(world, interviewers=[interviewer])
    page = signed_in(interviewer)
    body = page.get(reverse("interviews:my-interviews")).content.decode()
    # Held three days ago and not scored: owed, at the top, before anything upcoming.
    owed, _, rest = body.partition("<h2>Upcoming</h2>")
    upcoming, _, earlier = rest.partition("<h2>Past</h2>")
    assert "<h2>Scorecards owed</h2>" in owed
    assert "1 interview held without your submitted scorecard" in owed
    assert "Avery Past" in owed and "Casey Quinn" not in owed
    assert "Casey Quinn" in upcoming and "Avery Past" not in upcoming
    assert "Avery Past" not in earlier
    assert reverse("interviews:kit", args=[interviews[0].pk]) in upcoming
    # Omar's interview of the same loop is not Ines's.
    assert reverse("interviews:kit", args=[interviews[1].pk]) not in body

    # Once its loop is decided nothing is owed there any more: it is simply past.
    Loop.objects.filter(pk=past.pk).update(status=Loop.Status.DECIDED)
    body = page.get(reverse("interviews:my-interviews")).content.decode()
    assert "Scorecards owed" not in body
    assert "Avery Past" in body.partition("<h2>Past</h2>")[2]


def test_a_shadow_seat_owes_no_scorecard(signed_in, interviewer, other_interviewer, world):
    held_three_days_ago(world, interviewers=[other_interviewer], shadow=interviewer)

    body = signed_in(interviewer).get(reverse("interviews:my-interviews")).content.decode()

    assert "Scorecards owed" not in body
    assert "Avery Past" in body.partition("<h2>Past</h2>")[2]
    body = signed_in(other_interviewer).get(reverse("interviews:my-interviews")).content.decode()
    assert "Avery Past" in body.partition("<h2>Upcoming</h2>")[0]  # Omar's is owed


def test_the_kit_shows_each_question_as_asked_with_its_rubric_and_follow_ups(
    signed_in, interviewer, interviews, panels
):
    response = signed_in(interviewer).get(reverse("interviews:kit", args=[interviews[0].pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert '<link rel="stylesheet" href="/static/css/print.css" media="print">' in body
    assert "<h2>1. serving-1</h2>" in body and "<h2>2. serving-2</h2>" in body
    assert '<blockquote class="prompt">Prompt of serving-1?</blockquote>' in body
    assert "15 min · rate 1–4" in body
    first = body[body.index("1. serving-1") : body.index("2. serving-2")]
    core = first.index(">Core</h3>")
    strong = first.index(">Strong answers add</h3>")
    red = first.index(">Red flags</h3>")
    assert core < first.index("Explains the mechanism in plain terms.") < strong
    assert core < first.index("Estimates the cost with numbers.") < strong
    assert strong < first.index("A strong answer also compares two alternatives.") < red
    assert red < first.index("A common miss is ignoring failure modes.")
    assert '<ol class="followups"><li>What would you measure first?</li></ol>' in first
    assert reverse("interviews:kit-markdown", args=[interviews[0].pk]) in body


def test_the_kit_downloads_as_markdown(signed_in, interviewer, interviews, panels):
    response = signed_in(interviewer).get(
        reverse("interviews:kit-markdown", args=[interviews[0].pk])
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="kit-casey-quinn-serving.md"'
    text = response.content.decode()
    assert text.startswith("# Serving: Casey Quinn\n")
    assert "45 minutes (30 planned across 2 questions)" in text
    assert "## 1. serving-1 (15 min, rate 1–4)" in text
    assert "> Prompt of serving-1?" in text
    assert (
        "**Core**\n\n"
        "- [ ] Explains the mechanism in plain terms.\n"
        "- [ ] Estimates the cost with numbers.\n\n"
        "**Strong answers add**\n\n"
        "- [ ] A strong answer also compares two alternatives.\n\n"
        "**Red flags**\n\n"
        "- [ ] A common miss is ignoring failure modes.\n\n"
        "**Expect these follow-ups**\n\n"
        "1. What would you measure first?\n"
    ) in text


def test_my_interviews_shows_where_each_of_my_scorecards_stands(
    signed_in, interviewer, other_interviewer, world, panels, interviews
):
    from scoring.models import Scorecard
    from scoring.scorecards import services as scoring_services

    later = services.loop_create(
        candidate=services.candidate_create(name="Drew Later"), role=world.role, level=world.level
    )
    services.interview_update(interview=later.interviews.first(), interviewers=[interviewer])
    page = signed_in(interviewer)

    def row(candidate: str) -> str:
        body = page.get(reverse("interviews:my-interviews")).content.decode()
        return body[body.index(f"<strong>{candidate}</strong>") :].split("</tr>")[0]

    assert "Not started" in row("Casey Quinn") and "Start scorecard" in row("Casey Quinn")
    # Omar's submitted card on his own interview of the loop says nothing about Ines's.
    omar = scoring_services.scorecard_start(interview=interviews[1], by=other_interviewer)
    Scorecard.objects.filter(pk=omar.pk).update(status="submitted", submitted_at=timezone.now())
    assert "Not started" in row("Casey Quinn")

    scoring_services.scorecard_start(interview=interviews[0], by=interviewer)
    assert "Draft saved" in row("Casey Quinn") and "Finish scorecard" in row("Casey Quinn")
    Scorecard.objects.filter(interviewer=interviewer).update(
        status="submitted", submitted_at=timezone.now()
    )
    assert "Submitted" in row("Casey Quinn") and "Start scorecard" not in row("Casey Quinn")
    assert "Not started" in row("Drew Later")


def test_the_kit_offers_the_scorecard_only_to_the_panel(
    signed_in, interviewer, recruiter, interviews, panels
):
    scorecard = reverse("scoring:scorecard", args=[interviews[0].pk])
    kit = reverse("interviews:kit", args=[interviews[0].pk])

    assert f'href="{scorecard}">Write scorecard</a>' in signed_in(interviewer).get(kit).text
    # A recruiter reads every kit but sits on no panel here: no link to a page they cannot open.
    as_recruiter = signed_in(recruiter)
    assert "Write scorecard" not in as_recruiter.get(kit).text
    assert as_recruiter.get(scorecard).status_code == 404


def test_the_kit_of_a_decided_loop_offers_no_scorecard(signed_in, interviewer, interviews, panels):
    Loop.objects.filter(pk=panels.pk).update(status=Loop.Status.DECIDED, decision="no_hire")
    kit = signed_in(interviewer).get(reverse("interviews:kit", args=[interviews[0].pk])).text

    assert "Write scorecard" not in kit
    assert "Loop decided" in kit
