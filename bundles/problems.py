"""Problems found in a bundle, each tied to a file and a line."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    file: str
    line: int  # 1-based; 0 means the file as a whole
    message: str

    def __str__(self):
        return f"{self.file}:{self.line}: {self.message}"


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
