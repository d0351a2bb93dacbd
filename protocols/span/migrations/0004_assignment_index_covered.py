"""The spans' own index on assignment_id goes: annotation_unique_client_id (assignment_id,
client_id) leads with the same column and serves the same look-ups (docs/decisions.md).

Only the index is dropped. Django's AlterField would also drop and re-add the foreign key, which
checks every stored span again under a lock that stops writes to the table for as long.
"""

import django.db.models.deletion
from django.db import migrations, models


def _single_column_indexes(schema_editor, model):
    table = model._meta.db_table
    with schema_editor.connection.cursor() as cursor:
        found = schema_editor.connection.introspection.get_constraints(cursor, table)
    return [
        name
        for name, constraint in found.items()
        if constraint["index"] and not constraint["unique"] and not constraint["primary_key"]
        and constraint["columns"] == ["assignment_id"]
    ]  # fmt: skip


def drop_assignment_index(apps, schema_editor):
    model = apps.get_model("span", "ErrorAnnotation")
    quote = schema_editor.quote_name
    for name in _single_column_indexes(schema_editor, model):
        schema_editor.execute(f"DROP INDEX {quote(name)}")


def add_assignment_index(apps, schema_editor):
    model = apps.get_model("span", "ErrorAnnotation")
    if not _single_column_indexes(schema_editor, model):
        table = model._meta.db_table
        quote = schema_editor.quote_name
        name = f"{table}_assignment_id_covered"
        schema_editor.execute(f"CREATE INDEX {quote(name)} ON {quote(table)} ({quote('assignment_id')})")


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0012_allocation_record"),
        ("span", "0003_suggestions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="errorannotation",
                    name="assignment",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="annotations",
                        to="annotations.assignment",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_assignment_index, add_assignment_index)],
        ),
    ]
