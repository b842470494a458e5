"""An administrator links a provider identity to an existing account (manage.py
link_identity, or the admin's "External identities"), moves it from the account a
first sign-in made, or unlinks it; each audited, each refusal writing nothing."""

import getpass
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from core.accounts.models import ExternalIdentity
from core.models import AuditEvent
from core.permissions import INTERVIEWER
from tests.conftest import make_user
from tests.oidc_provider import provider_environment, running, sso_site

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
]

ISSUER = "https://sso.acme.example/realms/staff"
VIA = f"manage.py link_identity, run by {getpass.getuser()}"


def link_identity(*args: str) -> str:
    out = StringIO()
    call_command("link_identity", *args, stdout=out)
    return out.getvalue()


def identities() -> list[tuple[str, str, str, str | None]]:
    return [
        (i.issuer, i.subject, i.user.username, i.linked_by.username if i.linked_by else None)
        for i in ExternalIdentity.objects.select_related("user", "linked_by").order_by("pk")
    ]


def events() -> list[tuple[str | None, str, str, dict[str, Any]]]:
    return [
        (e.actor.username if e.actor else None, e.action, e.target, e.data)
        for e in AuditEvent.objects.select_related("actor").order_by("pk")
    ]


@pytest.fixture
def root(db: None) -> User:
    return User.objects.create_superuser("rt-admin", "root@example.com", "pw")


# --- manage.py link_identity --------------------------------------------------------------


def test_it_links_an_identity_to_a_superuser_and_audits_it(root: User) -> None:
    out = link_identity("rt-admin", "--subject", "root-sub", "--issuer", ISSUER)

    assert out == f"Linked subject root-sub at {ISSUER} to rt-admin.\n"
    assert identities() == [(ISSUER, "root-sub", "rt-admin", None)]
    assert events() == [
        (
            None,
            "sso.identity_linked",
            f"external identity root-sub at {ISSUER}",
            {"user": "rt-admin", "issuer": ISSUER, "subject": "root-sub", "via": VIA},
        )
    ]


def test_linking_it_again_changes_nothing(root: User) -> None:
    link_identity("rt-admin", "--subject", "root-sub", "--issuer", ISSUER)

    link_identity("rt-admin", "--subject", "root-sub", "--issuer", ISSUER)

    assert len(identities()) == 1
    assert AuditEvent.objects.count() == 1


def test_the_issuer_defaults_to_the_configured_providers(
    root: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running() as provider, sso_site(monkeypatch, **provider_environment(provider)):
        link_identity("rt-admin", "--subject", "root-sub")

    assert identities() == [(provider.url, "root-sub", "rt-admin", None)]


def test_it_moves_the_identity_a_first_sign_in_made_to_the_older_account() -> None:
    old = make_user("lena", INTERVIEWER)
    new = make_user("lena-2", INTERVIEWER)
    ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=new)

    link_identity("lena", "--from-user", "lena-2")

    assert identities() == [(ISSUER, "lena-sub", "lena", None)]
    assert list(new.external_identities.all()) == []
    assert old.external_identities.get().subject == "lena-sub"
    assert events() == [
        (
            None,
            "sso.identity_linked",
            f"external identity lena-sub at {ISSUER}",
            {
                "user": "lena",
                "issuer": ISSUER,
                "subject": "lena-sub",
                "via": VIA,
                "moved_from": "lena-2",
            },
        )
    ]


def refused(*args: str) -> str:
    """Run the command, which must refuse; return its message, having written nothing."""
    before = (identities(), events())
    with pytest.raises(CommandError) as refusal:
        link_identity(*args)
    assert (identities(), events()) == before
    return str(refusal.value)


def test_it_refuses_an_unknown_account(root: User) -> None:
    message = refused("nobody", "--subject", "s", "--issuer", ISSUER)

    assert message == "no account named 'nobody'"
    assert identities() == []


def test_it_refuses_an_identity_another_account_has(root: User) -> None:
    other = make_user("lena")
    ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=other)

    message = refused("rt-admin", "--subject", "lena-sub", "--issuer", ISSUER)

    assert message == (
        f"Subject lena-sub at {ISSUER} is already linked to the account lena. "
        "To move it here, run with --from-user and that account's username."
    )
    assert identities() == [(ISSUER, "lena-sub", "lena", None)]


def test_it_refuses_a_second_subject_for_an_account_at_one_issuer(root: User) -> None:
    ExternalIdentity.objects.create(issuer=ISSUER, subject="root-sub", user=root)

    message = refused("rt-admin", "--subject", "another-sub", "--issuer", ISSUER)

    assert message == (
        f"rt-admin is already linked to subject root-sub at {ISSUER}; unlink that first."
    )


def test_it_refuses_to_move_from_an_account_with_no_identity(root: User) -> None:
    make_user("lena")

    message = refused("rt-admin", "--from-user", "lena")

    assert message == (
        "'lena' has 0 linked identities; name the one to move with --subject and --issuer"
    )


def test_it_refuses_an_empty_subject(root: User) -> None:
    message = refused("rt-admin", "--subject", "  ", "--issuer", ISSUER)

    assert message == "The subject must have 1 to 255 characters."


def test_it_refuses_without_an_issuer_when_single_sign_on_is_off(root: User) -> None:
    message = refused("rt-admin", "--subject", "root-sub")

    assert message == "single sign-on has no issuer configured here; give --issuer"


def test_it_needs_a_subject_or_an_account_to_move_from(root: User) -> None:
    message = refused("rt-admin")

    assert message == "Error: one of the arguments --subject --from-user is required"


# --- the admin's External identities ------------------------------------------------------

ADD = "/admin/core/externalidentity/add/"


@pytest.fixture
def admin(client: Client, root: User) -> Client:
    client.force_login(root)
    return client


def test_an_administrator_links_an_account_in_the_admin(admin: Client, root: User) -> None:
    lena = make_user("lena", INTERVIEWER)

    response = admin.post(ADD, {"issuer": ISSUER, "subject": "lena-sub", "user": lena.pk})

    assert response.status_code == 302
    assert identities() == [(ISSUER, "lena-sub", "lena", "rt-admin")]
    assert events() == [
        (
            "rt-admin",
            "sso.identity_linked",
            f"external identity lena-sub at {ISSUER}",
            {"user": "lena", "issuer": ISSUER, "subject": "lena-sub", "via": "admin"},
        )
    ]


def test_the_admin_refuses_an_identity_already_linked(admin: Client, root: User) -> None:
    lena = make_user("lena")
    ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=lena)

    response = admin.post(ADD, {"issuer": ISSUER, "subject": "lena-sub", "user": root.pk})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "__all__": ["This identity is already linked to an account."]
    }
    assert identities() == [(ISSUER, "lena-sub", "lena", None)]
    assert events() == []


def test_the_admin_refuses_a_second_identity_for_an_account(admin: Client, root: User) -> None:
    lena = make_user("lena")
    ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=lena)

    response = admin.post(ADD, {"issuer": ISSUER, "subject": "other-sub", "user": lena.pk})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "__all__": ["This account is already linked to an identity at this issuer."]
    }
    assert identities() == [(ISSUER, "lena-sub", "lena", None)]
    assert events() == []


def test_a_link_is_not_edited_in_the_admin(admin: Client, root: User) -> None:
    lena = make_user("lena")
    identity = ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=lena)
    url = f"/admin/core/externalidentity/{identity.pk}/change/"

    response = admin.post(url, {"issuer": ISSUER, "subject": "lena-sub", "user": root.pk})

    assert response.status_code == 403
    assert identities() == [(ISSUER, "lena-sub", "lena", None)]
    assert events() == []


def test_an_administrator_unlinks_in_the_admin(admin: Client, root: User) -> None:
    lena = make_user("lena")
    identity = ExternalIdentity.objects.create(issuer=ISSUER, subject="lena-sub", user=lena)

    response = admin.post(f"/admin/core/externalidentity/{identity.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert identities() == []
    assert events() == [
        (
            "rt-admin",
            "sso.identity_unlinked",
            f"external identity lena-sub at {ISSUER}",
            {"user": "lena", "issuer": ISSUER, "subject": "lena-sub", "via": "admin"},
        )
    ]


def test_someone_who_is_not_staff_cannot_link(client: Client, root: User) -> None:
    lena = make_user("lena")
    client.force_login(lena)

    response = client.post(ADD, {"issuer": ISSUER, "subject": "x", "user": lena.pk})

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    assert identities() == []
    assert events() == []
