"""API tokens stored hashed (issue 30): every DRF Token row becomes an ApiToken holding
the SHA-256 of its key, and the clear keys are deleted, so existing tokens keep working.

A key issued bound to its user's password (24 characters, a dot, 15 of a MAC) whose
MAC no longer matches was already refused; it is dropped. A bound key still valid gets
the new password MAC; a plain DRF key (40 hex digits) stays bound to no password.
Reversing drops the new table: the clear keys cannot come back, so tokens are lost.
"""

import base64
import hashlib
from typing import Any

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.utils.crypto import constant_time_compare, salted_hmac

OLD_SALT = "config.tokens.password-bound-key"  # the old MAC and the new one share it
NONCE_LENGTH = 24
MAC_LENGTH = 15


def _old_mac(user: Any, nonce: str, secret: str) -> str:
    # As core/accounts/tokens.py made it before keys were hashed.
    value = f"{user.pk}\n{user.password}\n{nonce}"
    digest = salted_hmac(OLD_SALT, value, secret=secret, algorithm="sha256").digest()
    return base64.urlsafe_b64encode(digest).decode()[:MAC_LENGTH]


def _password_mac(user: Any) -> str:
    # As core.accounts.tokens.password_mac makes it.
    value = f"{user.pk}\n{user.password}"
    return salted_hmac(OLD_SALT, value, algorithm="sha256").hexdigest()


def hash_tokens(apps: Any, schema_editor: Any) -> None:
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("core", "ApiToken")
    secrets_ = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
    kept = []
    for token in Token.objects.select_related("user").iterator():
        key, user = token.key, token.user
        bound = len(key) == NONCE_LENGTH + 1 + MAC_LENGTH and key[NONCE_LENGTH] == "."
        mac = ""
        if bound:
            nonce, old = key[:NONCE_LENGTH], key[NONCE_LENGTH + 1 :]
            if not any(
                constant_time_compare(old, _old_mac(user, nonce, secret)) for secret in secrets_
            ):
                continue  # its password changed: it was refused already
            mac = _password_mac(user)
        kept.append(
            ApiToken(
                user_id=user.pk,
                digest=hashlib.sha256(key.encode()).hexdigest(),
                prefix=key[:8],
                password_mac=mac,
                created=token.created,
            )
        )
    ApiToken.objects.bulk_create(kept, batch_size=500)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("authtoken", "0004_alter_tokenproxy_options"),
        ("core", "0006_webhook_owner_rights"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("prefix", models.CharField(max_length=8)),
                ("password_mac", models.CharField(blank=True, max_length=64)),
                ("created", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_tokens",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created", "-id"],
            },
        ),
        migrations.RunPython(hash_tokens, migrations.RunPython.noop, elidable=True),
    ]
