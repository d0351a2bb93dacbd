"""Pseudonymous annotator ids: stable within a study, unlinkable across studies.

Analysts see these instead of platform ids (e.g. PROLIFIC_PID). The id is a
keyed hash (HMAC-SHA256) of the study and the worker under a server secret
(PSEUDONYM_SECRET, by default derived from SECRET_KEY): whoever knows the
study, its join link and a worker's platform id still cannot recompute it,
and the same worker's ids in two studies cannot be matched.
"""

from django.conf import settings
from django.utils.crypto import salted_hmac

from accounts.models import Worker

_SALT = "falte.annotator-pseudonym"


def annotator_pseudonym(study_pk, worker_pk):
    digest = salted_hmac(
        _SALT, f"{study_pk}:{worker_pk}", secret=settings.PSEUDONYM_SECRET, algorithm="sha256"
    ).hexdigest()
    return "A" + digest[:10]


def pseudonyms_of(study_pk):
    """A function worker pk -> pseudonym in the study, hashing each worker once (reports, exports).

    Automatic evaluators (platform "model") are not people: they keep their key.
    """
    known = dict(
        Worker.objects.filter(platform=Worker.Platform.MODEL, assignments__study_id=study_pk)
        .values_list("pk", "external_id")
        .distinct()
    )

    def pseudonym(worker_pk):
        if worker_pk not in known:
            known[worker_pk] = annotator_pseudonym(study_pk, worker_pk)
        return known[worker_pk]

    return pseudonym
