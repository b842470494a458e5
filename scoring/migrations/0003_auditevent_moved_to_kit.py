"""AuditEvent now belongs to kit (kit 0005 adopted it): drop it from scoring's
state only. The table scoring_auditevent and its rows stay, owned by kit."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0002_calibration_exercises"),
        ("kit", "0005_auditevent"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
