"""What every crowd platform client gives (crowd/prolific.py, crowd/mturk.py) and how to get one.

A client is built from the environment (tokens and keys never sit in the
database or the config) and is the only code that talks to its platform.
Planning methods write ledger rows in status *planned* (crowd/ledger.py);
nothing leaves the machine until ledger.send() calls perform().
"""

from .models import Platform


class PlatformClient:
    platform = ""

    def create_listing(self, study, *, user, places, **options):
        """Create the platform's draft (Prolific study, HIT) for `study`; return the Listing row."""
        raise NotImplementedError

    def plan_approvals(self, listing, *, user):
        """Plan an approval of every submission the platform holds for work submitted here."""
        raise NotImplementedError

    def plan_rejection(self, listing, assignment, *, user, reason):
        """Plan the rejection of one worker's submission, with the reason they will read."""
        raise NotImplementedError

    def plan_bonus(self, listing, worker, *, user, amount, reason, rule):
        """Plan one bonus of `amount` (the listing's currency) under bonus rule `rule`."""
        raise NotImplementedError

    def perform(self, entry):
        """Send one ledger entry; return the platform's answer (a JSON-able dict) or raise PlatformError."""
        raise NotImplementedError


_factories = {}


def register(platform, factory):
    """factory(sandbox) -> PlatformClient. Tests register one that points at a local server."""
    _factories[platform] = factory


def client_for(platform, *, sandbox=False):
    if platform not in _factories:
        raise LookupError(f"no client for {platform}; known: {', '.join(Platform.values)}")
    return _factories[platform](sandbox)


def client_of_entry(entry):
    return client_for(entry.platform, sandbox=entry.sandbox)
