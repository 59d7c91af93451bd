"""The figures' common look: one error-bar convention, column-width layouts, math minus signs,
readable log axes and legends that do not cover data.

* **Error bars are ±2 se** (``SE_BARS``) in every figure: the standard error of the plotted
  mean over trials, or, for a plotted median (Paper B), the bootstrap standard error of the
  median over seeds. Each caption and legend says so (``SE_LABEL``).
* Layouts fit a report's or a paper's text width (``COLUMN_WIDTH`` inches, at most two panels
  side by side); each panel is legible at that width.
* Numbers in labels carry the minus sign U+2212 (``num``), as matplotlib's tick labels do.
* A log axis spanning at most a few decades is labelled on 1-2-5 in plain numbers (never
  "2×10^0"); a wider one on the powers of ten only.
* Legends go below the axes (``legend_below``, ``figure_legend``), never over the data.
* Theory lines are drawn through enough computed points that no segment shows
  (``fine_grid``); series differ in colour *and* marker or line style.
The output format follows the file's suffix (``.png``, ``.pdf``, ``.svg``: ``save``).
"""
from __future__ import annotations

import math

#: error bars: this many standard errors either side (every figure)
SE_BARS = 2
SE_LABEL = r"$\pm 2$ se"
#: the width (inches) a figure is laid out for: a report's or a paper's text width
COLUMN_WIDTH = 6.5
MINUS = "\u2212"


def num(x, fmt: str = ".3f") -> str:
    """``x`` formatted with a true minus sign (U+2212), for text outside mathtext."""
    return format(x, fmt).replace("-", MINUS)


def fine_grid(lo: float, hi: float, n: int, log: bool = True):
    """``n`` points from ``lo`` to ``hi`` (geometric when ``log``) for a theory line."""
    import numpy as np

    return np.geomspace(lo, hi, n) if log else np.linspace(lo, hi, n)


def smooth_line(ax, x, y, fmt=None, log: bool = True, n: int = 240, **kw):
    """A theory line through computed points ``(x, y)``: a shape-preserving (monotone where the
    points are) cubic in ``log x`` (PCHIP), drawn on ``n`` points, so an expensive theory
    computed at a few dozen points shows no corners that are not in it.  Non-finite points are
    dropped; fewer than three points are joined straight."""
    import numpy as np
    from scipy.interpolate import PchipInterpolator

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    order = np.argsort(x)
    x, y = x[order], y[order]
    fmt = (fmt,) if fmt else ()
    if len(x) < 3:
        return ax.plot(x, y, *fmt, **kw)
    t = np.log10(x) if log else x
    tt = np.linspace(t[0], t[-1], n)
    return ax.plot(10.0 ** tt if log else tt, PchipInterpolator(t, y)(tt), *fmt, **kw)


def adaptive_grid(f, lo: float, hi: float, n0: int = 9, max_points: int = 65, max_turn_deg: float = 3.0,
                  log: bool = True, aspect: float = 1.5):
    """``(xs, ys)``: ``f`` on ``n0`` points from ``lo`` to ``hi`` (geometric when ``log``),
    refined by bisecting both intervals next to the vertex where the line through them turns
    most, while it turns by more than ``max_turn_deg`` (both axes scaled to a panel of width
    ``aspect`` times its height) and its intervals are wider than 1/400 of the axis, until
    ``max_points`` points.  For theory lines cheap enough to compute at each point."""
    import numpy as np

    t = list(np.linspace(np.log10(lo), np.log10(hi), n0) if log else np.linspace(lo, hi, n0))
    to_x = (lambda v: float(10.0 ** v)) if log else float
    y = [float(f(to_x(v))) for v in t]
    width = t[-1] - t[0]
    while len(t) < max_points:
        ty = np.array(y)
        span = (np.nanmax(ty) - np.nanmin(ty)) or 1.0
        u, w = aspect * (np.array(t) - t[0]) / width, ty / span
        turn = np.degrees(np.abs(np.diff(np.arctan2(np.diff(w), np.diff(u)))))
        gaps = np.diff(t)
        turn[(gaps[:-1] < width / 400) & (gaps[1:] < width / 400)] = 0.0  # resolved: a kink of the function
        k = int(np.argmax(turn))
        if turn[k] <= max_turn_deg:
            break
        for i in (k + 1, k):  # the intervals either side of vertex k + 1 (right one first: indices hold)
            mid = 0.5 * (t[i] + t[i + 1])
            t.insert(i + 1, mid)
            y.insert(i + 1, float(f(to_x(mid))))
    return np.array([to_x(v) for v in t]), np.array(y)


def errorbars(ax, x, mean, se, **kw):
    """Points with ±``SE_BARS`` se bars (``se`` the standard error of each point)."""
    import numpy as np

    kw.setdefault("capsize", 2)
    kw.setdefault("ms", 4)
    return ax.errorbar(x, mean, yerr=SE_BARS * np.asarray(se, dtype=float), **kw)


def log_ticks(ax, axis: str = "x", subs=(1.0, 2.0, 5.0)) -> None:
    """Plain 1-2-5 tick labels (``subs``) on a log axis of <= 3 decades; powers of ten beyond."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    lo, hi = (ax.get_xlim() if axis == "x" else ax.get_ylim())
    which = ax.xaxis if axis == "x" else ax.yaxis
    if lo > 0 and hi > 0 and math.log10(hi / lo) <= 3.0:
        which.set_major_locator(LogLocator(base=10, subs=subs))
        which.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        which.set_major_locator(LogLocator(base=10))
    which.set_minor_formatter(NullFormatter())


def unique_legend(ax, **kw):
    """A legend with one entry per label (repeated labels, e.g. one theory slope drawn for
    several curves, are listed once)."""
    handles, labels = _unique(ax)
    return ax.legend(handles, labels, **kw)


def _unique(ax):
    handles, labels = ax.get_legend_handles_labels()
    seen: dict = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    return list(seen.values()), list(seen)


def legend_below(ax, ncol: int = 2, fontsize: int = 7, **kw):
    """The (de-duplicated) legend under the axes, outside the data area."""
    return unique_legend(ax, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=ncol, fontsize=fontsize,
                         frameon=False, **kw)


def figure_legend(fig, ax, ncol: int = 4, fontsize: int = 8):
    """One (de-duplicated) legend for panels that share their entries, under the figure; call
    after ``tight_layout``."""
    handles, labels = _unique(ax)
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncol=ncol, fontsize=fontsize, frameon=False)


def save(fig, path: str, dpi: int = 120) -> None:
    """Write ``fig`` in the format of ``path``'s suffix (PNG, PDF or SVG), tight around the
    legends that sit outside the axes."""
    fig.savefig(path, dpi=dpi, bbox_inches="tight")


def describe(fig) -> dict:
    """What a drawn figure shows, for tests (no pixels): its size, every visible text, each
    legend's box and each axes' data points in display coordinates, the style of each legend
    entry per axes (``series``: one list per axes).  Call after the figure is drawn (``save`` draws it)."""
    import numpy as np
    from matplotlib.lines import Line2D

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_visible"))
             if t.get_visible() and isinstance(t.get_text(), str) and t.get_text().strip()]
    legends = [lg for lg in [ax.get_legend() for ax in fig.axes] + list(fig.legends) if lg is not None]
    points, series, panels, lines = [], [], [], []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data():
            continue
        panels.append(ax.get_window_extent(r).width / fig.dpi)
        for line in ax.get_lines():
            xy = line.get_xydata()
            if len(xy) == 0 or not line.get_visible():
                continue
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            px = ax.transData.transform(xy)
            points.append(px)
            if line.get_linestyle() not in ("None", "none", "") and len(px) >= 3:
                lines.append((line.get_label(), max_turn(px)))
    for ax in fig.axes:  # per axes, each legend entry's artist: a line, or an error bar's data line
        seen, mine = set(), []
        series.append(mine)
        for h, label in zip(*ax.get_legend_handles_labels()):
            line = h if isinstance(h, Line2D) else (getattr(h, "lines", None) or [None])[0]
            if label in seen or line is None:
                continue
            seen.add(label)
            mine.append((label, str(line.get_color()), str(line.get_marker()),
                           f"{line.get_linestyle()}{getattr(line, '_unscaled_dash_pattern', '')}"))
    return {"size_in": tuple(float(v) for v in fig.get_size_inches()), "texts": texts, "panels_in": panels,
            "legend_boxes": [tuple(lg.get_window_extent(r).bounds) for lg in legends],
            "points": np.concatenate(points) if points else np.zeros((0, 2)), "series": series, "lines": lines}


def max_turn(px, min_px: float = 1.0, min_seg: float = 5.0) -> float:
    """The largest visible corner (degrees) of a drawn line (``px``: its vertices in display
    pixels, segments shorter than ``min_px`` merged): the turn at a vertex between two straight
    segments each at least ``min_seg`` pixels long.  A line drawn through enough points turns
    within a few pixels even where the function bends sharply, so only the corners of a coarse
    polyline count."""
    import numpy as np

    keep = [px[0]]
    for p in px[1:]:
        if np.hypot(*(p - keep[-1])) >= min_px:
            keep.append(p)
    if len(keep) < 3:
        return 0.0
    d = np.diff(np.array(keep), axis=0)
    length = np.hypot(d[:, 0], d[:, 1])
    ang = np.arctan2(d[:, 1], d[:, 0])
    turn = np.abs((np.diff(ang) + np.pi) % (2 * np.pi) - np.pi)
    seen = (length[:-1] >= min_seg) & (length[1:] >= min_seg)
    return float(np.degrees(turn[seen].max())) if seen.any() else 0.0
