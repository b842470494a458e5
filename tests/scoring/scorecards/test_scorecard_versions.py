"""Two tabs or devices on one draft: a save over a newer version is refused, not lost.

The page carries the draft's version in a hidden field and the API in ETag /
If-Match (selectors.scorecard_version); services.scorecard_save_draft checks it
under the card's lock.
"""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from scoring.models import Scorecard
from scoring.scorecards import selectors
from tests.conftest import client_for
from tests.problems import detail
from tests.scoring.helpers import draft, form_data, payload, state

CHANGED = (
    "This draft was changed in another tab or on another device since you opened it;"
    " reload to see that version before you edit it."
)


def page_url(interview: Interview) -> str:
    return f"/interviews/{interview.pk}/scorecard/"


def tab(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def version_on(html: str) -> str:
    found = re.search(r'<input type="hidden" name="version" value="([^"]*)">', html)
    assert found, "the scorecard form carries its version"
    return found.group(1).replace("&quot;", '"')


# --- the API ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_tags_a_draft_and_refuses_a_save_over_a_newer_version(
    first: Interview, interviewer: User
) -> None:
    card = draft(interviewer, first, summary="From the laptop")
    client = client_for(interviewer)
    url = f"/api/v1/scorecards/{card.pk}/"
    read = client.get(url)
    etag = read["ETag"]
    assert etag == selectors.scorecard_version(Scorecard.objects.get(pk=card.pk))

    saved = client.put(url, payload(first, summary="From the phone"), HTTP_IF_MATCH=etag)
    assert saved.status_code == 200
    assert saved["ETag"] != etag
    assert client.get(url)["ETag"] == saved["ETag"]
    before = state()

    stale = client.put(url, payload(first, summary="From the laptop again"), HTTP_IF_MATCH=etag)

    assert detail(stale, 412, "scorecard_changed_elsewhere") == CHANGED
    assert state() == before
    assert Scorecard.objects.get(pk=card.pk).summary == "From the phone"


@pytest.mark.django_db
def test_a_save_without_if_match_or_with_a_star_goes_ahead(
    first: Interview, interviewer: User
) -> None:
    card = draft(interviewer, first)
    client = client_for(interviewer)
    url = f"/api/v1/scorecards/{card.pk}/"

    assert client.put(url, payload(first, summary="No tag")).status_code == 200
    assert client.put(url, payload(first, summary="Star"), HTTP_IF_MATCH="*").status_code == 200
    assert Scorecard.objects.get(pk=card.pk).summary == "Star"


@pytest.mark.django_db
def test_someone_elses_card_is_a_404_whatever_the_if_match(
    first: Interview, interviewer: User, pia: User
) -> None:
    card = draft(interviewer, first)
    before = state()

    response = client_for(pia).put(
        f"/api/v1/scorecards/{card.pk}/", payload(first), HTTP_IF_MATCH='"stale"'
    )

    assert detail(response, 404, "not_found")
    assert state() == before


# --- the page -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_second_tab_cannot_autosave_over_the_first(first: Interview, interviewer: User) -> None:
    laptop, phone = tab(interviewer), tab(interviewer)
    laptop_version = version_on(laptop.get(page_url(first)).content.decode())
    phone_version = version_on(phone.get(page_url(first)).content.decode())
    assert laptop_version == phone_version == selectors.NEW_VERSION

    saved = laptop.post(
        page_url(first),
        {"summary": "Strong on sharding", "version": laptop_version},
        HTTP_X_AUTOSAVE="1",
    )
    assert saved.status_code == 200
    assert saved.json()["version"] != laptop_version
    before = state()

    refused = phone.post(
        page_url(first), {"summary": "Typed on the phone", "version": phone_version},
        HTTP_X_AUTOSAVE="1",
    )  # fmt: skip

    assert refused.status_code == 412
    assert refused.json() == {"error": CHANGED, "code": "scorecard_changed_elsewhere"}
    assert state() == before
    card = Scorecard.objects.get(interview=first, interviewer=interviewer)
    assert card.summary == "Strong on sharding"

    # The laptop goes on saving with the version its last save returned.
    again = laptop.post(
        page_url(first),
        {"summary": "Strong on sharding and caching", "version": saved.json()["version"]},
        HTTP_X_AUTOSAVE="1",
    )
    assert again.status_code == 200


@pytest.mark.django_db
def test_a_stale_tab_saving_the_whole_form_is_told_and_shown_the_newer_draft(
    first: Interview, interviewer: User
) -> None:
    laptop, phone = tab(interviewer), tab(interviewer)
    stale_version = version_on(phone.get(page_url(first)).content.decode())
    laptop.post(
        page_url(first), {"summary": "From the laptop", "version": stale_version},
        HTTP_X_AUTOSAVE="1",
    )  # fmt: skip
    before = state()

    response = phone.post(
        page_url(first), form_data(first, summary="From the phone", version=stale_version)
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "This draft was changed in another tab or on another device" in html
    assert "From the laptop" in html
    assert state() == before
    assert version_on(html) != stale_version  # the page now carries the newer version
