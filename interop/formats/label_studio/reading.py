"""Reading a Label Studio JSON export (the format: __init__.py), twice and a task at a time.

The first reading checks every task and keeps only what the whole file decides: which
data field is the text, which offset convention the spans follow (and the problems of
spans matching neither), and the Survey of interop/parts.py (labels, links, models,
annotators). The second reading gives each task as a part (a document and its
annotations, its spans placed by that convention), so an import writes its bundle a
task at a time and holds nothing the size of the file. `read` gathers the parts into
one Corpus, for what needs the file whole (a review import, a study's documents step).
"""

from bundles.problems import Problems

from ...corpus import Corpus
from ...parts import Parts, Surveying
from ...reading import json_array_items
from ..offsets import CODE_POINTS, UTF16
from . import tasks as t


def read(path, name, problems, *, text_field=None):
    tasks = read_parts(path, name, problems, text_field=text_field)
    if tasks is None:
        return Corpus()
    corpus = Corpus(notes=list(tasks.survey.notes))
    for documents, annotations in tasks.parts():
        corpus.documents += documents
        corpus.annotations += annotations
    links = (link.label for annotation in corpus.annotations for link in annotation.links if link.label)
    corpus.link_labels = list(dict.fromkeys(links))
    return corpus


def read_parts(path, name, problems, *, text_field=None):
    """The export as parts (interop/parts.py) after a first reading of every task; None when that
    reading found problems (added to `problems`: nothing of the file is to be imported)."""
    first = _FirstReading(name, text_field)
    reading = Problems()
    for line, task in json_array_items(path, name, reading, what="task"):
        first.task(line, task)
    if reading:  # a file that cannot be read to its end is that problem alone
        problems.items += reading.items
        return None
    settled = first.settle(problems)
    if settled is None:
        return None
    field, convention = settled
    return _Tasks(path, name, problems, field, convention, first.surveying.survey())


class _Tasks(Parts):
    """The second reading: each task as a part, [its document], [its annotations]."""

    def __init__(self, path, name, problems, field, convention, survey):
        self.path, self.name, self.problems = path, name, problems
        self.field, self.convention, self.survey = field, convention, survey

    def parts(self):
        position = 0
        for line, task in json_array_items(self.path, self.name, self.problems, what="task"):
            if not t.is_task(task):
                continue
            position += 1
            document = t.document(task, position, self.field, line)
            # The first reading said every problem and note: none is said twice.
            annotations, spans = t.annotations(
                task, document.id, line, self.name, Problems(), [], document.meta
            )
            for region, annotation in spans:
                points, units, as_points, _, utf16 = t.matching(document.text, region)
                if units and (self.convention == UTF16 or not points):
                    region.start, region.end = utf16
                elif not points:
                    # The file changed since the first reading, which found no such span.
                    self.problems.add(self.name, line, f"{annotation.item}, region {region.id}: the file changed "
                                                       "while it was read")  # fmt: skip
                    continue
                region.text = region.text or as_points
                annotation.regions.append(region)
            yield [document], annotations


class _FirstReading:
    """What the whole file decides, gathered a task at a time; the tasks themselves are not kept."""

    def __init__(self, name, given):
        self.name, self.given = name, given
        self.shapes = Problems()  # items that are no task: said first, whatever else is wrong
        self.problems = Problems()  # of the tasks' annotations, regions and links
        self.notes = []
        self.tasks = 0
        self.common = None  # the data fields that are text in every task so far
        self.lacking = []  # the ids of tasks whose given text field is no text
        self.placing = {}  # a field that may be the text field -> _Placing of the spans in it
        self.surveying = Surveying()

    def task(self, line, task):
        if not t.is_task(task):
            self.shapes.add(self.name, line, 'a task must be an object with "data": {...}')
            return
        self.tasks += 1
        data = task["data"]
        if self.given is not None:
            fields = [self.given] if isinstance(data.get(self.given), str) else []
            if not fields:
                self.lacking.append(str(task.get("id", line)) if len(self.lacking) <= 10 else "")
        else:
            fields = t.text_fields(task)
            self.common = fields if self.common is None else [key for key in self.common if key in fields]
            fields = self.common
            for gone in set(self.placing) - set(fields):
                del self.placing[gone]
        identifier = t.document_id(task, self.tasks)
        annotations, spans = t.annotations(task, identifier, line, self.name, self.problems, self.notes)
        for field in fields:
            placing = self.placing.setdefault(field, _Placing())
            if len(fields) > 1:  # which field the spans fit tells a text field from a title
                placing.fitting += t.regions_fitting(task, data[field])
            placing.add(spans, data[field], self.name, line)
        # The survey takes the regions' labels and ids, which placing them does not change.
        for region, annotation in spans:
            annotation.regions.append(region)
        self.surveying.add(annotations)

    def settle(self, problems):
        """(the text field, the offset convention); None when the file cannot be imported: then
        every problem is added to `problems`, else the tasks' problems and the spans' notes."""
        problems.items += self.shapes.items
        field = self._text_field(problems)
        if field is None:
            return None
        placing = self.placing[field]
        problems.items += self.problems.items + placing.problems.items
        if problems:
            return None
        convention = UTF16 if placing.only_units > placing.only_points else CODE_POINTS
        converted = placing.moved_units_only + (placing.moved_either if convention == UTF16 else 0)
        if converted:
            self.notes.append(f"{self.name}:0: {converted} span(s) counted in UTF-16 code units (older Label "
                              "Studio) were read as such")  # fmt: skip
        self.surveying.notes = self.notes
        return field, convention

    def _text_field(self, problems):
        """The data field holding each task's text: the given one, or the one string field of every
        task (of several, the one the spans fit best)."""
        name = self.name
        if not self.tasks:
            problems.add(name, 0, "no tasks in the file")
            return None
        if self.given is not None:
            if self.lacking:
                problems.add(name, 0, f"text field {self.given!r} is not text in tasks {', '.join(self.lacking[:10])}"
                                      f"{' ...' if len(self.lacking) > 10 else ''}")  # fmt: skip
                return None
            return self.given
        common = self.common
        if not common:
            problems.add(
                name, 0, "no field of data is text in every task; name the text field (--text-field)"
            )
            return None
        if len(common) > 1:
            fitting = {key: self.placing[key].fitting for key in common}
            best = max(fitting.values())
            if best and list(fitting.values()).count(best) == 1:
                return max(fitting, key=fitting.get)
            problems.add(name, 0, f"data has {len(common)} fields that are text in every task "
                                  f"({', '.join(common)}); name the one annotated with --text-field")  # fmt: skip
            return None
        return common[0]


class _Placing:
    """How the spans match their value.text in one text field, over the whole file: what decides
    the convention (module docstring of __init__.py), and the spans that match neither."""

    def __init__(self):
        self.fitting = 0
        self.only_units = self.only_points = 0
        self.moved_units_only = self.moved_either = 0  # spans whose UTF-16 offsets are not their code points
        self.problems = Problems()

    def add(self, spans, text, name, line):
        for region, annotation in spans:
            points, units, as_points, as_units, utf16 = t.matching(text, region)
            self.only_units += units and not points
            self.only_points += points and not units
            moved = units and (region.start, region.end) != utf16
            self.moved_units_only += moved and not points
            self.moved_either += moved and points
            if points or units:
                continue
            where = f"{annotation.item}, region {region.id}"
            if not region.text:
                self.problems.add(name, line, f"{where}: [{region.start}, {region.end}) is outside the task's text "
                                              f"({len(text)} characters)")  # fmt: skip
            else:
                self.problems.add(name, line, f"{where}: value.text {region.text!r} is not the text at "
                                              f"[{region.start}, {region.end}) counted in code points ({as_points!r}) "
                                              f"nor in UTF-16 code units ({as_units!r})")  # fmt: skip
