"""Every registered figure renders at quick size (what `attncheck figure ID -o FILE` runs):
a PNG with content, not a blank canvas.  The numbers in the figures are checked by the claims;
this catches a figure that no longer runs."""
import matplotlib.image as mpimg
import numpy as np
import pytest

from numerics.core import registry
from numerics.claims.base import Settings

FIGURES = registry.figures()


@pytest.mark.parametrize("fig_id", sorted(FIGURES))
def test_figure_renders_at_quick_size(fig_id, tmp_path):
    path = tmp_path / "fig.png"
    FIGURES[fig_id](str(path), Settings(mode="quick"), lambda items, label: items)
    img = mpimg.imread(path)
    assert img.shape[0] > 200 and img.shape[1] > 300
    assert np.std(img[..., :3]) > 0.05  # lines and text, not an empty canvas
