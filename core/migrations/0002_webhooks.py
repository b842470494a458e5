"""Webhooks (issue 17): subscriptions, the events they hear about, each delivery's log."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import core.webhooks.validators


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="WebhookEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("event_id", models.CharField(max_length=40, unique=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("scorecard.submitted", "Scorecard Submitted"),
                            ("scorecard.amended", "Scorecard Amended"),
                            ("loop.decided", "Loop Decided"),
                            ("calibration.completed", "Calibration Completed"),
                        ],
                        max_length=40,
                    ),
                ),
                ("payload", models.JSONField(default=dict)),
                ("details", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "verbose_name": "webhook event",
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="WebhookSubscription",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "url",
                    models.CharField(
                        max_length=2000,
                        validators=[core.webhooks.validators.validate_target_url],
                        verbose_name="URL",
                    ),
                ),
                ("secret", models.CharField(editable=False, max_length=100)),
                ("event_types", models.JSONField(default=list)),
                ("active", models.BooleanField(default=True)),
                ("include_details", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "webhook subscription",
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="WebhookDelivery",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("succeeded", "Succeeded"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                ("locked_until", models.DateTimeField(blank=True, null=True)),
                ("last_attempt_at", models.DateTimeField(blank=True, null=True)),
                ("last_status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("last_response_ms", models.PositiveIntegerField(blank=True, null=True)),
                ("last_error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "replay_of",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="core.webhookdelivery",
                    ),
                ),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="core.webhookevent",
                    ),
                ),
                (
                    "subscription",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="core.webhooksubscription",
                    ),
                ),
            ],
            options={
                "verbose_name": "webhook delivery",
                "verbose_name_plural": "webhook deliveries",
                "ordering": ["-created_at", "-id"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("status", "pending")),
                        fields=["next_attempt_at"],
                        name="webhook_delivery_due",
                    ),
                    models.Index(
                        fields=["subscription", "-created_at", "-id"], name="webhook_delivery_log"
                    ),
                ],
            },
        ),
    ]
