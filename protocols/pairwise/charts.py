"""An SVG chart of scores with confidence intervals (Bradley-Terry), in the style of reports/charts.py.

reports.charts draws bars and mean ± SD; a bootstrap interval is not
symmetric about its estimate, so it gets a chart of its own here. Every
label goes through format_html, so system names are escaped.
"""

from django.utils.html import format_html, format_html_join

from reports.charts import BAR_HEIGHT, GAP, LABEL_WIDTH, PALETTE, PLOT_WIDTH

# Draws that break the existence condition can push an interval's ends far out
# (bradley_terry.py); the axis stops there, and the line's tooltip says it was clipped.
AXIS_LIMIT = 6.0


def _px(value):
    return f"{value:.1f}"


def _number(value):
    return "n/a" if value is None else f"{value:.3f}"


def interval_chart(rows, *, title):
    """A dot per row at its estimate with a line from the interval's low to its high end.

    `rows` is [(label, estimate or None, low or None, high or None)]; a zero line marks 0.
    """
    values = [
        v for _, point, low, high in rows if point is not None for v in (point, low, high) if v is not None
    ]
    low_end = max(min([0.0, *values]), -AXIS_LIMIT)
    high_end = min(max([0.0, *values]), AXIS_LIMIT)
    span = (high_end - low_end) or 1.0

    def x(value):
        return LABEL_WIDTH + PLOT_WIDTH * (min(max(value, low_end), high_end) - low_end) / span

    height = len(rows) * (BAR_HEIGHT + GAP) + 30
    parts = [
        format_html('<line x1="{}" y1="20" x2="{}" y2="{}" stroke="#999"/>', _px(x(0)), _px(x(0)), height - 4)
    ]
    for index, (label, point, low, high) in enumerate(rows):
        y = 24 + index * (BAR_HEIGHT + GAP) + BAR_HEIGHT / 2
        parts.append(
            format_html('<text x="{}" y="{}" text-anchor="end">{}</text>', LABEL_WIDTH - 6, _px(y + 4), label)
        )
        if point is None:
            parts.append(
                format_html('<text x="{}" y="{}" class="na">n/a</text>', LABEL_WIDTH + 4, _px(y + 4))
            )
            continue
        if low is not None and high is not None:
            clipped = " (clipped)" if low < low_end or high > high_end else ""
            parts.append(
                format_html(
                    '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"><title>{}: {} to {}{}</title></line>',
                    _px(x(low)),
                    _px(y),
                    _px(x(high)),
                    _px(y),
                    PALETTE[0],
                    label,
                    _number(low),
                    _number(high),
                    clipped,
                )
            )
        parts.append(
            format_html(
                '<circle cx="{}" cy="{}" r="5" fill="{}"><title>{}: {}</title></circle>'
                '<text x="{}" y="{}" class="value">{}</text>',
                _px(x(point)),
                _px(y),
                PALETTE[0],
                label,
                _number(point),
                _px(x(high if high is not None else point) + 6),
                _px(y + 4),
                _number(point),
            )
        )
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">'
        '<text x="0" y="14" class="title">{}</text>{}</svg>',
        title, LABEL_WIDTH + PLOT_WIDTH + 80, height, title, format_html_join("", "{}", ((p,) for p in parts)),
    )  # fmt: skip
