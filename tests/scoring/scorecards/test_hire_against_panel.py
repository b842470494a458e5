"""A hire against a panel that mostly said no needs a rationale that says why
(scoring/scorecards/hiring.py): the rule, the service, the API, the debrief's JSON (the
panel and whether the hire went against it, blind rule kept) and the debrief page."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils.html import escape

from core.api.exceptions import ApplicationError
from core.models import AuditEvent
from interviews.models import Interview, Loop
from scoring.scorecards import hiring, services
from tests.conftest import client_for
from tests.problems import detail
from tests.scoring.helpers import draft, state, submitted
from tests.scoring.response_schema import errors
from tests.support.loops import Built

WHY = "Ines saw the serving design the others missed; the no votes rest on a slow start."
SHORT = "Strong."
AGAINST = "1 strong no and 2 no of 4 recommendations"


@pytest.mark.parametrize(
    ("recommendations", "mostly_no", "described"),
    [
        ([], False, "of 0 recommendations"),
        (["no"], True, "1 no of 1 recommendation"),
        (["yes"], False, "of 1 recommendation"),
        (["no", "yes"], False, "1 no of 2 recommendations"),  # half is not more than half
        (["strong_no", "no", "yes", "strong_yes"], False, "1 strong no and 1 no of 4"),
        (["strong_no", "no", "no", "yes"], True, "1 strong no and 2 no of 4 recommendations"),
        (["strong_no", "", "yes"], False, "1 strong no of 2 recommendations"),  # "" not counted
    ],
)  # fmt: skip
def test_the_panel_is_mostly_no_only_above_half(
    recommendations: list[str], mostly_no: bool, described: str
) -> None:
    panel = hiring.panel_of(recommendations)

    assert panel.mostly_no is mostly_no
    assert described in panel.describe()
    assert hiring.needs_rationale(decision="hire", panel=panel) is mostly_no
    assert hiring.needs_rationale(decision="no_hire", panel=panel) is False


@pytest.fixture
def mostly_no(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    sam: User,
) -> Loop:
    """Every card in; three of the four counted cards say no. The shadow's yes is not counted."""
    submitted(interviewer, first, rating=1, recommendation="strong_no")
    submitted(pia, first, rating=2, recommendation="no")
    submitted(sam, first, rating=4, recommendation="strong_yes")  # a shadow: not counted
    submitted(other_interviewer, second, rating=2, recommendation="no")
    submitted(interviewer, second, rating=3, recommendation="yes")
    panel.loop.refresh_from_db()
    assert panel.loop.status == "debrief"
    return panel.loop


def decide(user: User, loop: Loop, body: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client_for(user).post(f"/api/v1/loops/{loop.pk}/decision/", body, format="json")


def test_the_loop_panel_counts_submitted_cards_and_leaves_shadows_out(mostly_no: Loop) -> None:
    assert hiring.loop_panel(mostly_no) == hiring.Panel(strong_no=1, no=2, counted=4)


def test_the_service_refuses_a_hire_against_the_panel_with_a_short_rationale(
    mostly_no: Loop, recruiter: User
) -> None:
    before = state()

    with pytest.raises(ApplicationError) as refused:
        services.loop_decide(loop=mostly_no, by=recruiter, decision="hire", rationale=SHORT)

    assert refused.value.code == "rationale_required"
    assert refused.value.message == (
        f"This hire goes against the panel ({AGAINST}): say in the rationale why,"
        " in at least 40 characters."
    )
    assert state() == before
    assert Loop.objects.get(pk=mostly_no.pk).status == "debrief"


@pytest.mark.parametrize("rationale", ["", SHORT, " " * 60, "x" * 39])
def test_the_api_answers_400_and_writes_nothing(
    mostly_no: Loop, recruiter: User, rationale: str
) -> None:
    before = state()

    response = decide(recruiter, mostly_no, {"decision": "hire", "rationale": rationale})

    assert response.status_code == 400
    if rationale.strip():
        assert detail(response, 400, "rationale_required").startswith(
            f"This hire goes against the panel ({AGAINST})"
        )
    assert state() == before
    loop = Loop.objects.get(pk=mostly_no.pk)
    assert (loop.status, loop.decision, loop.decision_rationale) == ("debrief", "", "")
    assert not AuditEvent.objects.filter(action="loop.decided").exists()


def test_the_api_records_a_hire_against_the_panel_with_a_rationale(
    mostly_no: Loop, recruiter: User
) -> None:
    response = decide(recruiter, mostly_no, {"decision": "hire", "rationale": WHY})

    assert response.status_code == 200
    assert response.json()["loop"]["decision_rationale"] == WHY
    loop = Loop.objects.get(pk=mostly_no.pk)
    assert (loop.status, loop.decision, loop.decision_rationale) == ("decided", "hire", WHY)


def test_a_no_hire_against_a_mostly_no_panel_needs_only_the_usual_rationale(
    mostly_no: Loop, recruiter: User
) -> None:
    response = decide(recruiter, mostly_no, {"decision": "no_hire", "rationale": SHORT})

    assert response.status_code == 200
    assert Loop.objects.get(pk=mostly_no.pk).decision == "no_hire"


def test_a_hire_with_a_panel_split_evenly_needs_only_the_usual_rationale(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    recruiter: User,
) -> None:
    submitted(interviewer, first, rating=1, recommendation="strong_no")
    submitted(pia, first, rating=2, recommendation="no")
    submitted(other_interviewer, second, rating=3, recommendation="yes")
    submitted(interviewer, second, rating=3, recommendation="yes")

    response = decide(recruiter, panel.loop, {"decision": "hire", "rationale": SHORT})

    assert response.status_code == 200


def test_the_schema_documents_the_refusal(recruiter: User) -> None:
    schema = client_for(recruiter).get("/api/schema/", {"format": "json"}).json()
    operation = next(
        v["post"] for k, v in schema["paths"].items() if k.endswith("/loops/{id}/decision/")
    )

    assert "rationale_required" in str(operation["responses"]["400"])
    body = schema["components"]["schemas"]["DecisionInputRequest"]["properties"]["rationale"]
    assert "rationale_required" in body["description"]


# --- the debrief's JSON ----------------------------------------------------------------------

COUNTED = {"strong_no": 1, "no": 2, "counted": 4, "mostly_no": True}


def debrief(user: User, loop: Loop) -> dict[str, Any]:
    response = client_for(user).get(f"/api/v1/loops/{loop.pk}/debrief/")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    assert errors("Debrief", body) == []  # as the schema describes it, no key more
    return body


def test_the_debrief_says_a_decided_hire_went_against_the_panel(
    mostly_no: Loop, recruiter: User, interviewer: User
) -> None:
    decided = decide(recruiter, mostly_no, {"decision": "hire", "rationale": WHY})

    assert decided.status_code == 200
    for body in (decided.json(), debrief(recruiter, mostly_no), debrief(interviewer, mostly_no)):
        assert (body["panel"], body["hire_against_panel"]) == (COUNTED, True)


def test_the_debrief_shows_the_panel_before_any_decision_and_no_verdict(
    mostly_no: Loop, recruiter: User, pia: User
) -> None:
    for reader in (recruiter, pia):
        body = debrief(reader, mostly_no)
        assert (body["loop"]["decision"], body["blind"]) == (None, False)
        assert (body["panel"], body["hire_against_panel"]) == (COUNTED, None)


def test_a_hire_with_a_split_panel_did_not_go_against_it(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    recruiter: User,
) -> None:
    submitted(interviewer, first, rating=1, recommendation="strong_no")
    submitted(pia, first, rating=2, recommendation="no")
    submitted(other_interviewer, second, rating=3, recommendation="yes")
    submitted(interviewer, second, rating=3, recommendation="yes")
    split = {"strong_no": 1, "no": 1, "counted": 4, "mostly_no": False}
    assert debrief(recruiter, panel.loop)["hire_against_panel"] is None

    decided = decide(recruiter, panel.loop, {"decision": "hire", "rationale": SHORT})

    assert decided.status_code == 200
    for body in (decided.json(), debrief(recruiter, panel.loop), debrief(pia, panel.loop)):
        assert (body["panel"], body["hire_against_panel"]) == (split, False)


def test_a_no_hire_did_not_go_against_a_mostly_no_panel(mostly_no: Loop, recruiter: User) -> None:
    decide(recruiter, mostly_no, {"decision": "no_hire", "rationale": SHORT})

    body = debrief(recruiter, mostly_no)
    assert (body["panel"], body["hire_against_panel"]) == (COUNTED, False)


def test_a_blind_panelist_learns_nothing_of_the_panel_from_the_debrief(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    sam: User,
    recruiter: User,
) -> None:
    """Sam shadows interview 1 and has only a draft: he stays blind, before the others'
    cards, after them and after the hire (which does not wait for a shadow)."""
    draft(sam, first, recommendation="strong_yes")
    before = debrief(sam, panel.loop)
    submitted(interviewer, first, rating=1, recommendation="strong_no")
    submitted(pia, first, rating=2, recommendation="no")
    submitted(other_interviewer, second, rating=2, recommendation="no")
    submitted(interviewer, second, rating=3, recommendation="yes")
    undecided = debrief(sam, panel.loop)
    services.loop_decide(loop=panel.loop, by=recruiter, decision="hire", rationale=WHY)
    decided = debrief(sam, panel.loop)

    assert [body["blind"] for body in (before, undecided, decided)] == [True, True, True]
    for body in (before, undecided, decided):
        assert (body["panel"], body["hire_against_panel"]) == (None, None)
    # The co-panelists' cards change nothing he reads; the decision itself he is told.
    assert undecided == before
    assert decided["loop"]["decision"] == "hire"
    # The recruiter, on the same loop, reads the hire as against the panel.
    assert debrief(recruiter, panel.loop)["panel"] == COUNTED
    assert debrief(recruiter, panel.loop)["hire_against_panel"] is True


def test_the_schema_documents_the_panel_and_the_verdict(recruiter: User) -> None:
    schema = client_for(recruiter).get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    debrief = components["Debrief"]["properties"]

    assert debrief["panel"]["oneOf"] == [
        {"$ref": "#/components/schemas/DebriefPanel"},
        {"$ref": "#/components/schemas/NullEnum"},
    ]
    assert debrief["hire_against_panel"]["type"] == "boolean"
    assert debrief["hire_against_panel"]["nullable"] is True
    assert {"panel", "hire_against_panel"} <= set(components["Debrief"]["required"])
    assert list(components["DebriefPanel"]["properties"]) == [
        "strong_no", "no", "counted", "mostly_no",
    ]  # fmt: skip


# --- the debrief page ----------------------------------------------------------------------


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_says_why_a_hire_needs_a_rationale_here(mostly_no: Loop, recruiter: User) -> None:
    body = signed_in(recruiter).get(f"/loops/{mostly_no.pk}/debrief/").content.decode()

    assert (
        f'<p class="notice" id="against-panel">Most of the panel said no ({AGAINST}).'
        " A hire against it needs a rationale that says why the panel's no does not"
        " decide it, in at least 40 characters;"
    ) in body
    assert 'aria-describedby="against-panel"' in body


def test_the_page_does_not_ask_where_the_panel_mostly_said_yes(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    other_interviewer: User,
    recruiter: User,
) -> None:
    for user, interview in ((interviewer, first), (pia, first), (other_interviewer, second),
                            (interviewer, second)):  # fmt: skip
        submitted(user, interview)

    body = signed_in(recruiter).get(f"/loops/{panel.loop.pk}/debrief/").content.decode()

    assert "against-panel" not in body and "Hired against the panel" not in body


def test_the_page_refuses_a_short_rationale_keeps_what_was_typed_and_writes_nothing(
    mostly_no: Loop, recruiter: User
) -> None:
    before = state()

    response = signed_in(recruiter).post(
        f"/loops/{mostly_no.pk}/debrief/", {"decision": "hire", "rationale": SHORT}
    )

    assert response.status_code == 200
    body = response.content.decode()
    assert escape(f"This hire goes against the panel ({AGAINST})") in body
    assert f">{SHORT}</textarea>" in body
    assert 'value="hire" required checked>' in body
    assert state() == before


def test_the_debrief_shows_a_hire_against_the_panel_and_its_rationale(
    mostly_no: Loop, recruiter: User, interviewer: User
) -> None:
    services.loop_decide(loop=mostly_no, by=recruiter, decision="hire", rationale=WHY)

    for reader in (recruiter, interviewer):
        body = signed_in(reader).get(f"/loops/{mostly_no.pk}/debrief/").content.decode()
        assert f"Hired against the panel: most of it said no ({AGAINST})." in body
        assert f"<strong>Rationale</strong>: {escape(WHY)}" in body
