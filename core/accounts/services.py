"""Writes to a person's own settings (time zone, emails, calendar feed) and to the
provider identities that single sign-on signs in with."""

import hashlib
import secrets
from collections.abc import Collection, Iterable

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from core.accounts.models import ExternalIdentity, Notice, Profile
from core.accounts.zones import is_zone, profile_for
from core.audit.services import audit_event_record


def profile_of(*, user: User) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def profiles_of(users: Iterable[User]) -> dict[int, Profile]:
    """Return each user's profile by user id, read in one query; a user who has none yet
    gets an unsaved default one (every email on, the site's zone), which is not created."""
    ids = {user.pk for user in users}
    found = Profile.objects.in_bulk(ids, field_name="user_id") if ids else {}
    return {pk: found.get(pk) or Profile(user_id=pk) for pk in ids}


def time_zone_guess(*, user: User, guess: str) -> str:
    """Return the user's zone; if they have none yet, take `guess` (their browser's)."""
    profile = profile_of(user=user)
    if not profile.time_zone and guess and is_zone(guess):
        Profile.objects.filter(pk=profile.pk, time_zone="").update(time_zone=guess)
        profile.time_zone = guess
    return profile.time_zone


@transaction.atomic
def profile_update(*, user: User, time_zone: str, emails_on: Collection[str]) -> Profile:
    """Set the user's time zone and which kinds of email they get."""
    if not is_zone(time_zone):
        raise ValidationError(
            {"time_zone": f"'{time_zone}' is not a time zone; pick one from the list."}
        )
    unknown = sorted(set(emails_on) - set(Notice.values))
    if unknown:
        raise ValidationError({"emails": f"Unknown kind of email: {', '.join(unknown)}."})
    profile = profile_of(user=user)
    profile.time_zone = time_zone
    profile.emails_off = [kind for kind in Notice.values if kind not in emails_on]
    profile.save(update_fields=["time_zone", "emails_off"])
    return profile


def wants(*, user: User, kind: Notice, profile: Profile | None = None) -> bool:
    """Whether `user` gets emails of this kind (everyone does until they switch it off).

    Pass their `profile` if it is loaded (profiles_of, for a batch) to save a query."""
    profile = profile_for(user, profile)
    off = profile.emails_off if profile else []
    return user.is_active and bool(user.email) and kind.value not in off


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def calendar_feed_reset(*, user: User) -> str:
    """Give the user a new secret calendar feed address (the old one stops working) and
    return its token: it is shown once, only its digest is kept."""
    token = secrets.token_urlsafe(32)
    profile = profile_of(user=user)
    replaced = bool(profile.calendar_token_hash)
    profile.calendar_token_hash = _digest(token)
    profile.save(update_fields=["calendar_token_hash"])
    audit_event_record(
        actor=user,
        action="calendar_feed.created",
        target=f"user {user.username}",
        replaced=replaced,
    )
    return token


@transaction.atomic
def calendar_feed_revoke(*, user: User) -> None:
    feeds = Profile.objects.filter(user=user).exclude(calendar_token_hash="")
    if feeds.update(calendar_token_hash=""):
        audit_event_record(
            actor=user, action="calendar_feed.revoked", target=f"user {user.username}"
        )


def calendar_feed_owner(*, token: str) -> User | None:
    """Return whose feed `token` opens, or None (unknown, revoked, or a deactivated user)."""
    if not token or len(token) > 100:
        return None
    profile = (
        Profile.objects.filter(calendar_token_hash=_digest(token), user__is_active=True)
        .select_related("user")
        .first()
    )
    return profile.user if profile else None


@transaction.atomic
def external_identity_link(
    *,
    user: User,
    issuer: str,
    subject: str,
    by: User | None,
    via: str,
    move: bool = False,
) -> ExternalIdentity:
    """Link the provider's identity (`issuer`, `subject`) to `user`, an existing account,
    so that signing in with it signs in as `user`; audit it as `sso.identity_linked`
    (who, through what, which account, which issuer and subject).

    Only an administrator does this (the admin, manage.py link_identity): single sign-on
    itself never links an existing account. Refused with a ValidationError, nothing
    written, when the issuer or subject is empty or too long, when `user` already has
    another identity at this issuer, and when the identity is another account's unless
    `move` (then it moves, and the event names the account it left). Linking an identity
    to the account it already has changes nothing and records nothing.
    """
    issuer, subject = issuer.strip(), subject.strip()
    for name, value in (("issuer", issuer), ("subject", subject)):
        if not value or len(value) > 255:
            raise ValidationError({name: f"The {name} must have 1 to 255 characters."})
    identity = (
        ExternalIdentity.objects.select_for_update()
        .select_related("user")
        .filter(issuer=issuer, subject=subject)
        .first()
    )
    if identity is not None and identity.user_id == user.pk:
        return identity
    if identity is not None and not move:
        raise ValidationError(
            {
                "subject": ValidationError(
                    f"Subject {subject} at {issuer} is already linked to the account "
                    f"{identity.user.username}.",
                    code="linked_elsewhere",
                )
            }
        )
    other = ExternalIdentity.objects.filter(issuer=issuer, user=user).first()
    if other is not None:
        raise ValidationError(
            {
                "user": ValidationError(
                    f"{user.username} is already linked to subject {other.subject} at "
                    f"{issuer}; unlink that first.",
                    code="account_linked",
                )
            }
        )
    moved: dict[str, object] = {}
    if identity is None:
        identity = ExternalIdentity.objects.create(
            issuer=issuer, subject=subject, user=user, linked_by=by
        )
    else:
        moved = {"moved_from": identity.user.username}
        identity.user, identity.linked_by = user, by
        identity.save(update_fields=["user", "linked_by"])
    audit_event_record(
        actor=by,
        action="sso.identity_linked",
        target=f"external identity {identity}",
        user=user.username,
        issuer=issuer,
        subject=subject,
        via=via,
        **moved,
    )
    return identity


@transaction.atomic
def external_identity_unlink(*, identity: ExternalIdentity, by: User | None, via: str) -> None:
    """Unlink the identity from its account, audited as `sso.identity_unlinked`: the
    person's next sign-in makes a new account, unless an administrator links it again."""
    audit_event_record(
        actor=by,
        action="sso.identity_unlinked",
        target=f"external identity {identity}",
        user=identity.user.username,
        issuer=identity.issuer,
        subject=identity.subject,
        via=via,
    )
    identity.delete()
