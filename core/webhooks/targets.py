"""Whether a webhook's target may be reached: never a private network, unless allowed.

A subscriber could otherwise have the server POST to its own loopback, the cloud's
metadata address (169.254.169.254) or the office network (SSRF). The check runs when a
subscription is saved and again at each delivery, since a name may resolve elsewhere later.
"""

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as ResolveTimeout
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

from core.api.exceptions import ApplicationError

PRIVATE_CODE = "webhook_target_private"
RESOLVE_TIMEOUT = 5.0
# getaddrinfo cannot be interrupted: a lookup past its timeout is left to finish in one
# of these threads while the caller moves on.
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


class PrivateTarget(ApplicationError):
    """The URL's host is, or resolves to, an address the server must not call."""

    def __init__(self, host: str, address: str) -> None:
        message = (
            f"The URL's host {host} is or resolves to {address}, a private, loopback, "
            "link-local or reserved address: webhooks go to public addresses only."
        )
        errors = {"url": [{"code": PRIVATE_CODE, "detail": message}]}
        super().__init__(f"url: {message}", {"errors": errors}, code=PRIVATE_CODE)
        self.host = host
        self.address = address


# IPv6 forms that carry an IPv4 address a router or translator will reach: NAT64's
# well-known prefix (RFC 6052, the IPv4 in the last 32 bits) and its local-use prefix
# (RFC 8215: translates to networks of the operator's choosing, so never a public target).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
# IPv4-compatible addresses (deprecated, RFC 4291 2.5.5.1): ::a.b.c.d.
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Return the IPv4 addresses an IPv6 transition form carries: IPv4-mapped, 6to4
    (2002::/16), Teredo (2001::/32: its server, and its client, which Python already
    un-XORs), IPv4-compatible and NAT64 (64:ff9b::/96)."""
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):  # not :: or ::1
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [address for address in found if address is not None]


def _not_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def is_private(address: str) -> bool:
    """Whether an address is not a public one: itself, or an IPv4 address an IPv6
    transition form embeds (http://[2002:7f00:1::]/ reaches 127.0.0.1 through a 6to4
    relay), or anything in NAT64's local-use prefix."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _NAT64_LOCAL:
            return True
        if any(_not_public(embedded) for embedded in _embedded_ipv4(ip)):
            return True
    return _not_public(ip)


def resolve(host: str, port: int, *, timeout: float = RESOLVE_TIMEOUT) -> list[str]:
    """Return every address `host` resolves to, within `timeout` seconds.

    Raises OSError when the name does not resolve or takes longer (socket.timeout).
    """
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return [host]
    future = _resolver.submit(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=timeout)
    except ResolveTimeout:
        raise TimeoutError(f"resolving {host} took longer than {timeout:g} s") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check(host: str, addresses: list[str]) -> None:
    """Raise PrivateTarget if any of the host's addresses is not a public one."""
    for address in addresses:
        if is_private(address):
            raise PrivateTarget(host, address)


def port_of(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme == "https" else 80)


def url_check(url: str) -> None:
    """Raise PrivateTarget for a URL whose host is or resolves to a private address,
    unless WEBHOOK_ALLOW_PRIVATE_TARGETS. A name that does not resolve now is let
    through: delivery checks again, and fails it then."""
    if settings.WEBHOOK_ALLOW_PRIVATE_TARGETS:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""  # without an IPv6 address's brackets
    try:
        addresses = resolve(host, port_of(parts))
    except OSError:
        return
    check(host, addresses)
