"""The judgments of each protocol move to the protocol's own app (protocols/).

The tables are renamed to the new apps' names here; the models leave this
app's state, and each protocol app's 0001_initial takes them into its state
without touching the database (SeparateDatabaseAndState). Rows, ids and
foreign keys stay as they are.
"""

from django.db import migrations

MOVED = {
    "errorannotation": "span_errorannotation",
    "rating": "rating_rating",
    "bestworstjudgment": "rating_bestworstjudgment",
    "reviewitem": "review_reviewitem",
    "reviewanswer": "review_reviewanswer",
}


class Migration(migrations.Migration):
    dependencies = [("annotations", "0006_assignment_activity_credited_to")]

    operations = [
        *(migrations.AlterModelTable(name=model, table=table) for model, table in MOVED.items()),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="errorannotation"),
                migrations.DeleteModel(name="rating"),
                migrations.DeleteModel(name="bestworstjudgment"),
                migrations.DeleteModel(name="reviewanswer"),
                migrations.DeleteModel(name="reviewitem"),
            ]
        ),
    ]
