"""A loop closed by a decision (a no-hire may come before every card is in) takes no
more scorecard writes: not a new card, not a draft's save, not a submit."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import detail
from tests.scoring.helpers import draft, payload, state, submitted
from tests.support.loops import Built

CLOSED = "The loop is decided; its scorecards can no longer change."


@pytest.fixture
def closed(panel: Built, first: Interview, second: Interview, interviewer: User,
           other_interviewer: User, recruiter: User) -> Built:  # fmt: skip
    """Omar submitted interview 2; Ines holds a draft of it; then a no-hire closed the loop."""
    submitted(other_interviewer, second, rating=1, recommendation="strong_no")
    draft(interviewer, second)
    services.loop_decide(loop=panel.loop, by=recruiter, decision="no_hire", rationale="Enough.")
    return panel


def test_a_draft_cannot_be_saved(closed: Built, second: Interview, interviewer: User) -> None:
    card = Scorecard.objects.get(interviewer=interviewer, interview=second)
    before = state()

    response = client_for(interviewer).put(
        f"/api/v1/scorecards/{card.pk}/", payload(second, rating=4), format="json"
    )

    assert detail(response, 400, "loop_decided") == CLOSED
    assert state() == before


def test_a_draft_cannot_be_submitted(closed: Built, second: Interview, interviewer: User) -> None:
    card = Scorecard.objects.get(interviewer=interviewer, interview=second)
    before = state()

    response = client_for(interviewer).post(f"/api/v1/scorecards/{card.pk}/submit/")

    assert detail(response, 400, "loop_decided") == CLOSED
    assert state() == before


def test_no_new_card_is_started(closed: Built, first: Interview, pia: User) -> None:
    before = state()

    response = client_for(pia).post("/api/v1/scorecards/", {"interview": first.pk}, format="json")

    assert detail(response, 400, "loop_decided") == (
        "The loop is decided; no new scorecards are taken for it."
    )
    assert state() == before


def test_the_page_is_read_only_and_refuses_a_post(
    closed: Built, first: Interview, pia: User
) -> None:
    client = Client()
    client.force_login(pia)
    url = f"/interviews/{first.pk}/scorecard/"
    before = state()

    html = client.get(url).content.decode()
    assert "The loop is decided (No hire): its scorecards can no longer change." in html
    assert '<fieldset class="plain" disabled>' in html
    assert 'data-autosave=""' in html
    assert "Submit scorecard" not in html

    response = client.post(url, {"summary": "Late thoughts", "action": "submit"})
    assert response.status_code == 200
    assert "The loop is decided; no new scorecards are taken for it." in response.content.decode()
    assert state() == before
