"""The rating protocol's models, moved here from the annotations app.

annotations/0007 renamed their tables to this app's names; this takes the
models into this app's state without touching the tables, and moves their
content types (so permissions and admin history stay attached).
"""

import django.db.models.deletion
from django.db import migrations, models


MOVED = ["rating", "bestworstjudgment"]


def move_content_types(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="annotations", model__in=MOVED).update(app_label="rating")


def move_content_types_back(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="rating", model__in=MOVED).update(app_label="annotations")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("annotations", "0007_protocol_models_move"),
        ("studies", "0004_alter_study_protocol"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="BestWorstJudgment",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "position",
                            models.PositiveIntegerField(help_text="The tuple's index in the block's tuples."),
                        ),
                        (
                            "documents",
                            models.JSONField(help_text="Document ids of the tuple, in the block's order."),
                        ),
                        ("value", models.PositiveIntegerField(blank=True, null=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "assignment",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="judgments",
                                to="annotations.assignment",
                            ),
                        ),
                        (
                            "best",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="studies.document",
                            ),
                        ),
                        (
                            "worst",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="studies.document",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["assignment", "position"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("assignment", "position"), name="judgment_unique_tuple"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("best", models.F("worst")), _negated=True),
                                name="judgment_best_is_not_worst",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="Rating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("score", models.IntegerField()),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "assignment",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ratings",
                                to="annotations.assignment",
                            ),
                        ),
                        (
                            "document",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ratings",
                                to="studies.document",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["assignment", "document"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("assignment", "document"), name="rating_unique_document"
                            )
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
