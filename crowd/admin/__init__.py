"""Listings, the ledger and the workforce dashboard in admin.

The ledger is read-only here: rows are planned by the listing pages and
actions and sent by "Send", which first shows what would be sent (the dry
run) and sends only after the researcher confirms. Every action and view
asks the access policy: only who manages a study reads or sends its ledger.
"""

from . import ledger, listings  # noqa: F401 (registers the admins)
