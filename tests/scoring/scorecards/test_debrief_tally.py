"""The debrief opens with a tally of recommendations: the submitted, non-shadow cards the
reader may see (scoring.visibility), per interview and overall; nothing for a blind one."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from scoring.scorecards import selectors
from tests.scoring.calibration.helpers import tables
from tests.scoring.helpers import draft, submitted
from tests.support.loops import Built

HEADER = ["Interview", "Strong no", "No", "Yes", "Strong yes"]


def page(user: User, built: Built) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/loops/{built.loop.pk}/debrief/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def scored(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
    sam: User,
    other_interviewer: User,
) -> Built:
    """Interview 1: Ines yes, Pia strong no, the shadow Sam strong yes (not counted).
    Interview 2: Omar no, and Ines's card still a draft (strong yes, not counted)."""
    submitted(interviewer, first, recommendation="yes")
    submitted(pia, first, recommendation="strong_no")
    submitted(sam, first, recommendation="strong_yes")
    submitted(other_interviewer, second, recommendation="no")
    draft(interviewer, second, recommendation="strong_yes")
    return panel


def test_a_recruiter_sees_the_tally_per_interview_and_overall(
    scored: Built, recruiter: User
) -> None:
    html = page(recruiter, scored)

    assert tables(html)["Recommendations"] == [
        HEADER,
        ["1. Interview 1", "1", "0", "1", "0"],
        ["2. Interview 2", "0", "1", "0", "0"],
        ["All interviews", "1", "1", "1", "0"],
    ]
    # It opens the page: before the grid and the cards.
    assert html.index('id="tally-title"') < html.index('class="grid-title"')


def test_an_interviewer_with_every_card_in_sees_the_same_tally(scored: Built, pia: User) -> None:
    found = tables(page(pia, scored))["Recommendations"]
    assert found[-1] == ["All interviews", "1", "1", "1", "0"]


def test_a_shadow_who_submitted_sees_the_tally_without_their_own_card(
    scored: Built, sam: User
) -> None:
    # Sam's strong yes is on the page, in the grid, but not in the tally.
    assert tables(page(sam, scored))["Recommendations"][1] == ["1. Interview 1", "1", "0", "1", "0"]


def test_a_blind_reader_sees_no_tally(scored: Built, interviewer: User, recruiter: User) -> None:
    # Ines has submitted interview 1 but not interview 2: she is blind in the loop.
    html = page(interviewer, scored)

    assert "Recommendations" not in tables(html)
    assert 'id="tally-title"' not in html and "All interviews" not in html
    # Nothing of the others' cards: the recruiter's page shows Pia's strong no, hers does not.
    assert "Strong no" in page(recruiter, scored) and "Strong no" not in html
    debrief = selectors.debrief(user=interviewer, loop=scored.loop)
    assert debrief.blind and debrief.tally is None


def test_a_blind_reader_whose_own_card_is_in_still_sees_no_tally(
    panel: Built, first: Interview, pia: User, interviewer: User
) -> None:
    # Ines has submitted interview 1 only; Pia's card is in too. The tally would count
    # Pia's card, which Ines may not read yet.
    submitted(pia, first, recommendation="strong_no")
    submitted(interviewer, first, recommendation="yes")

    html = page(interviewer, panel)

    assert 'id="tally-title"' not in html
    assert "Strong no" not in html


def test_a_loop_without_cards_shows_no_tally(panel: Built, recruiter: User) -> None:
    """Nothing to count: a table of zeros would only repeat "No scorecards submitted yet"."""
    html = page(recruiter, panel)
    assert "Recommendations" not in tables(html)
    assert "No scorecards submitted yet." in html
