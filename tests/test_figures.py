"""Every registered figure renders at quick size (what `attncheck figure ID -o FILE` runs):
a PNG with content, not a blank canvas; each is rendered once per session (``quick_figure``).  The numbers in the figures are checked by the claims;
this catches a figure that no longer runs."""
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
