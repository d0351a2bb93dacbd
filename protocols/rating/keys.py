"""The keys of the two rating protocols (Study.protocol values)."""

LIKERT = "likert"
BWS = "bws"
