"""One HTTP POST of a webhook, with short timeouts and no redirects followed.

The standard library's http.client: a redirect is an answer like any other (a 3xx,
not a 2xx, so a failed attempt), never followed to an address nobody subscribed.
"""

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.webhooks import targets

CONNECT_TIMEOUT = 5.0
# The whole attempt, connection to answer: a receiver trickling bytes is cut off here.
TOTAL_TIMEOUT = 10.0
# What is kept of a refusing receiver's body, for the delivery log.
BODY_KEPT = 500
USER_AGENT = "InterviewKit-Webhooks/1.0"


@dataclass(frozen=True)
class Answer:
    """How an attempt ended: an HTTP status, or the error that prevented one."""

    status: int | None
    elapsed_ms: int
    error: str = ""
    # Refused before sending (a private target): no retry would go differently.
    final: bool = False

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connect to an address already resolved and checked, not to the name again."""

    def __init__(self, host: str, port: int | None, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS; the certificate is checked against the URL's host name."""

    def __init__(self, host: str, port: int | None, *, address: str, timeout: float) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def post(url: str, body: bytes, headers: dict[str, str], *, allow_private: bool) -> Answer:
    """POST `body` to `url` and return how it went; never raises for network trouble.

    1. Resolve the host once (in a thread, within CONNECT_TIMEOUT) and, unless
       `allow_private`, refuse if any of its addresses is private: nothing is sent.
    2. Connect to the first address resolved, within CONNECT_TIMEOUT: the one checked,
       not a fresh lookup's answer.
    3. A timer closes the socket when TOTAL_TIMEOUT has passed since the start, so a
       receiver answering a byte at a time cannot hold the worker (socket timeouts
       alone restart with every byte).
    4. Read the status and at most BODY_KEPT bytes of a refusal's body.
    """
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.hostname or ""
    port = targets.port_of(parts)
    start = time.monotonic()
    try:
        addresses = targets.resolve(host, port, timeout=CONNECT_TIMEOUT)
        if not allow_private:
            targets.check(host, addresses)
    except targets.PrivateTarget as exc:
        error = f"refused: {host} resolves to {exc.address}, not a public address"
        return Answer(status=None, elapsed_ms=_ms_since(start), error=error, final=True)
    except OSError as exc:
        error = f"could not resolve {host}: {type(exc).__name__}: {exc}".strip().rstrip(":")
        return Answer(status=None, elapsed_ms=_ms_since(start), error=error)
    connection: http.client.HTTPConnection
    kind = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
    connection = kind(host, port, address=addresses[0], timeout=CONNECT_TIMEOUT)
    timer = threading.Timer(TOTAL_TIMEOUT, _cut, args=(connection,))
    timer.daemon = True
    timer.start()
    try:
        connection.connect()
        assert connection.sock is not None  # connect() sets it or raises
        connection.sock.settimeout(max(0.1, TOTAL_TIMEOUT - (time.monotonic() - start)))
        connection.request(
            "POST",
            path,
            body=body,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers},
        )
        response = connection.getresponse()
        status = response.status
        error = ""
        if not 200 <= status < 300:
            snippet = response.read(BODY_KEPT).decode("utf-8", "replace").strip()
            error = f"HTTP {status}" + (f": {snippet}" if snippet else "")
        return Answer(status=status, elapsed_ms=_ms_since(start), error=error)
    except (OSError, http.client.HTTPException) as exc:
        if time.monotonic() - start >= TOTAL_TIMEOUT:
            error = f"timed out after {TOTAL_TIMEOUT:g} s"
        else:
            error = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        return Answer(status=None, elapsed_ms=_ms_since(start), error=error)
    finally:
        timer.cancel()
        connection.close()


def _cut(connection: http.client.HTTPConnection) -> None:
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)


def _ms_since(start: float) -> int:
    return round((time.monotonic() - start) * 1000)
