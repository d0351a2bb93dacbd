"""Problems found in a bundle, each tied to a file and a line."""

from dataclasses import dataclass, field


def located(file, line):
    """Where a problem or a note is: `file:line`, or `file` alone when the line is None.

    None is the line of an item that shares its line with others (a JSON export written
    on one line, as Label Studio writes it): "line 1" would locate nothing, so the
    message names the item by the tool's own ids instead (task 17, annotation 45).
    """
    return file if line is None else f"{file}:{line}"


def lines_that_tell_apart(lines, text):
    """Each item's line, or None (see `located`) where several items start on that line, and for
    every item of a `text` written on one line, where "line 1" would say nothing."""
    if "\n" not in text.strip():
        return [None] * len(lines)
    starting = {}
    for line in lines:
        starting[line] = starting.get(line, 0) + 1
    return [line if starting[line] == 1 else None for line in lines]


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None  # 1-based; 0 means the file as a whole; None: the message names the item (`located`)
    message: str

    def __str__(self):
        return f"{located(self.file, self.line)}: {self.message}"


class BundleInvalid(Exception):
    """Raised with every problem found; nothing has been written."""

    def __init__(self, problems, summary=""):
        self.problems = list(problems)
        self.summary = summary
        super().__init__(self.describe())

    def describe(self):
        lines = [str(problem) for problem in self.problems]
        if self.summary:
            lines.append(self.summary)
        return "\n".join(lines)


@dataclass
class Problems:
    """Collects problems so that one run reports all of them, not just the first."""

    items: list = field(default_factory=list)
    warnings: list = field(default_factory=list)  # worth a look, but they do not stop the import

    def add(self, file, line, message):
        self.items.append(Problem(file, line, message))

    def warn(self, file, line, message):
        self.warnings.append(Problem(file, line, f"warning: {message}"))

    def __bool__(self):
        return bool(self.items)

    def raise_if_any(self, summary=""):
        if self.items:
            raise BundleInvalid(self.items, summary)
