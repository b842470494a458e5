# One-line candidate names and interview titles (issue 15): validators only, no DDL.

from django.db import migrations, models

import core.validators


class Migration(migrations.Migration):
    dependencies = [
        ("interviews", "0006_interview_interviewers_wanted"),
    ]

    operations = [
        migrations.AlterField(
            model_name="candidate",
            name="name",
            field=models.CharField(max_length=200, validators=[core.validators.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="interview",
            name="title",
            field=models.CharField(max_length=120, validators=[core.validators.validate_one_line]),
        ),
    ]
