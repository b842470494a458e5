"""Signing in through the company's provider (a real one on a loopback port): who the
person becomes here, and every way a sign-in is refused with the page that says why."""

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from core.models import AuditEvent
from core.oidc import REFUSALS
from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from tests.conftest import make_user
from tests.oidc_provider import Provider, provider_environment, running, sso_site

pytestmark = [
    pytest.mark.django_db,
    # The provider's own (authlib's) deprecations, not ours.
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]


@pytest.fixture
def provider() -> Iterator[Provider]:
    with running() as provider:
        yield provider


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch, provider: Provider) -> Iterator[dict[str, object]]:
    with sso_site(monkeypatch, **provider_environment(provider)) as values:
        yield values


def sign_in(client: Client, provider: Provider, sub: str):  # type: ignore[no-untyped-def]
    """Start at /oidc/authenticate/, sign `sub` in at the provider, come back."""
    start = client.get("/oidc/authenticate/")
    assert start.status_code == 302
    back = urlsplit(provider.authorize(start["Location"], sub))
    assert back.path == "/oidc/callback/"
    return client.get(f"{back.path}?{back.query}")


def groups_of(user: User) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def refused(client: Client, response, reason: str) -> None:  # type: ignore[no-untyped-def]
    """The answer lands on the failure page, which says why; nobody is signed in."""
    assert response.status_code == 302
    assert response["Location"] == f"/oidc/failed/?reason={reason}"
    page = client.get(response["Location"])
    assert page.status_code == (502 if reason == "provider" else 403)
    body = page.content.decode()
    assert "<title>Sign-in failed · Interview Kit</title>" in body
    assert f'<p class="error" role="alert">{REFUSALS[reason]}</p>'.replace("'", "&#x27;") in body
    assert "_auth_user_id" not in client.session
    assert client.get("/bank/")["Location"] == "/login/?next=/bank/"  # still signed out


def test_it_signs_a_lead_in_creating_them_with_their_persona(client, provider, site):
    response = sign_in(client, provider, "lena-sub")

    assert response.status_code == 302
    assert response["Location"] == "/"
    lena = User.objects.get(username="lena")
    assert client.session["_auth_user_id"] == str(lena.pk)
    assert (lena.email, lena.first_name, lena.last_name) == (
        "lena@acme.example",
        "Lena",
        "Lindgren",
    )
    assert groups_of(lena) == {LEAD}
    assert not lena.has_usable_password()
    # The provider's ID token is kept for signing out there.
    assert provider.verify(client.session["oidc_id_token"])["sub"] == "lena-sub"
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target) == (None, "permissions.changed", "user lena")
    assert event.data == {"user": "lena", "groups": "none → Calibration leads"}


def test_it_shows_a_lead_the_lead_only_navigation(client, provider, site):
    sign_in(client, provider, "lena-sub")

    page = client.get("/", follow=True)

    assert page.redirect_chain == [("/bank/", 302)]
    body = page.content.decode()
    assert 'href="/audit/"' in body
    assert "Lena Lindgren" in body


def test_it_sets_the_mapped_personas_again_at_every_sign_in(client, provider, site):
    lena = make_user("lena", LEAD, first_name="Old")
    committee = Group.objects.create(name="Hiring committee")
    lena.groups.add(committee)
    provider.set_claims(
        "lena-sub",
        {"preferred_username": "lena", "given_name": "Lena", "groups": ["kit-recruiters"]},
    )

    sign_in(client, provider, "lena-sub")

    lena.refresh_from_db()
    # The lead persona went, the recruiter one came; a group no setting maps stayed.
    assert groups_of(lena) == {RECRUITER, "Hiring committee"}
    assert lena.first_name == "Lena"
    assert lena.email == "lena@example.com"  # the provider sent none: kept
    assert client.session["_auth_user_id"] == str(lena.pk)
    event = AuditEvent.objects.get()
    assert event.data == {
        "user": "lena",
        "groups": "Calibration leads, Hiring committee → Hiring committee, Recruiters",
    }


def test_it_cleans_a_name_the_provider_sends_with_line_breaks_or_bidi_controls(
    client, provider, site
):
    # Names are one line without invisible characters (core/validators.py); nobody can
    # correct the provider's, so sign-in cleans them rather than refusing the person.
    provider.set_claims(
        "lena-sub",
        {
            "preferred_username": "lena",
            "given_name": "Le\r\nna\u200b",
            "family_name": "Eve\u202egnp.exe\ufeff",
            "groups": ["kit-leads"],
        },
    )

    sign_in(client, provider, "lena-sub")

    lena = User.objects.get(username="lena")
    assert (lena.first_name, lena.last_name) == ("Le na", "Evegnp.exe")


def test_it_leaves_a_persona_alone_when_no_group_maps_to_it(client, provider, monkeypatch):
    lena = make_user("lena", INTERVIEWER)
    env = provider_environment(provider)
    del env["OIDC_GROUP_INTERVIEWER"]

    with sso_site(monkeypatch, **env):
        sign_in(client, provider, "lena-sub")

    assert groups_of(lena) == {INTERVIEWER, LEAD}


def test_it_grants_and_takes_away_the_hiring_manager_persona_by_group(
    client, provider, monkeypatch
):
    env = provider_environment(provider, OIDC_GROUP_HIRING_MANAGER="kit-hiring-managers")
    provider.set_claims(
        "lena-sub",
        {"preferred_username": "lena", "groups": ["kit-interviewers", "kit-hiring-managers"]},
    )

    with sso_site(monkeypatch, **env):
        sign_in(client, provider, "lena-sub")
        lena = User.objects.get(username="lena")
        assert groups_of(lena) == {INTERVIEWER, HIRING_MANAGER}
        client.post("/logout/")

        provider.set_claims(
            "lena-sub", {"preferred_username": "lena", "groups": ["kit-interviewers"]}
        )
        sign_in(client, provider, "lena-sub")

    assert groups_of(lena) == {INTERVIEWER}
    last = AuditEvent.objects.order_by("-pk").first()
    assert last is not None
    assert last.data == {"user": "lena", "groups": "Hiring managers, Interviewers → Interviewers"}


def test_a_role_owner_stays_a_hiring_manager_whatever_the_group_claim(
    client, provider, monkeypatch
):
    """Made an owner on the role's page, not in the provider's group: signing in keeps
    the persona that lets her staff the role's loops; owning nothing, it would go."""
    from kit.models import Role
    from kit.services import role_owners_set

    lena = make_user("lena", INTERVIEWER)
    role = Role.objects.create(name="Platform Engineer")
    role_owners_set(role=role, owners=[lena], by=make_user("rita", RECRUITER))
    assert groups_of(lena) == {INTERVIEWER, HIRING_MANAGER}
    env = provider_environment(provider, OIDC_GROUP_HIRING_MANAGER="kit-hiring-managers")
    provider.set_claims("lena-sub", {"preferred_username": "lena", "groups": ["kit-interviewers"]})

    with sso_site(monkeypatch, **env):
        sign_in(client, provider, "lena-sub")
        assert groups_of(lena) == {INTERVIEWER, HIRING_MANAGER}
        client.post("/logout/")

        role_owners_set(role=role, owners=[], by=User.objects.get(username="rita"))
        sign_in(client, provider, "lena-sub")

    assert groups_of(lena) == {INTERVIEWER}


def test_it_records_no_event_when_nothing_changed(client, provider, site):
    sign_in(client, provider, "lena-sub")
    client.post("/logout/")

    sign_in(client, provider, "lena-sub")

    assert AuditEvent.objects.count() == 1
    assert client.session["_auth_user_id"] == str(User.objects.get(username="lena").pk)


def test_it_takes_the_subject_as_username_without_a_preferred_username(client, provider, site):
    sign_in(client, provider, "sam-sub")

    sam = User.objects.get(username="sam-sub")
    assert groups_of(sam) == {INTERVIEWER}
    assert client.session["_auth_user_id"] == str(sam.pk)


def test_it_takes_the_username_from_the_configured_claim(client, provider, monkeypatch):
    with sso_site(monkeypatch, **provider_environment(provider, OIDC_USERNAME_CLAIM="email")):
        sign_in(client, provider, "rob-sub")

    rob = User.objects.get(username="rob@acme.example")
    assert groups_of(rob) == {RECRUITER}


def test_it_goes_on_to_the_page_asked_for(client, provider, site):
    start = client.get("/oidc/authenticate/?next=/bank/")
    back = urlsplit(provider.authorize(start["Location"], "rob-sub"))

    response = client.get(f"{back.path}?{back.query}")

    assert response["Location"] == "/bank/"


def test_it_refuses_someone_whose_groups_map_to_no_role(client, provider, site):
    response = sign_in(client, provider, "nora-sub")

    refused(client, response, "no_role")
    assert (
        REFUSALS["no_role"] == "Your account has no role in this service; ask your administrator."
    )
    assert not User.objects.exists()
    assert not AuditEvent.objects.exists()


def test_it_refuses_an_id_token_with_a_bad_signature(client, provider, site):
    provider.misbehave = "signature"

    response = sign_in(client, provider, "lena-sub")

    refused(client, response, "signature")
    assert not User.objects.exists()


def test_it_refuses_an_id_token_for_another_client(client, provider, site):
    provider.misbehave = "audience"

    response = sign_in(client, provider, "lena-sub")

    refused(client, response, "audience")
    assert not User.objects.exists()


def test_it_refuses_an_id_token_of_another_sign_in(client, provider, site):
    provider.misbehave = "nonce"

    response = sign_in(client, provider, "lena-sub")

    refused(client, response, "replay")
    assert not User.objects.exists()


def test_it_refuses_an_id_token_from_another_issuer(client, provider, monkeypatch):
    env = provider_environment(provider, OIDC_OP_ISSUER="https://sso.elsewhere.example")
    with sso_site(monkeypatch, **env):
        response = sign_in(client, provider, "lena-sub")

        refused(client, response, "issuer")
    assert not User.objects.exists()


def test_it_refuses_an_expired_id_token(client, monkeypatch):
    with running(expired=True) as provider, sso_site(monkeypatch, **provider_environment(provider)):
        response = sign_in(client, provider, "lena-sub")

        refused(client, response, "expired")
    assert not User.objects.exists()


def test_it_refuses_an_answer_whose_state_it_never_issued(client, provider, site):
    start = client.get("/oidc/authenticate/")
    back = urlsplit(provider.authorize(start["Location"], "lena-sub"))
    forged = back.query.replace("state=", "state=x")

    response = client.get(f"{back.path}?{forged}")

    refused(client, response, "state")
    assert not User.objects.exists()


def test_it_refuses_an_answer_from_another_browser(client, provider, site):
    start = client.get("/oidc/authenticate/")
    back = urlsplit(provider.authorize(start["Location"], "lena-sub"))
    other = Client()

    response = other.get(f"{back.path}?{back.query}")

    refused(other, response, "state")
    assert not User.objects.exists()


def test_it_refuses_when_the_provider_says_no(client, provider, site):
    start = client.get("/oidc/authenticate/")
    state = dict(part.split("=") for part in urlsplit(start["Location"]).query.split("&"))["state"]

    response = client.get(f"/oidc/callback/?error=access_denied&state={state}")

    refused(client, response, "denied")
    assert state not in client.session.get("oidc_states", {})


def test_it_refuses_a_deactivated_user_and_changes_nothing(client, provider, site):
    lena = make_user("lena", RECRUITER)
    User.objects.filter(pk=lena.pk).update(is_active=False)

    response = sign_in(client, provider, "lena-sub")

    refused(client, response, "inactive")
    assert groups_of(lena) == {RECRUITER}
    assert not AuditEvent.objects.exists()


def test_it_says_so_when_the_provider_cannot_be_reached(client, monkeypatch):
    with running() as provider:
        env = provider_environment(provider)
    # The provider has stopped: its port refuses connections.
    with sso_site(monkeypatch, **env):
        response = client.get("/oidc/authenticate/")

        refused(client, response, "provider")
    assert not User.objects.exists()


def test_it_ignores_a_code_in_the_query_of_a_password_sign_in(client, provider, site, lead):
    response = client.post(
        "/login/?code=abc&state=def", {"username": "leo", "password": "pw"}, follow=False
    )

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(lead.pk)
