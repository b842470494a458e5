"""Single sign-on in Chromium, against a real OpenID provider on a loopback port
(tests/oidc_provider.py): sign in there, land here with the persona the groups map to,
sign out at both ends. Pages are saved to artifacts/screenshots/sso-*.png."""

import re
from collections.abc import Iterator

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot
from tests.oidc_provider import Provider, provider_environment, running, sso_site

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]

# The provider's pages ask for a stylesheet on a CDN: nothing leaves this machine.
OUTSIDE = re.compile(r"^https?://(?!127\.0\.0\.1[:/]|localhost[:/])")


@pytest.fixture
def sso(monkeypatch: pytest.MonkeyPatch, live_server, page) -> Iterator[Provider]:  # type: ignore[no-untyped-def]
    page.context.route(OUTSIDE, lambda route: route.abort())
    with running() as provider, sso_site(monkeypatch, **provider_environment(provider)):
        yield provider


def sign_in_at_provider(page, live_server, provider: Provider, sub: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Sign in with Acme SSO").click()
    expect(page).to_have_url(re.compile(rf"^{re.escape(provider.url)}/oauth2/authorize\?"))
    page.get_by_role("button", name=sub, exact=True).click()


def signed_in_sessions() -> int:
    return sum("_auth_user_id" in session.get_decoded() for session in Session.objects.all())


def test_a_lead_signs_in_through_the_provider_and_out_at_both_ends(page, live_server, sso):
    page.goto(f"{live_server.url}/login/")
    expect(page.locator("input[name=password]")).to_be_visible()  # PASSWORD_LOGIN is on
    screenshot(page, "sso-login")
    sign_in_at_provider(page, live_server, sso, "lena-sub")

    # A lead lands on the bank, with the lead-only navigation.
    expect(page).to_have_url(f"{live_server.url}/bank/")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Audit log")).to_be_visible()
    expect(page.locator(".who")).to_contain_text("Lena Lindgren")
    screenshot(page, "sso-lead-signed-in")
    assert signed_in_sessions() == 1

    page.get_by_role("button", name="Sign out").click()

    # Signed out here; the provider asks to end its session for this sign-in.
    expect(page).to_have_url(re.compile(rf"^{re.escape(sso.url)}/oauth2/end_session\?"))
    assert signed_in_sessions() == 0
    ends = [params for path, params in sso.visits if path == "/oauth2/end_session"]
    assert len(ends) == 1
    assert sso.verify(ends[0]["id_token_hint"])["sub"] == "lena-sub"
    assert ends[0]["post_logout_redirect_uri"] == f"{live_server.url}/login/"
    screenshot(page, "sso-provider-end-session")
    page.get_by_role("button", name="End session").click()

    expect(page).to_have_url(f"{live_server.url}/login/")
    expect(page.get_by_role("link", name="Sign in with Acme SSO")).to_be_visible()
    page.goto(f"{live_server.url}/bank/")
    expect(page).to_have_url(f"{live_server.url}/login/?next=/bank/")


def test_an_interviewer_lands_without_the_lead_navigation(page, live_server, sso):
    sign_in_at_provider(page, live_server, sso, "sam-sub")

    expect(page).to_have_url(f"{live_server.url}/interviews/")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="My interviews")).to_be_visible()
    expect(nav.get_by_role("link", name="Audit log")).to_have_count(0)
    expect(nav.get_by_role("link", name="Loops")).to_have_count(0)


def test_someone_without_a_role_is_told_so_and_not_signed_in(page, live_server, sso):
    sign_in_at_provider(page, live_server, sso, "nora-sub")

    expect(page).to_have_url(f"{live_server.url}/oidc/failed/?reason=no_role")
    expect(page.get_by_role("heading", name="Sign-in failed")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_text(
        "Your account has no role in this service; ask your administrator."
    )
    expect(page.get_by_role("navigation", name="Main")).to_have_count(0)
    screenshot(page, "sso-no-role")
    assert signed_in_sessions() == 0
