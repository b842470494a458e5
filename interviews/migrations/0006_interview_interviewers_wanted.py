from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_from_slots(apps, schema_editor):
    """Interviews still linked to their template slot take its interviewer count."""
    Interview = apps.get_model("interviews", "Interview")
    LoopSlot = apps.get_model("kit", "LoopSlot")
    count = LoopSlot.objects.filter(pk=OuterRef("slot_id")).values("interviewer_count")
    Interview.objects.filter(slot__isnull=False).update(interviewers_wanted=Subquery(count))


class Migration(migrations.Migration):
    dependencies = [
        ("interviews", "0005_fk_indexes_covered_by_unique_constraints"),
        ("kit", "0005_auditevent"),
    ]

    operations = [
        migrations.AddField(
            model_name="interview",
            name="interviewers_wanted",
            field=models.PositiveSmallIntegerField(
                db_default=1, default=1, help_text="interviewers the panel needs, shadows aside"
            ),
        ),
        migrations.RunPython(copy_from_slots, migrations.RunPython.noop),
    ]
