"""Quality checks of translation studies (docs/translation-studies.md, "Quality checks"): degraded
copies of a study's documents, handed out in the stream like attention checks, scored against
their injected errors, and the per-rater reliability test of the report.

A check is a Document of kind ATTENTION that keeps its original's input_id, system, source and
meta (sources, references), with meta[Document.COPY_OF] = the original's external_id and
meta["quality_check"] = {"mode", "seed", "segments": [{"index", "start", "end", "window", "removed",
"inserted", "donor", "severity"}]}: per degraded segment, the changed code-point span in the
copy (empty for a dropped phrase: where it was), the window in which a marked error catches it,
and the expected severity (Major). That is the check's gold.

- making.py: quality_checks_make, the researcher's command and the console's call;
- scoring.py: a worker's checks against their injected errors (Protocol.score_against_gold);
- report.py: the report's `quality_control`, each rater's Mann-Whitney U test.
"""
