"""/account/token/: a signed-in user creates, replaces and revokes their own API token,
the way to one with no password (single sign-on only); the key is shown once."""

import html
import json
import re
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from core.accounts.tokens import key_digest, token_issue
from core.models import ApiToken, AuditEvent
from tests.oidc_provider import Provider, provider_environment, sso_site
from tests.problems import detail

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]

URL = "/account/token/"
KEY = re.compile(r'<code id="api-token-key">([^<]+)</code>')


def api_with(key: str, scheme: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    return client


def shown_key(response) -> str:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.content[:500]
    found = KEY.findall(response.content.decode())
    assert len(found) == 1
    return found[0]


def create(client: Client) -> str:
    return shown_key(client.post(URL, {"action": "create"}))


def unknown_token(response) -> None:  # type: ignore[no-untyped-def]
    assert detail(response, 401, "authentication_failed") == "Invalid token."


@pytest.fixture
def ines(client: Client, interviewer: User) -> Client:
    client.force_login(interviewer)
    return client


def held() -> list[str]:
    return list(ApiToken.objects.values_list("digest", flat=True))


def test_it_shows_the_new_key_once_with_how_to_send_it(ines, interviewer):
    response = ines.post(URL, {"action": "create"})

    key = shown_key(response)
    # Stored as its hash and a prefix: never the key itself.
    token = ApiToken.objects.get(user=interviewer)
    assert (token.digest, token.prefix) == (key_digest(key), key[:8])
    assert key not in str(list(ApiToken.objects.values()))
    body = response.content.decode()
    assert "It is shown this once: copy it now." in body
    assert f"<code>Authorization: Token {key}</code>" in body
    assert f"<code>Authorization: Bearer {key}</code>" in body
    assert "no-store" in response["Cache-Control"]

    later = ines.get(URL)
    assert later.status_code == 200
    assert key not in later.content.decode()
    assert not KEY.search(later.content.decode())
    # Only its first characters, to tell it from another.
    assert f"<dt>Starts with</dt><dd><code>{key[:8]}…</code></dd>" in later.content.decode()


def test_it_shows_when_the_token_was_created_and_when_it_expires(ines, interviewer, settings):
    settings.API_TOKEN_TTL_DAYS = 10
    create(ines)
    created = timezone.localtime(ApiToken.objects.get(user=interviewer).created)

    body = ines.get(URL).content.decode()

    expires = created + timedelta(days=10)
    assert f"<dt>Created</dt><dd>{created:%-d %b %Y, %H:%M %Z}</dd>" in body
    assert f"<dt>Expires</dt><dd>{expires:%-d %b %Y, %H:%M %Z}</dd>" in body
    assert "It lasts 10 days" in body
    assert ">Replace token</button>" in body
    assert ">Revoke token</button>" in body
    assert ">Create token</button>" not in body


def test_without_a_token_it_offers_only_to_create_one(ines):
    body = ines.get(URL).content.decode()

    assert "You have no API token." in body
    assert ">Create token</button>" in body
    assert "Revoke token" not in body
    assert "Replace token" not in body


def test_it_says_an_expired_token_has_expired(ines, interviewer, settings):
    create(ines)
    created = timezone.now() - timedelta(days=settings.API_TOKEN_TTL_DAYS + 1)
    ApiToken.objects.filter(user=interviewer).update(created=created)

    body = ines.get(URL).content.decode()

    assert "<dt>Expired</dt>" in body
    assert ">Replace token</button>" in body


def test_it_says_a_token_outlived_by_its_password_no_longer_works(ines, interviewer):
    create(ines)
    interviewer.set_password("new")
    interviewer.save()
    ines.force_login(interviewer)

    body = ines.get(URL).content.decode()

    assert "No longer works: your password changed after it was created." in body


def test_it_counts_the_tokens_api_sign_ins_issued_and_revokes_them_all(ines, interviewer):
    keys = [token_issue(user=interviewer).key for _ in range(3)]

    body = ines.get(URL).content.decode()
    assert "(the newest of your 3 tokens)" in body
    assert ">Revoke all 3 tokens</button>" in body

    ines.post(URL, {"action": "revoke"})

    assert not ApiToken.objects.exists()
    for key in keys:
        unknown_token(api_with(key).get("/api/v1/levels/"))


def test_the_key_works_as_a_token_and_as_a_bearer_token(ines):
    key = create(ines)

    for scheme in ("Token", "Bearer"):
        response = api_with(key, scheme).get("/api/v1/levels/")
        assert response.status_code == 200, scheme


def test_replacing_the_token_ends_the_old_key(ines, interviewer):
    old = create(ines)

    new = create(ines)

    assert new != old
    unknown_token(api_with(old).get("/api/v1/levels/"))
    assert api_with(new, "Bearer").get("/api/v1/levels/").status_code == 200
    assert held() == [key_digest(new)]


def test_revoking_ends_the_key(ines, interviewer):
    key = create(ines)

    response = ines.post(URL, {"action": "revoke"}, follow=True)

    assert response.redirect_chain == [(URL, 302)]
    body = response.content.decode()
    assert "Your API token is revoked: it no longer works." in body
    assert "You have no API token." in body
    assert not ApiToken.objects.exists()
    unknown_token(api_with(key).get("/api/v1/levels/"))
    unknown_token(api_with(key, "Bearer").get("/api/v1/levels/"))


def test_revoking_without_a_token_changes_and_records_nothing(ines):
    response = ines.post(URL, {"action": "revoke"}, follow=True)

    assert "You have no API token: nothing to revoke." in response.content.decode()
    assert not ApiToken.objects.exists()
    assert not AuditEvent.objects.exists()


def test_each_change_is_audited_without_the_key(ines, interviewer):
    first = create(ines)
    second = create(ines)
    ines.post(URL, {"action": "revoke"})

    events = list(AuditEvent.objects.order_by("id").values("actor", "action", "target", "data"))
    expires = [event["data"].pop("expires") for event in events[:2]]
    assert events == [
        {
            "actor": interviewer.pk,
            "action": "api_token.created",
            "target": "user ines",
            "data": {"replaced": False},
        },
        {
            "actor": interviewer.pk,
            "action": "api_token.created",
            "target": "user ines",
            "data": {"replaced": True},
        },
        {"actor": interviewer.pk, "action": "api_token.revoked", "target": "user ines", "data": {}},
    ]
    assert all(datetime.fromisoformat(value) > timezone.now() for value in expires)
    recorded = json.dumps(list(AuditEvent.objects.values("target", "data")))
    for key in (first, second):
        assert key not in recorded
        assert key.split(".")[0] not in recorded


def test_it_sends_anonymous_callers_to_sign_in_and_writes_nothing(client, interviewer):
    for response in (client.get(URL), client.post(URL, {"action": "create"})):
        assert response.status_code == 302
        assert response["Location"] == f"/login/?next={URL}"
    assert not ApiToken.objects.exists()
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "delete"}, "'action' must be one of create, revoke, not 'delete'."),
        ({}, "'action' is missing: give one of create, revoke."),
        ({"action": ["create", "revoke"]}, "'action' is given 2 times; give it once."),
    ],
)
def test_it_refuses_a_bad_action_and_writes_nothing(ines, interviewer, data, message):
    key = create(ines)
    AuditEvent.objects.all().delete()

    response = ines.post(URL, data)

    assert response.status_code == 400
    assert f"<p>{html.escape(message)}</p>" in response.content.decode()
    assert held() == [key_digest(key)]
    assert not AuditEvent.objects.exists()


def test_it_refuses_a_post_without_the_csrf_token_and_writes_nothing(interviewer):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(interviewer)

    response = browser.post(URL, {"action": "create"})

    assert response.status_code == 403
    assert not ApiToken.objects.exists()
    assert not AuditEvent.objects.exists()
    # With the page's token, the same form works.
    page = browser.get(URL).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert csrf is not None
    done = browser.post(URL, {"action": "create", "csrfmiddlewaretoken": csrf.group(1)})
    assert held() == [key_digest(shown_key(done))]


def test_the_page_reads_a_fixed_number_of_queries(ines, django_assert_max_num_queries):
    create(ines)

    # 1. the session, 2. the user, 3. the token with its user (the password check),
    # 4. the user's group names (the menu's recruiter and lead links).
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(5):
        response = ines.get(URL)
    assert response.status_code == 200


def test_every_page_links_to_it_in_the_user_menu(ines):
    home = ines.get("/bank/").content.decode()
    own = ines.get(URL).content.decode()

    assert re.search(f'<a href="{URL}" *>API token</a>', home)
    assert f'<a href="{URL}" aria-current="page">API token</a>' in own


def sso_sign_in(client: Client, provider: Provider, sub: str) -> None:
    start = client.get("/oidc/authenticate/")
    back = urlsplit(provider.authorize(start["Location"], sub))
    assert client.get(f"{back.path}?{back.query}")["Location"] == "/"


def test_a_single_sign_on_user_gets_a_token_with_passwords_off(client, provider, monkeypatch):
    with sso_site(monkeypatch, **provider_environment(provider, PASSWORD_LOGIN="off")):
        sso_sign_in(client, provider, "lena-sub")
        lena = User.objects.get(username="lena")
        assert not lena.has_usable_password()

        key = create(client)
        # Signing in again through the provider leaves the token working.
        client.post("/logout/")
        sso_sign_in(client, provider, "lena-sub")
        body = client.get(URL).content.decode()

        assert api_with(key, "Bearer").get("/api/v1/levels/").status_code == 200
        assert ">Replace token</button>" in body
        assert ApiToken.objects.get().user == lena
        assert AuditEvent.objects.filter(action="api_token.created", actor=lena).count() == 1
