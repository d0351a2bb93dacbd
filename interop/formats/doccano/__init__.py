"""doccano's JSONL exports of sequence-labelling projects (docs/interop-formats.md).

One JSON object a line, in either of the two shapes doccano's export writes:

- without relations: ``{"id": 1, "text": "...", "label": [[0, 2, "ORG"]], "Comments": [...]}``
- with relations: ``{"id": 1, "text": "...", "entities": [{"id": 7, "label": "ORG",
  "start_offset": 0, "end_offset": 2}], "relations": [{"id": 3, "from_id": 7, "to_id": 8,
  "type": "worksFor"}], "Comments": [...]}``

and the two of doccano 1.x: ``"labels"`` tuples (its "JSONL (text label)"), and
``"annotations": [{"label": 4, "start_offset", "end_offset", "user": 1, ...}]`` (its
"JSONL"), every user's spans on one line, labels given by their id in the project.

Every other field of a line is the example's own metadata (doccano spreads it into the
line) and is kept in ``Document.meta``. A line without ``id`` is numbered by its line.

Annotators: doccano exports one ``{username}.jsonl`` per member (unless the project is
collaborative, when it writes one ``all.jsonl``). ``path`` may be such a file or the
folder of them: a file's name is its annotator ("all" is the project as a whole, named
"doccano"), unless a line carries a ``user`` or ``annotator`` field, which wins.

Offsets: doccano's annotation page counts UTF-16 code units (JavaScript string
indices: an emoji outside the Basic Multilingual Plane counts two), so they are converted
to code points here and back on writing. A file made by a script that counts code points
(Python ``len``) is read with ``offsets=CODE_POINTS``. Projects with "count grapheme
clusters as one character" switched on count graphemes, which is not read.
"""

from ..offsets import CODE_POINTS, UTF16
from .reading import read, read_parts
from .writing import write

__all__ = ["read", "read_parts", "write", "CODE_POINTS", "UTF16"]
