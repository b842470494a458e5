"""Reading settings from the environment: typed helpers that fail loudly on a bad value
(each secret also from NAME_FILE), and the mail settings, which take several variables
or one EMAIL_URL. config/settings.py is the only caller."""

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured


def envbool(name: str, default: str) -> bool:
    value = os.getenv(name, default).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    # A typo such as DEBUG=Flase must not silently enable debug mode.
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use True or False)")


def envint(name: str, default: int) -> int:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None


def envsecret(name: str, default: str = "") -> str:
    """Return NAME from the environment, or the contents of the file named by NAME_FILE."""
    path = os.getenv(f"{name}_FILE")
    if path:
        return Path(path).read_text().strip()
    return os.getenv(name, default)


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


def email_settings() -> dict[str, object]:
    """Return the settings for sending mail, read from the environment.

    Either EMAIL_URL, `smtp://user:password@host:port` (STARTTLS with
    `smtp+starttls://`, implicit TLS with `smtps://`; user and password percent-encoded),
    or EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD (or
    EMAIL_HOST_PASSWORD_FILE), EMAIL_USE_TLS (STARTTLS) or EMAIL_USE_SSL (implicit TLS).
    A relay named either way selects the SMTP backend unless EMAIL_BACKEND says otherwise;
    with neither, mail is printed to the console (development).
    """

    url = os.getenv("EMAIL_URL", "").strip()
    host = os.getenv("EMAIL_HOST", "").strip()
    use_tls = envbool("EMAIL_USE_TLS", "False")
    use_ssl = envbool("EMAIL_USE_SSL", "False")
    port = envint("EMAIL_PORT", 0)
    user = os.getenv("EMAIL_HOST_USER", "")
    password = envsecret("EMAIL_HOST_PASSWORD")
    if url:
        if host:
            raise ImproperlyConfigured("Set EMAIL_URL or EMAIL_HOST, not both")
        parts = urlsplit(url)
        schemes = {"smtp": (False, False), "smtp+starttls": (True, False), "smtps": (False, True)}
        if parts.scheme not in schemes or not parts.hostname:
            raise ImproperlyConfigured(
                "EMAIL_URL must look like smtp://user:password@host:port (or smtp+starttls://, "
                "smtps://)"
            )
        use_tls, use_ssl = use_tls or schemes[parts.scheme][0], use_ssl or schemes[parts.scheme][1]
        host = parts.hostname
        try:
            port = parts.port or port
        except ValueError:
            raise ImproperlyConfigured("EMAIL_URL has a port that is not a number") from None
        user = unquote(parts.username or "") or user
        password = unquote(parts.password or "") or password
    if use_tls and use_ssl:
        # Django's SMTP backend refuses this only when it first sends, in a worker.
        raise ImproperlyConfigured(
            "EMAIL_USE_TLS (STARTTLS, usually port 587) and EMAIL_USE_SSL (implicit TLS, "
            "usually port 465) cannot both be on: choose the one your relay speaks"
        )
    timeout = envint("EMAIL_TIMEOUT", 10)
    if timeout < 1:
        raise ImproperlyConfigured(f"EMAIL_TIMEOUT={timeout} must be 1 or more (seconds)")
    smtp = "django.core.mail.backends.smtp.EmailBackend"
    console = "django.core.mail.backends.console.EmailBackend"
    return {
        "EMAIL_BACKEND": os.getenv("EMAIL_BACKEND", "").strip() or (smtp if host else console),
        "EMAIL_HOST": host or "localhost",
        "EMAIL_PORT": port or (465 if use_ssl else 587 if use_tls else 25),
        "EMAIL_HOST_USER": user,
        "EMAIL_HOST_PASSWORD": password,
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
        # A relay that stops answering must not hold a worker forever (Django waits).
        "EMAIL_TIMEOUT": timeout,
    }
