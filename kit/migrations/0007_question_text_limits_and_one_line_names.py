# Question text length limits and one-line names (issue 15): validators only, no DDL.

import django.core.validators
from django.db import migrations, models

import core.validators


class Migration(migrations.Migration):
    dependencies = [
        ("kit", "0006_auditevent_moved_to_core"),
    ]

    operations = [
        migrations.AlterField(
            model_name="competency",
            name="name",
            field=models.CharField(max_length=120, validators=[core.validators.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="followup",
            name="text",
            field=models.TextField(validators=[django.core.validators.MaxLengthValidator(1000)]),
        ),
        migrations.AlterField(
            model_name="level",
            name="name",
            field=models.CharField(
                max_length=20, unique=True, validators=[core.validators.validate_one_line]
            ),
        ),
        migrations.AlterField(
            model_name="level",
            name="title",
            field=models.CharField(
                blank=True, max_length=60, validators=[core.validators.validate_one_line]
            ),
        ),
        migrations.AlterField(
            model_name="loopslot",
            name="title",
            field=models.CharField(max_length=120, validators=[core.validators.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="looptemplate",
            name="name",
            field=models.CharField(max_length=120, validators=[core.validators.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="question",
            name="title",
            field=models.CharField(max_length=120, validators=[core.validators.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="outline",
            field=models.TextField(validators=[django.core.validators.MaxLengthValidator(10000)]),
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="prompt",
            field=models.TextField(validators=[django.core.validators.MaxLengthValidator(5000)]),
        ),
        migrations.AlterField(
            model_name="role",
            name="name",
            field=models.CharField(
                max_length=120, unique=True, validators=[core.validators.validate_one_line]
            ),
        ),
        migrations.AlterField(
            model_name="rubricitem",
            name="text",
            field=models.TextField(validators=[django.core.validators.MaxLengthValidator(500)]),
        ),
    ]
