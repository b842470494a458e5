"""The client's address, for the API's rate limits and the sign-in lockout.

One rule, one setting (TRUSTED_PROXY_COUNT, read from the environment):

=================  ==========================================  ====================
proxies in front   X-Forwarded-For as the app receives it      client address
=================  ==========================================  ====================
0 (the default)    anything, or missing                        REMOTE_ADDR
N >= 1             missing                                     REMOTE_ADDR
N >= 1             "a, b, c" (each proxy appended its peer)    the Nth from the right
N >= 1             fewer than N entries                        the leftmost entry
N >= 1             the chosen entry is not an IP address       REMOTE_ADDR
=================  ==========================================  ====================

Everything left of the Nth entry from the right was written by the caller, so it is
never looked at: varying it must not buy a new rate-limit bucket or lockout count.
DRF's NUM_PROXIES is set to the same count (config/settings.py), so a throttle class
that does not use these agrees on every well-formed header.
"""

import ipaddress

from django.conf import settings
from django.http import HttpRequest
from rest_framework import throttling
from rest_framework.request import Request


def client_ip(request: HttpRequest | Request) -> str:
    """Return the address the request came from, trusting only the configured proxies."""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies: int = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies == 0 or forwarded is None:
        return remote
    entries = [entry.strip() for entry in str(forwarded).split(",")]
    chosen = entries[-min(proxies, len(entries))]
    try:
        # An address the proxy would never write (empty, a name, garbage) falls back to
        # the proxy itself rather than becoming a bucket of the caller's choosing.
        return str(ipaddress.ip_address(chosen))
    except ValueError:
        return remote


class AnonRateThrottle(throttling.AnonRateThrottle):
    def get_ident(self, request: Request) -> str:
        return client_ip(request)


class UserRateThrottle(throttling.UserRateThrottle):
    def get_ident(self, request: Request) -> str:
        return client_ip(request)
