"""Create the level ladder and the persona groups. No questions: an empty
database imports exactly the questions it is given."""

from django.db import migrations

LADDER = [
    ("L3", 3, "Engineer"),
    ("L4", 4, "Engineer II"),
    ("L5", 5, "Senior Engineer"),
    ("L6", 6, "Staff Engineer"),
    ("L7", 7, "Principal Engineer"),
]
GROUPS = ["Recruiters", "Calibration leads", "Interviewers"]


def forwards(apps, schema_editor):
    Level = apps.get_model("kit", "Level")
    Group = apps.get_model("auth", "Group")
    for name, rank, title in LADDER:
        Level.objects.get_or_create(name=name, defaults={"rank": rank, "title": title})
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("kit", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
