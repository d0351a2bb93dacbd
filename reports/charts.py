"""Report charts drawn by matplotlib as inline SVG: axes, ticks, a value on every bar, intervals
where the report has them; no CDN, no JavaScript, works offline (docs/decisions.md).

Every chart is a <figure>: the SVG (role="img", named by its title), a caption, and the same
figures as a table under "The figures as a table" for screen readers and for copying. A missing
figure (None) is never drawn as zero: it is written "n/a" where its bar would start, and a
series with no figure at all is left out of the legend. Text stays text in the SVG (no paths),
escaped by matplotlib's SVG writer; matplotlib's math syntax is off, so a "$" in a system name
is just a dollar sign.
"""

import hashlib
import io
import json
import re
from collections import OrderedDict
from threading import Lock

import matplotlib

matplotlib.use("svg")

from django.utils.html import format_html, format_html_join  # noqa: E402
from django.utils.safestring import mark_safe  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

PALETTE = ["#1d4f91", "#d95f02", "#1b7837", "#b2182b", "#6a3d9a", "#8c6d1f", "#01665e", "#c51b7d"]
WIDTH_IN = 7.2  # inches at 100 dpi: 720 px wide, scaled to the page by CSS
ROW_IN = 0.34
STYLE = {
    "svg.fonttype": "none",  # text as <text>, readable and selectable
    "svg.hashsalt": "falte-report",  # the same chart, the same SVG
    "text.parse_math": False,
    "font.size": 10,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
}
_CACHE, _CACHE_SIZE, _LOCK = OrderedDict(), 256, Lock()
_STYLE_ELEMENT = re.compile(r"<style[^>]*>.*?</style>", re.S)  # the page's CSP allows no inline <style>


def _legend_label(text):
    """A series' name as the legend shows it: an empty one (e.g. documents without a system) named, and
    one starting with "_" kept (matplotlib leaves such labels out of legends)."""
    text = str(text) or "(none)"
    return "\u200b" + text if text.startswith("_") else text


def _number(value, digits=3):
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _cached(kind, arguments, draw):
    key = hashlib.sha256(json.dumps([kind, arguments], sort_keys=True, default=str).encode()).hexdigest()
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    with matplotlib.rc_context(STYLE):
        svg = draw()
    with _LOCK:
        _CACHE[key] = svg
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return svg


def _svg(figure):
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = _STYLE_ELEMENT.sub("", text)
    return text.replace("<svg ", '<svg class="chart-svg" role="img" aria-hidden="false" ', 1)


def _figure(rows):
    return Figure(figsize=(WIDTH_IN, max(1.6, 0.9 + ROW_IN * rows)), dpi=100)


def _framed(svg, *, title, header, rows, note=""):
    """The SVG in a <figure> with its title and its figures as a table."""
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((c,) for c in row)),) for row in rows)
    )
    head = format_html_join("", '<th scope="col">{}</th>', ((h,) for h in header))
    labelled = svg.replace('role="img"', format_html('role="img" aria-label="{}"', title), 1)
    return format_html(
        '<figure class="chart">{}<figcaption>{}{}</figcaption><details><summary>The figures as a table</summary>'
        '<table class="report-table chart-data" tabindex="0"><thead><tr>{}</tr></thead><tbody>{}</tbody></table></details></figure>',
        mark_safe(labelled),  # noqa: S308 (matplotlib's SVG writer escaped every text it holds)
        title, format_html(" <span class='chart-note'>{}</span>", note) if note else "", head, body,
    )  # fmt: skip


def _axis(axes, *, label, low, high):
    axes.set_xlim(low, high)
    if label:
        axes.set_xlabel(label)
    axes.grid(axis="x", color="#dddddd", linewidth=0.8)
    axes.set_axisbelow(True)
    if low < 0 < high:
        axes.axvline(0, color="#555555", linewidth=0.8)


def bar_chart(rows, *, title, low=0.0, high=None, color=PALETTE[0], axis_label="", digits=3):
    """Horizontal bars for [(label, value or None)], each with its value; None is written n/a."""
    rows = [(str(label), value) for label, value in rows]
    arguments = [rows, title, low, high, color, axis_label, digits]

    def draw():
        values = [value for _, value in rows if value is not None]
        top = high if high is not None else max([*values, 0.0]) * 1.15 or 1.0
        bottom = min([low, *values]) if values else low
        figure = _figure(len(rows))
        axes = figure.add_subplot()
        positions = list(range(len(rows)))[::-1]
        for y, (_, value) in zip(positions, rows, strict=True):
            if value is None:
                axes.text(max(bottom, 0), y, "  n/a", va="center", ha="left", color="#595959", style="italic")
                continue
            axes.barh(y, value, color=color, height=0.6)
            axes.text(value, y, f" {_number(value, digits)}", va="center", ha="left" if value >= 0 else "right",
                      color="#1a1a1a")  # fmt: skip
        axes.set_yticks(positions, [label for label, _ in rows])
        axes.set_ylim(-0.7, len(rows) - 0.3)
        _axis(axes, label=axis_label, low=bottom, high=top * 1.12 if high is None else top)
        return _svg(figure)

    if all(value is None for _, value in rows):
        return format_html('<p class="chart-empty">{}: no figures yet (see the notes).</p>', title)
    svg = _cached("bar", arguments, draw)
    return _framed(
        svg,
        title=title,
        header=["", axis_label or "value"],
        rows=[(label, _number(value, digits)) for label, value in rows],
    )


def grouped_bar_chart(groups, series, *, title, labels=None, axis_label="", digits=3):
    """Bars per group (e.g. category), one per series (e.g. system or evaluator), with a legend of the
    series that have a figure; `labels` names the series in words ({key: text})."""
    labels = labels or {}
    groups = [
        (str(group), {str(name): value for name, value in by_series.items()}) for group, by_series in groups
    ]
    shown = [
        str(name) for name in series if any(by_series.get(str(name)) is not None for _, by_series in groups)
    ]
    arguments = [groups, shown, title, labels, axis_label, digits]

    def draw():
        values = [by_series.get(name) for _, by_series in groups for name in shown]
        values = [value for value in values if value is not None]
        top = max([*values, 0.0]) * 1.18 or 1.0
        bottom = min([0.0, *values])
        per_group = max(1, len(shown))
        figure = _figure(len(groups) * per_group * 0.75 + 1)
        axes = figure.add_subplot()
        height = 0.8 / per_group
        ticks, labelled = [], set()
        for g, (_, by_series) in enumerate(groups):
            base = (len(groups) - 1 - g) * 1.0
            ticks.append(base)
            for s, name in enumerate(shown):
                y = base + 0.4 - height * (s + 0.5)
                value = by_series.get(name)
                if value is None:
                    axes.text(
                        0, y, "  n/a", va="center", ha="left", color="#595959", style="italic", fontsize=8
                    )
                    continue
                legend = _legend_label(labels.get(name) or name) if name not in labelled else None
                labelled.add(name)
                axes.barh(y, value, height=height * 0.9, color=PALETTE[s % len(PALETTE)], label=legend)
                axes.text(value, y, f" {_number(value, digits)}", va="center", fontsize=8, color="#1a1a1a")
        axes.set_yticks(ticks, [group for group, _ in groups])
        axes.set_ylim(-0.6, len(groups) - 0.4)
        _axis(axes, label=axis_label, low=bottom, high=top)
        if labelled:
            axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18 if axis_label else -0.08),
                        ncol=min(4, len(labelled)), frameon=False)  # fmt: skip
        return _svg(figure)

    svg = _cached("grouped", arguments, draw) if groups and shown else ""
    header = ["", *[labels.get(name) or name or "(none)" for name in shown]]
    rows = [(group, *[_number(by_series.get(name), digits) for name in shown]) for group, by_series in groups]
    if not svg:
        return format_html('<p class="chart-empty">{}: no figures yet.</p>', title)
    return _framed(svg, title=title, header=header, rows=rows)


def interval_chart(rows, *, title, axis_label="", limit=None, digits=3):
    """A dot per row at its estimate with a line from its interval's low to its high end (an interval
    need not be symmetric); rows are [(label, estimate or None, low or None, high or None)].
    `limit` clips the axis at +-limit (the line's table row keeps the real ends)."""
    rows = [(str(label), point, low, high) for label, point, low, high in rows]
    arguments = [rows, title, axis_label, limit, digits]

    def draw():
        values = [
            v
            for _, point, low, high in rows
            if point is not None
            for v in (point, low, high)
            if v is not None
        ]
        bottom, top = min([0.0, *values]), max([0.0, *values])
        if limit is not None:
            bottom, top = max(bottom, -limit), min(top, limit)
        pad = (top - bottom) * 0.12 or 0.5
        figure = _figure(len(rows))
        axes = figure.add_subplot()
        positions = list(range(len(rows)))[::-1]
        for y, (_, point, low, high) in zip(positions, rows, strict=True):
            if point is None:
                axes.text(bottom, y, "  n/a", va="center", color="#595959", style="italic")
                continue
            if low is not None and high is not None:
                axes.plot(
                    [max(low, bottom - pad), min(high, top + pad)], [y, y], color=PALETTE[0], linewidth=2
                )
            axes.plot([point], [y], "o", color=PALETTE[0])
            axes.text(min(high if high is not None else point, top + pad), y, f"  {_number(point, digits)}",
                      va="center", color="#1a1a1a")  # fmt: skip
        axes.set_yticks(positions, [label for label, *_ in rows])
        axes.set_ylim(-0.7, len(rows) - 0.3)
        _axis(axes, label=axis_label, low=bottom - pad, high=top + pad * 2.5)
        return _svg(figure)

    if all(point is None for _, point, _, _ in rows):
        return format_html('<p class="chart-empty">{}: no figures yet (see the notes).</p>', title)
    svg = _cached("interval", arguments, draw)
    table = [
        (label, _number(point, digits), _number(low, digits), _number(high, digits))
        for label, point, low, high in rows
    ]
    note = f"Axis clipped at ±{limit}." if limit is not None and any(
        v is not None and abs(v) > limit for _, _, low, high in rows for v in (low, high)) else ""  # fmt: skip
    return _framed(
        svg, title=title, header=["", "estimate", "interval low", "interval high"], rows=table, note=note
    )


def spread_chart(rows, *, title, axis_label="", digits=3):
    """A dot per row at its mean with a line of +-1 SD; rows are [(label, mean or None, sd or None)]."""
    intervals = [
        (label, mean, None if mean is None else mean - (sd or 0), None if mean is None else mean + (sd or 0))
        for label, mean, sd in rows
    ]
    return interval_chart(intervals, title=title, axis_label=axis_label, digits=digits)
