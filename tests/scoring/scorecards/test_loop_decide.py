"""POST /api/v1/loops/{id}/decision/ and the debrief page's form (services.loop_decide)."""

from datetime import UTC
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.models import AuditEvent
from interviews.models import Interview, Loop, Panelist
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail, field_errors
from tests.scoring.helpers import card_json, state, submitted
from tests.support.api import iso
from tests.support.loops import Built

RATIONALE = "Strong on serving and GPU performance; the panel agrees."


@pytest.fixture
def debriefed(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
) -> Loop:
    """Every interviewer (the shadow aside) has submitted: the loop is in debrief."""
    submitted(interviewer, first)
    submitted(pia, first, rating=4)
    submitted(other_interviewer, second, rating=2, recommendation="no")
    submitted(interviewer, second)
    panel.loop.refresh_from_db()
    assert panel.loop.status == "debrief"
    return panel.loop


def decide(user: User, loop: Loop, body: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client_for(user).post(f"/api/v1/loops/{loop.pk}/decision/", body, format="json")


def test_a_recruiter_records_the_decision(
    debriefed: Loop, recruiter: User, first: Interview
) -> None:
    response = decide(recruiter, debriefed, {"decision": "hire", "rationale": f"  {RATIONALE} "})

    loop = Loop.objects.get(pk=debriefed.pk)
    assert (loop.status, loop.decision, loop.decision_rationale, loop.decided_by) == (
        "decided",
        "hire",
        RATIONALE,
        recruiter,
    )
    assert loop.decided_at is not None
    cards = sorted(
        (c for c in loop.interviews.all() for c in c.scorecards.all()),
        key=lambda c: (c.interview_id, c.is_shadow, c.pk),
    )
    assert response.status_code == 200
    assert response.json() == {
        "loop": {
            "id": loop.pk,
            "candidate": "Casey Quinn",
            "role_id": loop.role_id,
            "role": "AI Infrastructure Engineer",
            "level_id": loop.level_id,
            "level": "L5",
            "status": "decided",
            "decision": "hire",
            "decision_rationale": RATIONALE,
            "decided_by": "rita",
            "decided_at": iso(loop.decided_at),
        },
        "blind": False,
        "panel": {"strong_no": 0, "no": 1, "counted": 4, "mostly_no": False},
        "hire_against_panel": False,
        "scorecards": [card_json(c) for c in cards],
        # Sam (the shadow) had not submitted: the decision cancelled the seat, so the
        # debrief waits for nobody.
        "pending": [],
    }
    event = AuditEvent.objects.get(action="loop.decided")
    assert (event.actor, event.target, event.data) == (
        recruiter,
        f"loop {loop.pk}",
        # The shadow (sam) had not submitted: their seat is cancelled with the decision.
        {"decision": "hire", "seats_cancelled": 1, "drafts_kept_read_only": 0},
    )


def test_a_recruiter_records_a_no_hire(debriefed: Loop, recruiter: User) -> None:
    response = decide(recruiter, debriefed, {"decision": "no_hire", "rationale": RATIONALE})

    assert response.status_code == 200
    assert response.json()["loop"]["decision"] == "no_hire"
    assert Loop.objects.get(pk=debriefed.pk).get_decision_display() == "no hire"


def test_it_refuses_an_interviewer_on_the_loop_with_403(debriefed: Loop, interviewer: User) -> None:
    before = state()

    response = decide(interviewer, debriefed, {"decision": "hire", "rationale": RATIONALE})

    assert detail(response, 403, "permission_denied") == "Only recruiters record decisions."
    assert state() == before


@pytest.mark.parametrize("who", ["olga", "leo"])
def test_it_answers_404_to_someone_not_on_the_loop(
    debriefed: Loop, who: str, olga: User, lead: User
) -> None:
    user = {"olga": olga, "leo": lead}[who]
    before = state()

    response = decide(user, debriefed, {"decision": "hire", "rationale": RATIONALE})

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert state() == before


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"decision": "hire"}, {"rationale": ["This field is required."]}),
        ({"decision": "hire", "rationale": ""}, {"rationale": ["This field may not be blank."]}),
        ({"decision": "hire", "rationale": "  "}, {"rationale": ["This field may not be blank."]}),
        ({"rationale": RATIONALE}, {"decision": ["This field is required."]}),
        (
            {"decision": "maybe", "rationale": RATIONALE},
            {"decision": ['"maybe" is not a valid choice.']},
        ),
    ],
)
def test_it_refuses_a_decision_without_a_rationale_or_a_valid_choice(
    debriefed: Loop, recruiter: User, body: dict[str, str], errors: dict[str, list[str]]
) -> None:
    before = state()

    response = decide(recruiter, debriefed, body)

    assert field_errors(response) == errors
    assert state() == before


def test_it_answers_409_to_a_second_decision(debriefed: Loop, recruiter: User) -> None:
    decide(recruiter, debriefed, {"decision": "hire", "rationale": RATIONALE})
    loop = Loop.objects.get(pk=debriefed.pk)
    assert loop.decided_at is not None
    before = state()

    response = decide(recruiter, debriefed, {"decision": "no_hire", "rationale": "Changed mind"})

    when = loop.decided_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    assert detail(response, 409, "loop_already_decided") == (
        f"This loop was already decided (Hire) at {when} UTC."
    )
    assert state() == before
    assert AuditEvent.objects.filter(action="loop.decided").count() == 1


def test_it_refuses_a_hire_before_any_scorecard_is_in(panel: Built, recruiter: User) -> None:
    before = state()

    response = decide(recruiter, panel.loop, {"decision": "hire", "rationale": RATIONALE})

    assert detail(response, 400, "hire_waits_for_scorecards").startswith(
        "A hire needs every interviewer's scorecard; still waiting for Ines (Interview 1), "
    )
    assert state() == before
    assert not AuditEvent.objects.filter(action="loop.decided").exists()


@pytest.fixture
def first_in(panel: Built, first: Interview, interviewer: User, pia: User) -> Built:
    """Interview 1's cards are in (its shadow owes none); interview 2's are not."""
    submitted(interviewer, first)
    submitted(pia, first, rating=4)
    return panel


def test_it_refuses_a_hire_while_an_interview_has_no_interviewer(
    first_in: Built, second: Interview, recruiter: User
) -> None:
    Panelist.objects.filter(interview=second).delete()  # nobody on interview 2 any more
    before = state()

    response = decide(recruiter, first_in.loop, {"decision": "hire", "rationale": RATIONALE})

    assert detail(response, 400, "hire_waits_for_interviews") == (
        f"A hire needs every interview held and scored; no interviewer yet on {second.title}."
    )
    assert state() == before
    body = signed_in(recruiter).get(f"/loops/{first_in.loop.pk}/debrief/").content.decode()
    assert f"No interviewer yet on {second.title}. A hire waits" in body
    assert 'name="decision" value="hire" required disabled' in body


def test_it_refuses_a_hire_while_an_interviewer_is_outstanding_naming_them(
    first_in: Built, second: Interview, recruiter: User
) -> None:
    before = state()

    response = decide(recruiter, first_in.loop, {"decision": "hire", "rationale": RATIONALE})

    # Shadows owe nothing; the two seats of interview 2 are still open.
    assert detail(response, 400, "hire_waits_for_scorecards") == (
        "A hire needs every interviewer's scorecard; still waiting for "
        f"Omar ({second.title}), Ines ({second.title})."
    )
    assert state() == before


@pytest.mark.parametrize("scored", [False, True], ids=["nobody-scored-yet", "one-card-in"])
def test_a_no_hire_may_close_the_loop_before_every_scorecard_is_in(
    panel: Built, first: Interview, interviewer: User, recruiter: User, scored: bool
) -> None:
    # The candidate withdrew, or the panel has seen enough.
    if scored:
        submitted(interviewer, first, rating=1, recommendation="strong_no")

    response = decide(recruiter, panel.loop, {"decision": "no_hire", "rationale": RATIONALE})

    assert response.status_code == 200
    loop = Loop.objects.get(pk=panel.loop.pk)
    assert (loop.status, loop.decision) == ("decided", "no_hire")


# --- the debrief page's form --------------------------------------------------------------


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_offers_the_decision_form_to_recruiters_only(
    debriefed: Loop, recruiter: User, interviewer: User
) -> None:
    url = f"/loops/{debriefed.pk}/debrief/"

    assert "Record the decision" in signed_in(recruiter).get(url).content.decode()
    assert "Record the decision" not in signed_in(interviewer).get(url).content.decode()


def test_the_page_offers_only_a_no_hire_while_scorecards_are_outstanding(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    recruiter: User,
) -> None:
    url = f"/loops/{panel.loop.pk}/debrief/"

    body = signed_in(recruiter).get(url).content.decode()
    assert "No scorecard is in yet. A hire waits until every interview has happened" in body
    assert 'name="decision" value="hire" required disabled' in body
    assert 'name="decision" value="no_hire" required>' in body

    submitted(interviewer, first)
    body = signed_in(recruiter).get(url).content.decode()
    assert "3 scorecards still outstanding. A hire waits until every interview has happened" in body
    assert 'name="decision" value="hire" required disabled' in body

    submitted(pia, first)
    submitted(other_interviewer, second)
    submitted(interviewer, second)  # the shadow owes nothing
    body = signed_in(recruiter).get(url).content.decode()
    assert "still outstanding" not in body
    assert 'name="decision" value="hire" required>' in body


def test_the_page_records_the_decision(debriefed: Loop, recruiter: User) -> None:
    client = signed_in(recruiter)
    url = f"/loops/{debriefed.pk}/debrief/"

    response = client.post(url, {"decision": "no_hire", "rationale": RATIONALE}, follow=True)

    assert response.redirect_chain == [(url, 302)]
    body = response.content.decode()
    assert "Decision recorded." in body
    assert "Decision: <strong>No hire</strong> by Rita" in body
    assert RATIONALE in body
    assert "Record the decision" not in body
    loop = Loop.objects.get(pk=debriefed.pk)
    assert (loop.status, loop.decision, loop.decided_by) == ("decided", "no_hire", recruiter)
    assert AuditEvent.objects.filter(action="loop.decided", actor=recruiter).count() == 1


def test_the_page_refuses_a_decision_without_a_rationale(debriefed: Loop, recruiter: User) -> None:
    before = state()

    response = signed_in(recruiter).post(
        f"/loops/{debriefed.pk}/debrief/", {"decision": "hire", "rationale": "  "}
    )

    assert response.status_code == 200
    assert "Record the rationale for the decision." in response.content.decode()
    assert state() == before


def test_the_page_refuses_a_second_decision(debriefed: Loop, recruiter: User) -> None:
    client = signed_in(recruiter)
    url = f"/loops/{debriefed.pk}/debrief/"
    client.post(url, {"decision": "hire", "rationale": RATIONALE})
    before = state()

    response = client.post(url, {"decision": "no_hire", "rationale": "Changed mind"})

    assert response.status_code == 200
    assert "This loop was already decided (Hire)" in response.content.decode()
    assert state() == before


def test_the_page_refuses_an_interviewer_on_the_loop_with_403(
    debriefed: Loop, interviewer: User
) -> None:
    before = state()

    response = signed_in(interviewer).post(
        f"/loops/{debriefed.pk}/debrief/", {"decision": "hire", "rationale": RATIONALE}
    )

    # The interviewer may read this debrief, so hiding it behind a 404 would be wrong:
    # the refusal is a 403, as on the API.
    assert response.status_code == 403
    assert state() == before


@pytest.mark.parametrize("who", ["olga", "leo"])
def test_the_page_answers_404_to_someone_not_on_the_loop(
    debriefed: Loop, who: str, olga: User, lead: User
) -> None:
    user = {"olga": olga, "leo": lead}[who]
    before = state()

    response = signed_in(user).post(
        f"/loops/{debriefed.pk}/debrief/", {"decision": "hire", "rationale": RATIONALE}
    )

    assert response.status_code == 404
    assert state() == before
