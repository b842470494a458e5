"""Signing in through the company's provider (a real one on a loopback port): who the
person becomes here (the account linked to their issuer and subject, or a new one, never
another account of the same username or email), and every way a sign-in is refused with
the page that says why and nothing written."""

from collections.abc import Iterator
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client

from core.accounts.models import ExternalIdentity
from core.accounts.oidc import REFUSALS, _first_sign_in
from core.models import AuditEvent
from core.permissions import HIRING_MANAGER, INTERVIEWER, LEAD, RECRUITER
from tests.conftest import make_user
from tests.oidc_provider import Provider, provider_environment, running, sso_site

pytestmark = [
    pytest.mark.django_db,
    # The provider's own (authlib's) deprecations, not ours.
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]


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


def linked(user: User, provider: Provider, sub: str) -> User:
    """Link `user` to the provider's `sub`, as an administrator would have (the link's
    own audit is tested in test_link_identity.py)."""
    ExternalIdentity.objects.create(issuer=provider.url, subject=sub, user=user)
    return user


def written() -> tuple[int, int, int]:
    return (User.objects.count(), ExternalIdentity.objects.count(), AuditEvent.objects.count())


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
    identity = ExternalIdentity.objects.get()
    assert (identity.issuer, identity.subject, identity.user, identity.linked_by) == (
        provider.url,
        "lena-sub",
        lena,
        None,
    )
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
    lena = linked(make_user("lena", LEAD, first_name="Old"), provider, "lena-sub")
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
    lena = linked(make_user("lena", INTERVIEWER), provider, "lena-sub")
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

    lena = linked(make_user("lena", INTERVIEWER), provider, "lena-sub")
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

    assert written() == (1, 1, 1)  # lena, her identity, her persona's event
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


# --- whose account: the identity's, or a new one; never another by username or email ----


@pytest.mark.parametrize(
    ("claimed", "given"), [("rt-admin", "rt-admin-2"), ("RT-Admin", "RT-Admin-2")]
)
def test_a_provider_user_named_like_the_superuser_gets_an_account_of_their_own(
    client, provider, site, claimed, given
):
    """The attacker's reproduction (issue 30): a provider user whose preferred_username
    is a local superuser's signed in as that superuser and overwrote its email."""
    root = User.objects.create_superuser("rt-admin", "root@example.com", "pw")
    provider.set_claims(
        "mallory-sub",
        {"preferred_username": claimed, "email": "mallory@evil.example", "groups": "kit-leads"},
    )

    response = sign_in(client, provider, "mallory-sub")

    assert response.status_code == 302
    mallory = User.objects.get(username=given)
    assert client.session["_auth_user_id"] == str(mallory.pk)
    assert (mallory.email, mallory.is_staff, mallory.is_superuser) == (
        "mallory@evil.example",
        False,
        False,
    )
    assert groups_of(mallory) == {LEAD}
    assert ExternalIdentity.objects.get(subject="mallory-sub").user == mallory
    # The superuser is as it was: same email, still its password, no identity.
    root.refresh_from_db()
    assert root.email == "root@example.com"
    assert root.check_password("pw")
    assert list(root.external_identities.all()) == []
    assert groups_of(root) == set()
    # And the new session is no administrator's.
    admin = client.get("/admin/")
    assert admin.status_code == 302
    assert admin["Location"] == "/admin/login/?next=/admin/"
    assert client.get("/admin/auth/user/").status_code == 302


def test_an_account_of_the_same_email_is_never_linked(client, provider, site):
    lena_l = make_user("lena.l", RECRUITER)
    User.objects.filter(pk=lena_l.pk).update(email="lena@acme.example")

    sign_in(client, provider, "lena-sub")

    lena = User.objects.get(username="lena")
    assert client.session["_auth_user_id"] == str(lena.pk)
    assert lena.email == "lena@acme.example"
    assert list(lena_l.external_identities.all()) == []
    assert groups_of(lena_l) == {RECRUITER}


def test_an_account_an_earlier_sign_in_made_is_not_found_by_its_username(client, provider, site):
    """Before identities were stored, signing in matched the username: such an account
    has no identity, so it is left alone until an administrator links it."""
    old = User.objects.create_user("lena", email="lena@old.example")  # no usable password
    old.groups.add(Group.objects.get(name=INTERVIEWER))

    sign_in(client, provider, "lena-sub")

    new = ExternalIdentity.objects.get(subject="lena-sub").user
    assert new.username == "lena-2"
    assert client.session["_auth_user_id"] == str(new.pk)
    old.refresh_from_db()
    assert (old.email, groups_of(old)) == ("lena@old.example", {INTERVIEWER})


def test_an_administrator_gives_such_an_account_back_to_its_person(client, provider, site):
    """The way back for an account an earlier sign-in made (docs/deployment.md, "Single
    sign-on"): the person's next sign-in made lena-2; the administrator moves its identity to
    lena."""
    old = User.objects.create_user("lena", email="lena@old.example")
    sign_in(client, provider, "lena-sub")
    client.post("/logout/")

    call_command("link_identity", "lena", "--from-user", "lena-2", stdout=StringIO())
    sign_in(client, provider, "lena-sub")

    assert client.session["_auth_user_id"] == str(old.pk)
    assert ExternalIdentity.objects.get(subject="lena-sub").user == old
    old.refresh_from_db()
    assert old.email == "lena@acme.example"  # now hers: it follows her claims
    event = AuditEvent.objects.get(action="sso.identity_linked")
    assert event.data["moved_from"] == "lena-2"


def test_it_gives_the_first_free_username_after_those_taken(client, provider, site):
    for name in ("rob", "Rob-2", "rob-3", "rob-x", "rob-5"):
        make_user(name)

    sign_in(client, provider, "rob-sub")

    assert ExternalIdentity.objects.get(subject="rob-sub").user.username == "rob-4"


def test_a_linked_account_is_found_by_its_identity_whatever_the_username_claim(
    client, provider, site
):
    """An administrator linked lena's identity to her account (staff, with a password):
    a new username at the provider still signs her in there, and takes no other."""
    lena = linked(make_user("lena", LEAD, is_staff="1"), provider, "lena-sub")
    make_user("lindgren", INTERVIEWER)
    provider.set_claims(
        "lena-sub",
        {"preferred_username": "lindgren", "email": "l@acme.example", "groups": "kit-leads"},
    )

    sign_in(client, provider, "lena-sub")

    assert client.session["_auth_user_id"] == str(lena.pk)
    lena.refresh_from_db()
    assert (lena.username, lena.email) == ("lena", "l@acme.example")
    assert User.objects.get(username="lindgren").email == "lindgren@example.com"
    assert client.get("/admin/").status_code == 200


def test_the_same_username_at_another_issuer_is_another_person(client, provider, site):
    elsewhere = make_user("lena", INTERVIEWER)
    ExternalIdentity.objects.create(
        issuer="https://sso.elsewhere.example", subject="lena-sub", user=elsewhere
    )

    sign_in(client, provider, "lena-sub")

    assert ExternalIdentity.objects.get(issuer=provider.url).user.username == "lena-2"
    assert client.session["_auth_user_id"] != str(elsewhere.pk)


def test_a_first_sign_in_that_lost_the_race_takes_the_account_the_winner_made(db):
    """Two first sign-ins of one person at once: the second finds, when it stores the
    identity, that the first has, and takes that account instead of making another."""
    winner = make_user("lena")
    ExternalIdentity.objects.create(issuer="https://sso.acme.example", subject="s", user=winner)

    user = _first_sign_in(
        issuer="https://sso.acme.example",
        subject="s",
        username="lena",
        email="",
        first_name="",
        last_name="",
    )

    assert user == winner
    assert written() == (1, 1, 0)


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


# How the provider misbehaves, and the refusal that names it.
TAMPERED = [
    ("expired", "expired"),
    ("signature", "signature"),
    ("audience", "audience"),
    ("issuer", "issuer"),
    ("nonce", "replay"),
]


@pytest.mark.parametrize(("misbehave", "reason"), TAMPERED)
def test_it_refuses_a_tampered_id_token_and_writes_nothing(
    client, provider, site, misbehave, reason
):
    root = User.objects.create_superuser("rt-admin", "root@example.com", "pw")
    lena = linked(make_user("lena", INTERVIEWER), provider, "lena-sub")
    before = written()
    provider.misbehave = misbehave

    # Someone signing in for the first time (whose username an account has)...
    provider.set_claims(
        "rob-sub",
        {"preferred_username": "rt-admin", "email": "x@evil.example", "groups": "kit-leads"},
    )
    refused(client, sign_in(client, provider, "rob-sub"), reason)
    # ... and someone whose account is linked (whose claims have changed).
    other = Client()
    refused(other, sign_in(other, provider, "lena-sub"), reason)

    assert written() == before
    lena.refresh_from_db()
    root.refresh_from_db()
    assert (lena.email, groups_of(lena)) == ("lena@example.com", {INTERVIEWER})
    assert root.email == "root@example.com"
    assert list(root.external_identities.all()) == []
    # Each page says what went wrong, in plain words.
    assert [REFUSALS[reason] for _, reason in TAMPERED] == [
        "The sign-in had expired by the time it reached this service (or a computer's clock "
        "is wrong). Please sign in again.",
        "The answer from your company's sign-in service did not carry a valid signature, "
        "so it could not be trusted. You have not been signed in.",
        "The answer from your company's sign-in service was meant for another application, "
        "not this one. You have not been signed in.",
        "The answer came from another sign-in service than the one this service trusts. "
        "You have not been signed in.",
        "The answer from your company's sign-in service belongs to another sign-in (it may "
        "have been replayed). Please sign in again.",
    ]


def test_it_refuses_a_subject_longer_than_an_identity_may_be(client, provider, site):
    provider.set_claims("s" * 256, {"preferred_username": "sid", "groups": "kit-leads"})

    response = sign_in(client, provider, "s" * 256)

    refused(client, response, "malformed")
    assert written() == (0, 0, 0)


def test_it_refuses_an_id_token_from_another_issuer_than_the_configured_one(
    client, provider, monkeypatch
):
    env = provider_environment(provider, OIDC_OP_ISSUER="https://sso.elsewhere.example")
    with sso_site(monkeypatch, **env):
        response = sign_in(client, provider, "lena-sub")

        refused(client, response, "issuer")
    assert written() == (0, 0, 0)


def test_it_refuses_a_provider_whose_id_tokens_have_expired(client, monkeypatch):
    with running(expired=True) as provider, sso_site(monkeypatch, **provider_environment(provider)):
        response = sign_in(client, provider, "lena-sub")

        refused(client, response, "expired")
    assert written() == (0, 0, 0)


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
    lena = linked(make_user("lena", RECRUITER), provider, "lena-sub")
    User.objects.filter(pk=lena.pk).update(is_active=False)

    response = sign_in(client, provider, "lena-sub")

    refused(client, response, "inactive")
    assert groups_of(lena) == {RECRUITER}
    lena.refresh_from_db()
    assert lena.email == "lena@example.com"
    assert written() == (1, 1, 0)


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
