"""The growth chart of docs/benchmarks.md: peak memory and time of the whole-study paths at three sizes.

Reads `docs/images/growth.csv` (one row per path and size, the figures the bench scripts printed
and docs/benchmarks.md quotes) and draws `docs/images/growth.svg`: for each path, peak RSS and
CPU time relative to its smallest size, against the size relative to its smallest. A flat path
stays at 1 on the left panel (the target: at most 1.2 at the largest size); a path that grows
with the study climbs with the size. CPU, not wall time: the machine is shared and its load
moved between 1 and 35 while these were measured. Paths named "(before)" are the code before
the change, dashed.

    .venv/bin/python bench/growth_chart.py
"""

import csv
from pathlib import Path

import matplotlib

matplotlib.use("svg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

TIMES = FuncFormatter(lambda value, _: f"{value:g}x")

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "images" / "growth.csv"
CHART = ROOT / "docs" / "images" / "growth.svg"
MEMORY_TARGET = 1.2


def read_paths(path=FIGURES):
    """{path name: [(size, peak RSS MB, CPU s or None)] in increasing size}."""
    paths = {}
    with path.open(newline="", encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            cpu = float(row["cpu_s"]) if row["cpu_s"] else None
            paths.setdefault(row["path"], []).append((float(row["size"]), float(row["peak_rss_mb"]), cpu))
    return {name: sorted(points) for name, points in paths.items()}


LEGEND_COLUMNS = 3


def draw(paths):
    # The legend goes under the two plots, in columns: the figure grows with the paths measured.
    legend_rows = -(-len(paths) // LEGEND_COLUMNS)
    legend_height = 0.17 * legend_rows + 0.2
    figure = Figure(figsize=(11, 4.2 + legend_height))
    memory, time = figure.subplots(1, 2)
    for number, (name, points) in enumerate(sorted(paths.items())):
        style = {"color": f"C{number}", "marker": "o", "label": name,
                 "linestyle": "--" if "before" in name else "-"}  # fmt: skip
        size0, rss0, cpu0 = points[0]
        sizes = [size / size0 for size, _, _ in points]
        memory.plot(sizes, [rss / rss0 for _, rss, _ in points], **style)
        if cpu0 and all(cpu for _, _, cpu in points):
            time.plot(sizes, [cpu / cpu0 for _, _, cpu in points], **style)
    memory.axhline(MEMORY_TARGET, color="grey", linestyle="--", linewidth=1)
    memory.text(1.02, MEMORY_TARGET, " target 1.2x", va="bottom", fontsize=8, color="grey")
    for axes, title in ((memory, "Peak RSS / smallest size"), (time, "CPU time / smallest size")):
        axes.set_xscale("log")
        axes.set_yscale("log")
        for axis in (axes.xaxis, axes.yaxis):
            axis.set_major_formatter(TIMES)
            axis.set_minor_formatter(NullFormatter())
        axes.set_yticks([1, 1.2, 1.5, 2, 3, 4, 6, 8])
        axes.set_xlabel("Study size / smallest size")
        axes.set_title(title, fontsize=10)
        axes.grid(True, which="both", linewidth=0.3)
    handles, labels = memory.get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=7, loc="lower center", ncol=LEGEND_COLUMNS, frameon=False)
    figure.tight_layout(rect=(0, legend_height / (4.2 + legend_height), 1, 1))
    return figure


def main():
    figure = draw(read_paths())
    figure.savefig(CHART, format="svg", metadata={"Date": None})
    print(f"wrote {CHART.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
