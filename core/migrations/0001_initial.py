"""Adopt AuditEvent from kit, keeping its table and rows.

Only Django's model state moves, as when kit adopted it from scoring (kit 0005):
the table scoring_auditevent stays where it is, named by the model's db_table,
and kit 0006 drops the model from kit's state. The content type is renamed too,
so admin history and any permission granted on audit events follow the model.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor, source="kit", destination="core"):
    # A fresh database has no content types yet (they are made after migrating).
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    if not types.filter(app_label=destination, model="auditevent").exists():
        types.filter(app_label=source, model="auditevent").update(app_label=destination)


def move_content_type_back(apps, schema_editor):
    move_content_type(apps, schema_editor, source="core", destination="kit")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("kit", "0005_auditevent"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("action", models.CharField(max_length=60)),
                        ("target", models.CharField(max_length=200)),
                        ("data", models.JSONField(blank=True, default=dict)),
                        (
                            "actor",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "scoring_auditevent",
                        "ordering": ["-at", "-id"],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
