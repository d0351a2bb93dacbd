"""The table of the database cache, where the API's rate limits count on the embedded default.

settings.CACHES uses it when neither CACHE_URL nor a Redis broker is set. It is made
whatever the cache is now, so that a site which later drops its broker finds it there;
on Redis it stays empty. Made here so that `migrate` (which `make demo` and every
deploy run) sets it up: no `createcachetable` step.
"""

from django.core.management import call_command
from django.db import migrations

TABLE = "api_cache"


def create_cache_table(apps, schema_editor):
    # Given a table name, createcachetable makes that table (if it is missing) whatever
    # settings.CACHES says.
    call_command("createcachetable", TABLE, database=schema_editor.connection.alias, verbosity=0)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(TABLE)}")


class Migration(migrations.Migration):
    dependencies = []

    operations = [migrations.RunPython(create_cache_table, drop_cache_table)]
