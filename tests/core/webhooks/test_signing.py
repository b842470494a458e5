"""Standard Webhooks signing: the specification's test vector, secrets and event ids."""

import base64
import re
import time

from standardwebhooks import Webhook

from core.webhooks import signing

# The test vector published with the Standard Webhooks specification (and its libraries).
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TIMESTAMP = 1614265330
VECTOR_BODY = '{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_it_signs_the_standard_webhooks_test_vector() -> None:
    assert (
        signing.signature(
            secret=VECTOR_SECRET, event_id=VECTOR_ID, timestamp=VECTOR_TIMESTAMP, body=VECTOR_BODY
        )
        == VECTOR_SIGNATURE
    )


def test_it_gives_the_three_headers_of_a_delivery() -> None:
    assert signing.headers(
        secret=VECTOR_SECRET, event_id=VECTOR_ID, timestamp=VECTOR_TIMESTAMP, body=VECTOR_BODY
    ) == {
        "webhook-id": VECTOR_ID,
        "webhook-timestamp": "1614265330",
        "webhook-signature": VECTOR_SIGNATURE,
    }


def test_it_makes_secrets_of_32_random_bytes_with_the_whsec_prefix() -> None:
    secrets = {signing.secret_new() for _ in range(20)}

    assert len(secrets) == 20
    for secret in secrets:
        assert secret.startswith("whsec_")
        assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 32


def test_a_secret_it_makes_verifies_with_the_reference_library() -> None:
    secret = signing.secret_new()
    # The library refuses a timestamp more than five minutes from now.
    now = int(time.time())

    headers = signing.headers(secret=secret, event_id="evt_1", timestamp=now, body="{}")

    assert Webhook(secret).verify("{}", headers) == {}


def test_event_ids_are_evt_and_24_hex_digits_and_unique() -> None:
    ids = {signing.event_id_new() for _ in range(100)}

    assert len(ids) == 100
    assert all(re.fullmatch(r"evt_[0-9a-f]{24}", event_id) for event_id in ids)
