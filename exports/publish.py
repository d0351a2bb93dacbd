"""A report's main tables for a paper: LaTeX (booktabs) and CSV.

Each protocol says which tables are its main ones (Protocol.publish_tables,
from the report JSON); this module only writes them. A missing figure is
written as "n/a" and its reason goes to the table's notes, once.
"""

import csv
import io
import zipfile
from dataclasses import dataclass, field

from reports.metrics.ranking import ranks_two_or_more

from .spreadsheet import spreadsheet_safe

LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


@dataclass(frozen=True)
class Column:
    label: str
    latex: str = ""  # the header in LaTeX when it needs math (e.g. r"Token $\alpha$")
    digits: int | None = None  # a number column: rounded to this many decimals, right-aligned


@dataclass
class Table:
    name: str  # the file name (CSV) and label (LaTeX): letters, digits, - and _
    caption: str
    columns: list
    rows: list  # tuples, one cell per column; None is a missing figure
    notes: list = field(default_factory=list)

    def formatted_rows(self):
        """The rows as the CSV writes them: numbers rounded, a missing figure as n/a."""
        return [
            [_cell(value, column, latex=False) for value, column in zip(row, self.columns, strict=True)]
            for row in self.rows
        ]


def latex_escape(text):
    return "".join(LATEX_SPECIAL.get(char, char) for char in str(text))


def _cell(value, column, *, latex):
    if value is None:
        return "n/a"
    if column.digits is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.{column.digits}f}"
    return latex_escape(value) if latex else value


def latex_table(table, *, prefix):
    align = "".join("r" if column.digits is not None else "l" for column in table.columns)
    header = " & ".join(column.latex or latex_escape(column.label) for column in table.columns)
    lines = [
        r"\begin{table}[t]", r"\centering", f"\\caption{{{latex_escape(table.caption)}}}",
        f"\\label{{tab:{prefix}-{table.name}}}", f"\\begin{{tabular}}{{{align}}}", r"\toprule", header + r" \\",
        r"\midrule",
    ]  # fmt: skip
    for row in table.rows:
        lines.append(
            " & ".join(
                _cell(value, column, latex=True) for value, column in zip(row, table.columns, strict=True)
            )
            + r" \\"
        )
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip{\footnotesize " + latex_escape(" ".join(table.notes)) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def latex_document(tables, *, study, report):
    """The tables as LaTeX to \\input into a paper (needs \\usepackage{booktabs})."""
    head = [
        f"% Tables of study {study.slug}: {study.title}",
        f"% From report {report.pk}, finished {report.finished_at:%Y-%m-%d %H:%M} UTC."
        if report.finished_at
        else "",
        "% Needs \\usepackage{booktabs} in the preamble.",
    ]
    return (
        "\n".join(line for line in head if line)
        + "\n\n"
        + "\n\n".join(latex_table(table, prefix=study.slug) for table in tables)
        + "\n"
    )


def csv_text(table):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([spreadsheet_safe(column.label) for column in table.columns])
    for row in table.formatted_rows():
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return buffer.getvalue()


def csv_archive(tables):
    """A zip of one CSV a table, plus notes.txt with each table's caption and notes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        notes = []
        for table in tables:
            archive.writestr(f"{table.name}.csv", csv_text(table))
            notes.append(
                f"{table.name}.csv: {table.caption}" + (f" {' '.join(table.notes)}" if table.notes else "")
            )
        archive.writestr("notes.txt", "\n".join(notes) + "\n")
    return buffer.getvalue()


def ranking_tables(result, *, score_label, key="ranking"):
    """The report's ranking `key` as a table, when it ranks two systems or more (else none)."""
    ranking = result.get(key)
    if not ranks_two_or_more(ranking):
        return []
    return [ranking_table(ranking, score_label=score_label, name=key.replace("_", "-"))]


def ranking_table(ranking, *, score_label, name="ranking"):
    """A ranking with significance (reports/metrics/ranking.py) as a table: rank, cluster,
    system, score, its interval and n; the caption names the test and its settings."""
    level = round(ranking["level"] * 100)
    resamples = f", {ranking['resamples']:,} resamples" if ranking.get("resamples") else ""
    direction = "higher is better" if ranking["higher_is_better"] else "lower is better"
    return Table(
        name=name,
        caption=(
            f"Systems ranked by {score_label.lower()} ({direction}), with {level}% bootstrap intervals "
            f"({ranking['bootstrap_resamples']:,} resamples of the items). Systems in one cluster are not "
            f"separated by the {ranking['test']} test{resamples} at p < {ranking['alpha']}."
        ),
        columns=[Column("Rank", digits=0), Column("Cluster", digits=0), Column("System"),
                 Column(score_label, digits=3), Column(f"{level}% low", rf"{level}\% low", 3),
                 Column(f"{level}% high", rf"{level}\% high", 3), Column("n", digits=0)],
        rows=[(row["rank"], row["cluster"], row["system"], row["score"], row["low"], row["high"], row["items"])
              for row in ranking["systems"]],
        notes=[f"Not ranked, no scores: {', '.join(ranking['unscored'])}."] if ranking.get("unscored") else [],
    )  # fmt: skip
