from cryptography.fernet import Fernet
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Print a new key for CREDENTIALS_KEYS (it encrypts the study keys researchers store)."

    def handle(self, **options):
        self.stdout.write(Fernet.generate_key().decode("ascii"))
