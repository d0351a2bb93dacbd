"""Server-side SVG charts for report pages: no CDN, no JavaScript, works offline.

Every label goes through format_html, so category keys, system names and
annotator ids from the study are escaped like any other text.
"""

from django.utils.html import format_html, format_html_join

BAR_HEIGHT = 18
GAP = 6
LABEL_WIDTH = 160
PLOT_WIDTH = 360
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7"]


def _px(value):
    # format_html turns its arguments into (escaped) strings, so numbers are formatted first.
    return f"{value:.1f}"


def _number(value):
    return "n/a" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def bar_chart(rows, *, title, low=0.0, high=None, color=PALETTE[0]):
    """Horizontal bars for [(label, value or None)]; a None value is drawn as 'n/a'.

    `low` below 0 draws a zero line (alpha can be negative).
    """
    values = [value for _, value in rows if value is not None]
    high = high if high is not None else max([*values, 1e-9])
    low = min([low, *values]) if values else low
    span = (high - low) or 1.0
    zero = LABEL_WIDTH + PLOT_WIDTH * (0 - low) / span
    height = len(rows) * (BAR_HEIGHT + GAP) + 30
    bars = []
    for index, (label, value) in enumerate(rows):
        y = 24 + index * (BAR_HEIGHT + GAP)
        bars.append(
            format_html('<text x="{}" y="{}" text-anchor="end">{}</text>', LABEL_WIDTH - 6, y + 13, label)
        )
        if value is None:
            bars.append(format_html('<text x="{}" y="{}" class="na">n/a</text>', zero + 4, y + 13))
            continue
        x = LABEL_WIDTH + PLOT_WIDTH * (min(value, 0) - low) / span
        width = max(1.0, PLOT_WIDTH * abs(value) / span)
        bars.append(
            format_html(
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {}</title></rect>'
                '<text x="{}" y="{}" class="value">{}</text>',
                _px(x),
                y,
                _px(width),
                BAR_HEIGHT,
                color,
                label,
                _number(value),
                _px(x + width + 4),
                y + 13,
                _number(value),
            )  # fmt: skip
        )
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" width="{}" height="{}" viewBox="0 0 {} {}" '
        'xmlns="http://www.w3.org/2000/svg"><text x="0" y="14" class="title">{}</text>'
        '<line x1="{}" y1="20" x2="{}" y2="{}" stroke="#999"/>{}</svg>',
        title, LABEL_WIDTH + PLOT_WIDTH + 60, height, LABEL_WIDTH + PLOT_WIDTH + 60, height, title,
        _px(zero), _px(zero), height - 4, format_html_join("", "{}", ((bar,) for bar in bars)),
    )  # fmt: skip


def grouped_bar_chart(groups, series, *, title):
    """Bars per group (e.g. category) with one bar per series (e.g. system).

    `groups` is [(group label, {series: value})]; `series` the series in order.
    """
    values = [value for _, by_series in groups for value in by_series.values() if value is not None]
    high = max([*values, 1e-9])
    rows_per_group = len(series)
    group_height = rows_per_group * (BAR_HEIGHT - 6) + GAP * 2
    height = len(groups) * group_height + 40 + 16 * ((len(series) + 3) // 4)
    parts = []
    for g, (label, by_series) in enumerate(groups):
        top = 24 + g * group_height
        parts.append(
            format_html('<text x="{}" y="{}" text-anchor="end">{}</text>', LABEL_WIDTH - 6, top + 12, label)
        )
        for s, name in enumerate(series):
            value = by_series.get(name)
            y = top + s * (BAR_HEIGHT - 6)
            width = 0 if value is None else max(1.0, PLOT_WIDTH * value / high)
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} / {}: {}</title></rect>',
                    LABEL_WIDTH,
                    y,
                    _px(width),
                    BAR_HEIGHT - 8,
                    PALETTE[s % len(PALETTE)],
                    label,
                    name,
                    _number(value),
                )  # fmt: skip
            )
    legend_top = 24 + len(groups) * group_height + 8
    for s, name in enumerate(series):
        x, y = LABEL_WIDTH + (s % 4) * 110, legend_top + (s // 4) * 16
        parts.append(
            format_html(
                '<rect x="{}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>',
                x,
                y,
                PALETTE[s % len(PALETTE)],
                x + 14,
                y + 9,
                name,
            )  # fmt: skip
        )
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">'
        '<text x="0" y="14" class="title">{}</text>{}</svg>',
        title, LABEL_WIDTH + PLOT_WIDTH + 60, height, title, format_html_join("", "{}", ((p,) for p in parts)),
    )  # fmt: skip


def spread_chart(rows, *, title, low=None, high=None):
    """A dot per row at its mean with a line of +- one SD: system scores with their spread.

    `rows` is [(label, mean or None, sd or None)].
    """
    values = [v for _, mean, sd in rows if mean is not None for v in (mean - (sd or 0), mean + (sd or 0))]
    low = min(values) if low is None and values else (low if low is not None else 0.0)
    high = max(values) if high is None and values else (high if high is not None else 1.0)
    span = (high - low) or 1.0

    def x(value):
        return LABEL_WIDTH + PLOT_WIDTH * (value - low) / span

    height = len(rows) * (BAR_HEIGHT + GAP) + 30
    parts = []
    for index, (label, mean, sd) in enumerate(rows):
        y = 24 + index * (BAR_HEIGHT + GAP) + BAR_HEIGHT / 2
        parts.append(
            format_html('<text x="{}" y="{}" text-anchor="end">{}</text>', LABEL_WIDTH - 6, _px(y + 4), label)
        )
        if mean is None:
            parts.append(
                format_html('<text x="{}" y="{}" class="na">n/a</text>', LABEL_WIDTH + 4, _px(y + 4))
            )
            continue
        sd = sd or 0.0
        parts.append(
            format_html(
                '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#4e79a7" stroke-width="2"/>'
                '<circle cx="{}" cy="{}" r="5" fill="#4e79a7"><title>{}: {} ± {}</title></circle>'
                '<text x="{}" y="{}" class="value">{}</text>',
                _px(x(mean - sd)),
                _px(y),
                _px(x(mean + sd)),
                _px(y),
                _px(x(mean)),
                _px(y),
                label,
                _number(mean),
                _number(sd),
                _px(x(mean + sd) + 6),
                _px(y + 4),
                _number(mean),
            )  # fmt: skip
        )
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">'
        '<text x="0" y="14" class="title">{}</text>{}</svg>',
        title, LABEL_WIDTH + PLOT_WIDTH + 80, height, title, format_html_join("", "{}", ((p,) for p in parts)),
    )  # fmt: skip
