"""Other tools' annotation files in and out: Label Studio, doccano, factgenie, Potato (docs/interop.md).

Each format reads a file into a :class:`interop.corpus.Corpus` (whole documents,
labelled regions, links) and writes one back; the core turns a corpus into a
study bundle (segments, spans, paired spans) and a study back into a corpus.
"""
