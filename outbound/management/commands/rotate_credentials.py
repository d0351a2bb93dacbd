from django.core.management.base import BaseCommand, CommandError

from outbound.credentials import KeyUnavailable, rotate_all


class Command(BaseCommand):
    help = (
        "Encrypt every stored study key again with the first of CREDENTIALS_KEYS. Put the new key first, "
        "keep the old ones after it, run this, then remove the old ones (docs/deployment.md)."
    )

    def handle(self, **options):
        try:
            rotated = rotate_all()
        except KeyUnavailable as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{rotated} study key(s) encrypted with the first of CREDENTIALS_KEYS")
