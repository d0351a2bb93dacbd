"""The review protocol's models, moved here from the annotations app.

annotations/0007 renamed their tables to this app's names; this takes the
models into this app's state without touching the tables, and moves their
content types (so permissions and admin history stay attached).
"""

import django.db.models.deletion
from django.db import migrations, models


MOVED = ["reviewitem", "reviewanswer"]


def move_content_types(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="annotations", model__in=MOVED).update(app_label="review")


def move_content_types_back(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label="review", model__in=MOVED).update(app_label="annotations")


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
                    name="ReviewItem",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("position", models.PositiveIntegerField(help_text="Order in the items file.")),
                        (
                            "evaluator",
                            models.CharField(
                                help_text="The real name: never shown to reviewers.", max_length=200
                            ),
                        ),
                        (
                            "label",
                            models.CharField(
                                help_text='What reviewers see, e.g. "Evaluator A".', max_length=40
                            ),
                        ),
                        ("span_text", models.TextField(blank=True)),
                        ("explanation", models.TextField(blank=True)),
                        (
                            "occurrence",
                            models.PositiveIntegerField(
                                blank=True, help_text="Which occurrence was meant (1-based).", null=True
                            ),
                        ),
                        (
                            "span_status",
                            models.CharField(
                                choices=[
                                    ("found", "Found in the output"),
                                    ("not_found", "Not found in the output"),
                                    ("no_span", "No span given"),
                                ],
                                max_length=16,
                            ),
                        ),
                        (
                            "locations",
                            models.JSONField(
                                blank=True,
                                default=list,
                                help_text="[[segment, start, end], ...] highlighted.",
                            ),
                        ),
                        (
                            "document",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="review_items",
                                to="studies.document",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["document", "position"],
                    },
                ),
                migrations.CreateModel(
                    name="ReviewAnswer",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("answers", models.JSONField(default=dict)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "assignment",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="review_answers",
                                to="annotations.assignment",
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="answers",
                                to="review.reviewitem",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["assignment", "item__position"],
                    },
                ),
                migrations.AddConstraint(
                    model_name="reviewitem",
                    constraint=models.UniqueConstraint(
                        fields=("document", "position"), name="review_item_unique_position"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="reviewanswer",
                    constraint=models.UniqueConstraint(
                        fields=("assignment", "item"), name="review_answer_unique_item"
                    ),
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
