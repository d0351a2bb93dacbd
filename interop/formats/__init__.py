"""The formats, by the name `--format` takes. Each module has:

- ``read(path, name, problems) -> Corpus``: every problem added to ``problems``
  (bundles.problems.Problems) as ``(name, line, "item: what is wrong")``; a
  file with problems may return a partial corpus, which is never written;
- ``write(corpus, path)``: the corpus in the format, to a file (or a
  directory, where the format is one).

A reader may take keyword options after ``problems`` (Label Studio:
``text_field``); the import passes those its signature names and reports any
other as a problem. ``registry.py`` maps each ``--format`` name to its module,
imported only when asked for.
"""
