"""AuditEvent now belongs to core (core 0001 adopted it): drop it from kit's state
only. Its table, scoring_auditevent, and its rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("kit", "0005_auditevent"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
