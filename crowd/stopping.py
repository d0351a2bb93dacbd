"""A study that stopped by its allocation rule (annotations/services/stopping.study_stop) stops
its crowd listings too: a stop row in the ledger for each, planned by the rule and sent once the
study's closing is committed. A row that fails (the platform is down, no client configured here)
stays in the ledger, where the researchers see it and send it again."""

import logging

from django.db import transaction
from django.dispatch import receiver

from annotations.signals import study_stopped

from . import ledger, platforms
from .models import LedgerEntry, Listing

log = logging.getLogger(__name__)


# Listing.status values (as each platform reports them) of a listing no new worker can start.
STOPPED = ("AWAITING REVIEW", "COMPLETED", "Disposed", "Reviewable")


@receiver(study_stopped, dispatch_uid="crowd-stop-listings")
def listings_stop(sender, study, **kwargs):
    planned = []
    for listing in Listing.objects.filter(study=study).exclude(status__in=STOPPED):
        try:
            client = platforms.client_for(listing.platform, sandbox=listing.sandbox)
        except (LookupError, ValueError) as error:  # no credentials in this process's environment
            log.warning("listing %s of study %s not stopped: %s", listing.pk, study.pk, error)
            continue
        entry, _created = client.plan_stop(listing, user=None)
        if entry.status in ledger.SENDABLE:
            planned.append(entry.pk)
    if planned:
        transaction.on_commit(lambda: _send(planned))


def _send(entry_ids):
    entries = LedgerEntry.objects.filter(pk__in=entry_ids).select_related("study")
    ledger.send_stops(list(entries), client_for=platforms.client_of_entry)
