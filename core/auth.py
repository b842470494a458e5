"""The signed-in user of a request that its view already refused to anonymous callers."""

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.request import Request


def signed_in(request: HttpRequest | Request) -> User:
    """Return ``request.user`` as a ``User`` for a service to record as the actor.

    Only for views behind ``login_required``, the admin site or DRF's ``IsAuthenticated``
    (the API default), so an anonymous caller never gets this far; if one ever did, it
    is refused here instead of reaching a service as the actor.
    """
    user = request.user
    if not user.is_authenticated:
        raise PermissionDenied
    return user
