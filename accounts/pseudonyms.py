"""Pseudonymous annotator ids: stable within a study, unlinkable across studies.

Analysts see these instead of platform ids (e.g. PROLIFIC_PID). The study's
join key is secret, so the id cannot be recomputed from a worker's id alone.
"""

import hashlib


def annotator_pseudonym(study_pk, join_key, worker_pk):
    digest = hashlib.sha256(f"{study_pk}:{join_key}:{worker_pk}".encode()).hexdigest()
    return "A" + digest[:10]
