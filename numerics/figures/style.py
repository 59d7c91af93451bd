"""The figures' common look: readable log axes and legends that do not cover data.

* a log axis spanning at most a few decades is labelled on 1-2-5 in plain numbers (never
  "2×10^0"); a wider one on the powers of ten only;
* legends go below the axes (``legend_below``) or beside them, never over the data.
The output format follows the file's suffix (``.png``, ``.pdf``, ``.svg``: ``save``).
"""
from __future__ import annotations

import math


def log_ticks(ax, axis: str = "x") -> None:
    """Plain 1-2-5 tick labels on a log axis of <= 3 decades; powers of ten beyond."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    lo, hi = (ax.get_xlim() if axis == "x" else ax.get_ylim())
    which = ax.xaxis if axis == "x" else ax.yaxis
    if lo > 0 and hi > 0 and math.log10(hi / lo) <= 3.0:
        which.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
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
