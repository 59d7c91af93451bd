"""Every registered figure renders at quick size (what `attncheck figure ID -o FILE` runs):
a PNG with content, not a blank canvas; each is rendered once per session (``quick_figure``).  The numbers in the figures are checked by the claims;
this catches a figure that no longer runs."""
import re

import matplotlib.image as mpimg
import numpy as np
import pytest

from numerics import registry

FIGURES = registry.figures()
#: figures whose quick size still re-simulates minutes of experiments; their data are the claims'
#: own experiments (B.fig1: the B.rate claims), checked in the default suite; rendered by -m slow
#: (C.phase: about 20 s CPU of Paper C solves at quick size)
SLOW_FIGURES = {"B.fig1", "C.phase"}


@pytest.mark.parametrize("fig_id", [pytest.param(f, marks=pytest.mark.slow) if f in SLOW_FIGURES else f
                                    for f in sorted(FIGURES)])
def test_figure_renders_at_quick_size(fig_id, tmp_path, quick_figure):
    path = tmp_path / "fig.png"
    path.write_bytes(quick_figure(fig_id)[".png"])
    img = mpimg.imread(path)
    assert img.shape[0] > 200 and img.shape[1] > 300
    assert np.std(img[..., :3]) > 0.05  # lines and text, not an empty canvas


#: the largest corner a theory line may show (degrees between consecutive drawn segments);
#: a 6-point piecewise-linear line of a curved function shows > 10 (test_max_turn_sees_a_kink)
MAX_CORNER_DEG = 8.0
THEORY_WORDS = ("theory", "exact", "limit", "bound", "$L = ")


def _outside_math(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


@pytest.mark.parametrize("fig_id", [pytest.param(f, marks=pytest.mark.slow) if f in SLOW_FIGURES else f
                                    for f in sorted(FIGURES)])
def test_figure_is_publication_ready(fig_id, quick_figure):
    """Column width, legible panels, math minus signs, the one ±2 se convention, legends off the
    data, series told apart, theory lines without corners (the drawn figure of the PNG test)."""
    from numerics.figures.style import COLUMN_WIDTH

    d = quick_figure(fig_id)["describe"]
    assert d["size_in"][0] <= COLUMN_WIDTH + 0.01, d["size_in"]
    assert d["panels_in"] and min(d["panels_in"]) >= 2.2, d["panels_in"]
    hyphens = [t for t in d["texts"] if re.search(r"(^|[^\w])-\d", _outside_math(t))]
    assert not hyphens, hyphens  # numbers carry U+2212 (mathtext and tick labels do)
    se_texts = [t for t in d["texts"] if re.search(r"\bse\b", t)]
    assert all(("$\\pm 2$ se" in t or "±2 se" in t) for t in se_texts), se_texts
    pts = d["points"]
    for x0, y0, w, h in d["legend_boxes"]:
        inside = (pts[:, 0] > x0) & (pts[:, 0] < x0 + w) & (pts[:, 1] > y0) & (pts[:, 1] < y0 + h)
        assert not inside.any(), f"a legend covers {int(inside.sum())} data points"
    for entries in d["series"]:  # within a panel, no two entries look alike
        styles = {}
        for label, colour, marker, ls in entries:
            styles.setdefault((colour, marker, ls), set()).add(label)
        assert all(len(v) == 1 for v in styles.values()), [v for v in styles.values() if len(v) > 1]
    corners = [(lab, round(a, 1)) for lab, a in d["lines"]
               if any(w in lab for w in THEORY_WORDS) and a > MAX_CORNER_DEG]
    assert not corners, corners


def test_max_turn_sees_a_kink():
    """The corner measure: a coarse piecewise-linear curve has corners above the bound, the
    same curve drawn by ``smooth_line`` through the same points none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from numerics.figures.style import describe, smooth_line

    fig, (a, b) = plt.subplots(1, 2, figsize=(6.5, 3))
    x = np.geomspace(0.25, 8, 6)
    a.semilogx(x, 1 / (1 + x), label="theory")
    smooth_line(b, x, 1 / (1 + x), label="theory")
    (coarse, _), (smooth, _) = [(a_, lab) for lab, a_ in describe(fig)["lines"]]
    assert coarse > MAX_CORNER_DEG > smooth
    plt.close(fig)


def test_a_figure_writes_pdf_by_suffix(quick_figure):
    """The figure's ``save`` with a ``.pdf`` path writes a PDF (the drawn figure of the PNG test:
    ``quick_figure`` renders it once and saves both suffixes)."""
    pdf = quick_figure("A.sharp_threshold")[".pdf"]
    assert pdf[:5] == b"%PDF-" and len(pdf) > 10_000


def test_style_plain_log_ticks_and_unique_legend():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from numerics.figures.style import log_ticks, unique_legend

    fig, ax = plt.subplots()
    for k in range(3):
        ax.plot([1.5, 12], [k, k + 1], "--", label="theory -0.800")
    ax.plot([1.5, 12], [0, 2], "o", label="simulation")
    ax.set_xscale("log")
    ax.set_xlim(1.5, 12)
    log_ticks(ax, "x")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all("times" not in t and "^" not in t for t in labels) and "2" in labels
    assert [t.get_text() for t in unique_legend(ax).get_texts()] == ["theory -0.800", "simulation"]
    plt.close(fig)


def test_a_claim_file_registers_figures_and_problems_as_the_papers_do(tmp_path):
    """A plugin's module exports FIGURES, PROBLEMS and BENCHMARKS next to its CLAIMS; an id
    registered twice is refused, naming it."""
    from numerics import registry

    good = tmp_path / "plug.py"
    good.write_text("CLAIMS = []\nFIGURES = {'T.curve': lambda path, settings, progress: None}\n"
                    "PROBLEMS = {'t-problem': object()}\nBENCHMARKS = {'t.bench': lambda settings: {}}\n")
    dup = tmp_path / "dup.py"
    dup.write_text("CLAIMS = []\nFIGURES = {'A.fig1': lambda path, settings, progress: None}\n")
    before = list(registry.EXTRA_FILES)
    try:
        registry.add_claims_file(str(good))
        assert "T.curve" in registry.figures() and "A.fig1" in registry.figures()
        assert "t-problem" in registry.problems()
        assert "t.bench" in registry.benchmarks() and "verify.cache_workers" in registry.benchmarks()
        registry.add_claims_file(str(dup))
        with pytest.raises(registry.RegistryError, match="'A.fig1' is registered twice"):
            registry.figures()
    finally:
        registry.EXTRA_FILES[:] = before
        for memo in (registry.claims, registry.figures, registry.problems, registry.benchmarks):
            memo.cache_clear()
