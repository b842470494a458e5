"""Writes to a person's own settings: time zone, emails, calendar feed."""

import hashlib
import secrets
from collections.abc import Collection, Iterable

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from core.accounts.models import Notice, Profile
from core.accounts.zones import is_zone, profile_for
from core.services import audit_event_record


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
