"""A real SMTP relay on loopback for tests: aiosmtpd with a login, and STARTTLS or implicit TLS.

Its certificate is made for the test (127.0.0.1 and localhost) and trusted through
SSL_CERT_FILE, the way a deployment trusts a private CA: Django's SMTP backend
verifies the relay's certificate with the default context, which reads that variable.
"""

import datetime
import email
import email.policy
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from icalendar import Calendar

USER, PASSWORD = "kit-relay", "s3cret relay password"


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """Write a self-signed certificate for 127.0.0.1 and localhost, and its key; return both."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "relay.pem", directory / "relay.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Received:
    """One message as the relay took it: who signed in, whether over TLS, and the message."""

    login: str | None
    tls: bool
    sender: str
    recipients: list[str]
    message: EmailMessage


@dataclass
class Relay:
    port: int
    ca_file: Path
    received: list[Received] = field(default_factory=list)
    refused_logins: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        login = session.auth_data.login.decode() if session.authenticated else None
        self.received.append(
            Received(
                login,
                server.transport.get_extra_info("ssl_object") is not None,
                envelope.mail_from,
                envelope.rcpt_tos,
                message,
            )
        )
        return "250 OK"

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> AuthResult:
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == USER
            and auth_data.password.decode() == PASSWORD
        )
        if not ok:
            self.refused_logins += 1
        return AuthResult(success=ok, auth_data=auth_data)


@contextmanager
def smtp_relay(directory: Path, *, implicit_tls: bool = False) -> Iterator[Relay]:
    """Run a relay that requires a login, offered only over TLS: STARTTLS on a plain port,
    or TLS from the first byte (`implicit_tls`)."""
    cert, key = make_certificate(directory)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    relay = Relay(port=free_port(), ca_file=cert)
    tls: dict[str, Any] = (
        {"ssl_context": context}
        if implicit_tls
        else {"tls_context": context, "require_starttls": True}
    )
    controller = Controller(
        relay,
        hostname="127.0.0.1",
        port=relay.port,
        authenticator=relay.authenticate,
        auth_required=True,
        # A login over plain text is refused: the password only ever crosses TLS (aiosmtpd
        # counts only STARTTLS as TLS; with implicit TLS every byte is encrypted anyway).
        auth_require_tls=not implicit_tls,
        **tls,
    )
    controller.start()
    try:
        yield relay
    finally:
        controller.stop()


def assert_imip_request(message: EmailMessage, *, start: datetime.datetime) -> None:
    """Check the structure Outlook and Gmail recognise as an invitation."""
    assert message.get_content_type() == "multipart/mixed"
    alternative, attachment = message.iter_parts()
    assert alternative.get_content_type() == "multipart/alternative"
    text, html, inline = alternative.iter_parts()
    assert text.get_content_type() == "text/plain"
    assert html.get_content_type() == "text/html"
    assert inline.get_content_type() == "text/calendar"
    assert inline.get_param("method") == "REQUEST"
    assert inline.get_content_charset() == "utf-8"
    assert inline.get_content_disposition() is None  # shown as the message, not a file
    assert attachment.get_content_type() == "application/ics"
    assert attachment.get_content_disposition() == "attachment"
    assert attachment.get_filename() == "invite.ics"
    inline_calendar = Calendar.from_ical(inline.get_content())
    attached = Calendar.from_ical(attachment.get_content())
    assert inline_calendar["METHOD"] == attached["METHOD"] == "REQUEST"
    (event,) = attached.walk("VEVENT")
    assert event.decoded("DTSTART") == start
