"""What a webhook's target URL may be."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

TARGET_URL_MESSAGE = "Enter an http:// or https:// URL."

# Only the web's two schemes: an ATS listens on http(s), and ftp:// (which Django's
# URL validator also accepts) would only ever fail.
_http_url = URLValidator(schemes=["http", "https"], message=TARGET_URL_MESSAGE)


def validate_target_url(value: str) -> None:
    _http_url(value)
    if "@" in urlsplit(value).netloc:
        # The signature authenticates the sender; a password in the URL would be shown
        # in every read of the subscription.
        raise ValidationError(
            "Leave credentials out of the URL: receivers verify the signature instead.",
            code="invalid",
        )
