"""Time zones: which one a person's times are shown and entered in.

Times are stored in UTC. A page is rendered in its viewer's zone: their profile's,
else the one their browser reported (static/js/timezone.js sets the `tz` cookie and
the first page seen saves it to the profile), else settings.TIME_ZONE. The profile is
read on every page (one query by its unique user id), so a zone changed on another
device applies at once, not at the next sign-in. The API speaks UTC whoever calls.
Emails and invites use the recipient's zone.
"""

import zoneinfo
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

if TYPE_CHECKING:
    from core.accounts.models import Profile

COOKIE = "tz"


@cache
def zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_zone(name: str) -> bool:
    return name in zone_names()


def zone_of(user: User, profile: "Profile | None" = None) -> zoneinfo.ZoneInfo:
    """Return the zone `user` reads times in (their profile's, else the site's).

    Pass their `profile` if it is loaded (services.profiles_of, for a batch) to save a
    query."""
    profile = profile_for(user, profile)
    return zoneinfo.ZoneInfo((profile.time_zone if profile else "") or settings.TIME_ZONE)


def profile_for(user: User, profile: "Profile | None" = None) -> "Profile | None":
    """Return `profile` if given (it must be `user`'s), else `user`'s saved one, if any."""
    from core.accounts.models import Profile

    if profile is None:
        return Profile.objects.filter(user=user).first()
    if profile.user_id != user.pk:
        raise ValueError(f"profile of user {profile.user_id} given for user {user.pk}")
    return profile


def browser_zone(request: HttpRequest) -> str:
    """Return the zone the browser reported (static/js/timezone.js), or "" if none or unknown."""
    guess = unquote(request.COOKIES.get(COOKIE, ""))
    return guess if is_zone(guess) else ""


class TimeZoneMiddleware:
    """Render each page in its viewer's time zone; the API stays in UTC."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            name = "" if request.path.startswith("/api/") else self._zone(request)
        except DatabaseError:
            # The database is unreachable: the view meets the same error and its
            # middleware answers 503 (core/http/middleware.py), which needs no zone.
            name = ""
        if name:
            timezone.activate(zoneinfo.ZoneInfo(name))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def _zone(self, request: HttpRequest) -> str:
        guess = browser_zone(request)
        user: Any = request.user
        if not user.is_authenticated:
            return guess
        from core.accounts.models import Profile

        name = Profile.objects.filter(user=user).values_list("time_zone", flat=True).first()
        if not name and guess:
            from core.accounts import services

            name = services.time_zone_guess(user=user, guess=guess)
        return name if name and is_zone(name) else ""
