"""Blind feedback (scoring.scorecards.selectors) over every endpoint and page that shows scorecards.

An interviewer on a loop sees none of the others' scorecards until they have
submitted every card they owe in it, then all submitted ones; drafts are seen
only by their author; recruiters see every submitted card.
"""

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from scoring.models import Scorecard
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail
from tests.scoring.helpers import draft, submitted
from tests.support.loops import Built

# Distinctive strings that only ever appear where the card that holds them is shown.
PIA_NOTE = "pia-saw-a-kv-cache-eviction-storm"
PIA_SUMMARY = "pia-summary-hire-for-serving-depth"
OMAR_NOTE = "omar-heard-nothing-about-nccl-rings"
OMAR_SUMMARY = "omar-summary-weak-on-collectives"
SAM_DRAFT = "sam-draft-unsure-about-the-autoscaler"
SAM_SUMMARY = "sam-shadow-summary-solid-overall"
INES_NOTE = "ines-own-note-on-batching"


@dataclass
class Others:
    pia: Scorecard
    omar: Scorecard
    sam: Scorecard


@pytest.fixture
def others(
    first: Interview, second: Interview, pia: User, other_interviewer: User, sam: User
) -> Others:
    """Pia and Omar have submitted; Sam (the shadow) has only a draft."""
    return Others(
        pia=submitted(pia, first, notes=PIA_NOTE, summary=PIA_SUMMARY),
        omar=submitted(other_interviewer, second, notes=OMAR_NOTE, summary=OMAR_SUMMARY, rating=2),
        sam=draft(sam, first, notes=SAM_DRAFT, summary=SAM_DRAFT),
    )


def seen_by(user: User, panel: Built, *, pages: bool = True) -> dict[str, str]:
    """Return every response body that may show the loop's scorecards, by endpoint."""
    api = client_for(user)
    web = Client()
    web.force_login(user)
    loop = panel.loop.pk
    bodies = {
        "api list": api.get("/api/v1/scorecards/").content.decode(),
        "api debrief": api.get(f"/api/v1/loops/{loop}/debrief/").content.decode(),
        "debrief page": web.get(f"/loops/{loop}/debrief/").content.decode(),
    }
    if pages:
        for interview in panel.interviews:
            if interview.panel.filter(user=user).exists():
                page = web.get(f"/interviews/{interview.pk}/scorecard/")
                bodies[f"scorecard page {interview.order}"] = page.content.decode()
    return bodies


def detail_status(user: User, card: Scorecard) -> int:
    return client_for(user).get(f"/api/v1/scorecards/{card.pk}/").status_code


def listed(user: User) -> list[tuple[str, str]]:
    results = client_for(user).get("/api/v1/scorecards/").json()["results"]
    return [(c["interviewer"], c["status"]) for c in results]


def debrief_cards(user: User, panel: Built) -> list[tuple[str, str]]:
    data = client_for(user).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    return [(c["interviewer"], c["status"]) for c in data["scorecards"]]


def assert_absent(bodies: dict[str, str], *secrets: str) -> None:
    leaks = [(where, s) for where, body in bodies.items() for s in secrets if s in body]
    assert leaks == []


def test_an_interviewer_who_has_not_started_sees_no_other_card(
    panel: Built, others: Others, interviewer: User
) -> None:
    # Details first: opening the scorecard page (in seen_by) starts a draft.
    for card in (others.pia, others.omar, others.sam):
        assert detail_status(interviewer, card) == 404
    assert listed(interviewer) == []

    bodies = seen_by(interviewer, panel)

    assert_absent(bodies, PIA_NOTE, PIA_SUMMARY, OMAR_NOTE, OMAR_SUMMARY, SAM_DRAFT)


def test_an_interviewer_with_drafts_in_progress_sees_no_other_card(
    panel: Built, others: Others, interviewer: User, first: Interview, second: Interview
) -> None:
    draft(interviewer, first, notes=INES_NOTE)
    draft(interviewer, second, notes=INES_NOTE)

    bodies = seen_by(interviewer, panel)

    assert_absent(bodies, PIA_NOTE, PIA_SUMMARY, OMAR_NOTE, OMAR_SUMMARY, SAM_DRAFT)
    assert listed(interviewer) == [("ines", "draft"), ("ines", "draft")]
    for card in (others.pia, others.omar, others.sam):
        assert detail_status(interviewer, card) == 404
    debrief = client_for(interviewer).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert debrief["blind"] is True


def test_an_interviewer_stays_blind_until_every_card_she_owes_is_submitted(
    panel: Built, others: Others, interviewer: User, first: Interview, second: Interview
) -> None:
    submitted(interviewer, first, notes=INES_NOTE)
    draft(interviewer, second, notes=INES_NOTE)

    bodies = seen_by(interviewer, panel)

    assert_absent(bodies, PIA_NOTE, PIA_SUMMARY, OMAR_NOTE, OMAR_SUMMARY, SAM_DRAFT)
    assert listed(interviewer) == [("ines", "submitted"), ("ines", "draft")]
    for card in (others.pia, others.omar, others.sam):
        assert detail_status(interviewer, card) == 404


def test_a_panelist_with_a_draft_does_not_see_a_co_interviewers_submitted_card(
    panel: Built, first: Interview, interviewer: User, pia: User
) -> None:
    # Ines and Pia share interview 1: Ines has submitted, Pia is still writing.
    ines = submitted(interviewer, first, notes=INES_NOTE, summary=INES_NOTE)
    draft(pia, first, notes=PIA_NOTE)

    bodies = seen_by(pia, panel)

    assert_absent(bodies, INES_NOTE)
    assert listed(pia) == [("pia", "draft")]
    assert detail_status(pia, ines) == 404


def test_after_submitting_every_card_an_interviewer_sees_all_submitted_ones_but_no_draft(
    panel: Built, others: Others, interviewer: User, first: Interview, second: Interview
) -> None:
    submitted(interviewer, first, notes=INES_NOTE)
    submitted(interviewer, second, notes=INES_NOTE)

    bodies = seen_by(interviewer, panel, pages=False)

    for where in ("api list", "api debrief"):
        for secret in (PIA_NOTE, PIA_SUMMARY, OMAR_NOTE, OMAR_SUMMARY):
            assert secret in bodies[where], (where, secret)
    for secret in (PIA_SUMMARY, OMAR_SUMMARY):
        assert secret in bodies["debrief page"]
    assert_absent(bodies, SAM_DRAFT)
    assert sorted(listed(interviewer)) == [
        ("ines", "submitted"),
        ("ines", "submitted"),
        ("omar", "submitted"),
        ("pia", "submitted"),
    ]
    assert detail_status(interviewer, others.pia) == 200
    assert detail_status(interviewer, others.omar) == 200
    assert detail_status(interviewer, others.sam) == 404
    debrief = client_for(interviewer).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert debrief["blind"] is False


def test_a_draft_is_seen_by_its_author_only(
    panel: Built,
    others: Others,
    interviewer: User,
    first: Interview,
    second: Interview,
    sam: User,
    pia: User,
    recruiter: User,
) -> None:
    submitted(interviewer, first)
    submitted(interviewer, second)

    assert ("sam", "draft") in listed(sam)
    assert detail_status(sam, others.sam) == 200
    assert ("sam", "draft") in debrief_cards(sam, panel)
    for user in (interviewer, pia, recruiter):
        assert_absent(seen_by(user, panel, pages=False), SAM_DRAFT)
        assert detail_status(user, others.sam) == 404


def test_recruiters_see_every_submitted_card_and_no_draft(
    panel: Built, others: Others, recruiter: User
) -> None:
    bodies = seen_by(recruiter, panel)

    assert sorted(listed(recruiter)) == [("omar", "submitted"), ("pia", "submitted")]
    assert sorted(debrief_cards(recruiter, panel)) == [("omar", "submitted"), ("pia", "submitted")]
    for secret in (PIA_SUMMARY, OMAR_SUMMARY):
        assert secret in bodies["debrief page"]
    for secret in (PIA_NOTE, OMAR_NOTE):
        assert secret in bodies["api list"] and secret in bodies["api debrief"]
    assert_absent(bodies, SAM_DRAFT)
    assert detail_status(recruiter, others.pia) == 200
    assert detail_status(recruiter, others.sam) == 404


def test_a_shadows_submitted_card_is_shown_marked_as_shadow(
    panel: Built, others: Others, first: Interview, sam: User, recruiter: User
) -> None:
    Scorecard.objects.filter(pk=others.sam.pk).delete()
    shadow = submitted(sam, first, summary=SAM_SUMMARY)

    debrief = client_for(recruiter).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    listing = client_for(recruiter).get("/api/v1/scorecards/").json()["results"]
    web = Client()
    web.force_login(recruiter)
    page = web.get(f"/loops/{panel.loop.pk}/debrief/").content.decode()

    assert {c["interviewer"]: c["is_shadow"] for c in debrief["scorecards"]} == {
        "pia": False,
        "sam": True,
        "omar": False,
    }
    assert {c["interviewer"]: c["is_shadow"] for c in listing} == {
        "pia": False,
        "sam": True,
        "omar": False,
    }
    assert client_for(recruiter).get(f"/api/v1/scorecards/{shadow.pk}/").json()["is_shadow"]
    assert SAM_SUMMARY in page
    assert "Interview 1 · shadow, not counted" in page
    assert '<tr class="shadow">' in page


def test_the_loop_reaches_debrief_while_the_shadow_still_owes_a_card(
    panel: Built, others: Others, interviewer: User, first: Interview, second: Interview
) -> None:
    submitted(interviewer, first)
    submitted(interviewer, second)

    panel.loop.refresh_from_db()
    assert panel.loop.status == "debrief"
    debrief = client_for(interviewer).get(f"/api/v1/loops/{panel.loop.pk}/debrief/").json()
    assert debrief["loop"]["status"] == "debrief"
    assert debrief["pending"] == [{"username": "sam", "interview": first.pk, "is_shadow": True}]


@pytest.mark.parametrize("who", ["olga", "leo"])
def test_someone_not_on_the_loop_gets_404_everywhere(
    panel: Built, others: Others, who: str, olga: User, lead: User
) -> None:
    # Olga interviews elsewhere; Leo is a calibration lead, not a recruiter.
    user = {"olga": olga, "leo": lead}[who]
    web = Client()
    web.force_login(user)
    api = client_for(user)

    response = api.get(f"/api/v1/loops/{panel.loop.pk}/debrief/")

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert web.get(f"/loops/{panel.loop.pk}/debrief/").status_code == 404
    assert api.get("/api/v1/scorecards/").json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    for card in (others.pia, others.omar, others.sam):
        assert detail_status(user, card) == 404
    for interview in panel.interviews:
        assert web.get(f"/interviews/{interview.pk}/scorecard/").status_code == 404
    assert not Scorecard.objects.filter(interviewer=user).exists()
