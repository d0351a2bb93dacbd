"""MQM TSV files (interop/formats/mqm_tsv.py) in and out of translation studies
(docs/translation-studies.md, "An MQM file into a study, and a study out as one").

An import makes a new MQM study of the file (writing.py, after checking.py's first pass):

- one Document per (system, doc): input_id the doc, one Segment per seg_id of the doc, in order
  (numeric order when every seg_id of the file is a number, else the file's order), the target
  text without its markers, Document.meta["sources"] the sources, index by index;
- one worker per rater (platform "import", as every interop import names its annotators) and one
  submitted Assignment per (rater, document), whose `items` are the indices of the segments the
  rater rated: a document's segments are often shared out among several raters;
- a TranslationError per error line: its span in the target, or in the source when the <v> is
  there; a whole-segment category (Non-translation) covers the whole target when nothing is
  marked; an error with no span is a [missing] marker. A No-error line adds no row: the segment is
  rated (it is in the assignment's items) and has no error;
- the taxonomy: one category per category of the file, its label the file's name ("Accuracy/
  Mistranslation"), which the study's weights match; the config: the severities of the file,
  mildest first, and the weights given (the common scheme otherwise).

Segment indices are shared by every system's translation of a doc (the report compares systems
segment by segment), so a system the file has no line for on some seg_id has no segment there.

Two passes over the file, neither holding it whole: the first checks every line and keeps only
what the second needs (which seg_ids, raters and severities there are, a digest of each text to
find two lines disagreeing on one segment's text); the second, in one transaction, writes the
rows in batches (rows.py: COPY on PostgreSQL). A file with any problem writes nothing, and every
problem names the file, the line and what is wrong.

An export (exporting.py) writes an MQM or ESA study as such a file.
"""

from .exporting import NotErrorSpans, export_mqm
from .writing import STUDY_FIELDS, import_mqm

__all__ = ["STUDY_FIELDS", "NotErrorSpans", "export_mqm", "import_mqm"]
