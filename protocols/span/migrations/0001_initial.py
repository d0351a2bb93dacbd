"""The span protocol's models, moved here from the annotations app.

annotations/0007 renamed their tables to this app's names; this takes the
models into this app's state without touching the tables, and moves their
content types (so permissions and admin history stay attached).
"""

import django.db.models.deletion
from django.db import migrations, models


MOVED = ["errorannotation"]


def move_content_types(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="annotations", model__in=MOVED).update(app_label="span")


def move_content_types_back(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="span", model__in=MOVED).update(app_label="annotations")


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
                    name="ErrorAnnotation",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("start", models.PositiveIntegerField()),
                        ("end", models.PositiveIntegerField()),
                        ("text", models.TextField()),
                        ("paired_start", models.PositiveIntegerField(blank=True, null=True)),
                        ("paired_end", models.PositiveIntegerField(blank=True, null=True)),
                        ("paired_text", models.TextField(blank=True)),
                        ("comment", models.TextField(blank=True)),
                        ("answers", models.JSONField(blank=True, default=dict)),
                        (
                            "client_id",
                            models.CharField(
                                help_text="Client-made id: saves are idempotent.", max_length=64
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "assignment",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="annotations",
                                to="annotations.assignment",
                            ),
                        ),
                        (
                            "category",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="annotations",
                                to="studies.category",
                            ),
                        ),
                        (
                            "paired_segment",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="studies.segment",
                            ),
                        ),
                        (
                            "segment",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="studies.segment",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["assignment", "segment__index", "start", "id"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("start__gte", 0), ("start__lt", models.F("end"))),
                                name="annotation_span_valid",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(
                                        ("paired_end__isnull", True),
                                        ("paired_segment__isnull", True),
                                        ("paired_start__isnull", True),
                                    ),
                                    models.Q(
                                        ("paired_end__isnull", False),
                                        ("paired_segment__isnull", False),
                                        ("paired_start__gte", 0),
                                        ("paired_start__lt", models.F("paired_end")),
                                    ),
                                    _connector="OR",
                                ),
                                name="annotation_paired_all_or_none",
                            ),
                            models.UniqueConstraint(
                                fields=("assignment", "client_id"), name="annotation_unique_client_id"
                            ),
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
