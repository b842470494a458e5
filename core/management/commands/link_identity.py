import getpass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts import oidc, services
from core.accounts.models import ExternalIdentity


class Command(BaseCommand):
    help = """Link a person's identity at the single sign-on provider to an existing account.

    Single sign-on signs in as the account linked to the ID token's issuer and subject
    (`iss`, `sub`); someone signing in for the first time gets a new account, never an
    existing one, whatever its username or email. This command is how an administrator
    gives a person an account that already exists (one made before accounts were
    linked, or one with a password):

      link_identity USERNAME --subject SUB [--issuer ISS]
          links that identity to USERNAME. The issuer defaults to the configured
          provider's (OIDC_OP_ISSUER, else its discovery document's).
      link_identity USERNAME --from-user OTHER [--issuer ISS]
          moves OTHER's identity (the account their first sign-in made) to USERNAME;
          OTHER's account stays, with no identity: deactivate it in the admin.

    Refused, nothing written: an unknown account, an identity already linked to
    another account (use --from-user), an account already linked to another subject
    at this issuer (unlink it in the admin first). Each link is recorded in the audit
    log as sso.identity_linked, naming the account, issuer, subject and who ran this.
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the existing account to link")
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--subject", help="the person's `sub` at the provider")
        which.add_argument("--from-user", help="take the identity of this account")
        parser.add_argument("--issuer", help="the provider's `iss` (default: the configured one)")

    def handle(
        self,
        *args: Any,
        username: str,
        subject: str | None,
        from_user: str | None,
        issuer: str | None,
        **options: Any,
    ) -> None:
        user = _account(username)
        if from_user is not None:
            identity = _identity_of(_account(from_user), issuer)
            issuer, subject = identity.issuer, identity.subject
        else:
            issuer = issuer or _configured_issuer()
        assert subject is not None  # one of --subject and --from-user is required
        try:
            services.external_identity_link(
                user=user,
                issuer=issuer,
                subject=subject,
                by=None,
                via=f"manage.py link_identity, run by {getpass.getuser()}",
                move=from_user is not None,
            )
        except ValidationError as exc:
            hint = ""
            if any(error.code == "linked_elsewhere" for error in exc.error_dict.get("subject", [])):
                hint = " To move it here, run with --from-user and that account's username."
            raise CommandError("; ".join(exc.messages) + hint) from exc
        self.stdout.write(f"Linked subject {subject} at {issuer} to {user.username}.")


def _account(username: str) -> User:
    try:
        return User.objects.get(username=username)
    except User.DoesNotExist:
        raise CommandError(f"no account named '{username}'") from None


def _identity_of(user: User, issuer: str | None) -> ExternalIdentity:
    identities = list(user.external_identities.all())
    if issuer:
        identities = [identity for identity in identities if identity.issuer == issuer]
    if len(identities) != 1:
        at = f" at {issuer}" if issuer else ""
        raise CommandError(
            f"'{user.username}' has {len(identities)} linked identities{at}; "
            "name the one to move with --subject and --issuer"
        )
    return identities[0]


def _configured_issuer() -> str:
    try:
        issuer = oidc.provider().issuer if settings.OIDC_ENABLED else ""
    except oidc.ProviderUnavailable as exc:
        raise CommandError(f"{exc}; give --issuer") from exc
    if not issuer:
        raise CommandError("single sign-on has no issuer configured here; give --issuer")
    return issuer
