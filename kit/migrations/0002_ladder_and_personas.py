"""Create the level ladder and the persona groups. No questions: an empty
database imports exactly the questions it is given."""

from django.db import migrations

from kit.ladder import ensure_ladder


def forwards(apps, schema_editor):
    ensure_ladder(apps.get_model("kit", "Level"), apps.get_model("auth", "Group"))


class Migration(migrations.Migration):
    dependencies = [
        ("kit", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
