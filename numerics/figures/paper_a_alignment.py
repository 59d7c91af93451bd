"""Figure A.thm3.fig: cos(q^(2), xi) and cos(w^(1), xi) vs alpha0 (Paper A's step-3 figure):
Theorem-3 limits (lines) and finite-d simulation means +- 2 se (points)."""
from __future__ import annotations

import numpy as np

from numerics.claims.paper_a import alignment as C


def figure(path, settings, progress=lambda it, label: it):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ip, des = 0, C.DESIGN[settings.mode][0]  # the ten-token point (the paper's setting in --full)
    p = des["params"]
    sims = C.simulate(settings)
    grid = np.geomspace(min(des["alphas"]) / 2, max(des["alphas"]) * 2, 25)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, loss in zip(axes, C.LOSSES):
        th = [C.limits(loss, dict(p, alpha0=float(a)), 15) for a in progress(grid, f"theory {loss}")]
        for key, colour, name in (("q2_cosine", "C0", "cos(q^(2), xi)"), ("w1_cosine", "C1", "cos(w^(1), xi)")):
            ax.plot(grid, [float(t[key]) for t in th], color=colour, label=f"{name} limit")
            xs = np.array(des["alphas"])
            means = np.array([sims[(ip, des["d"], a)][loss][key].mean() for a in des["alphas"]])
            ses = np.array([sims[(ip, des["d"], a)][loss][key].std(ddof=1) / np.sqrt(des["trials"]) for a in des["alphas"]])
            ax.errorbar(xs, means, 2 * ses, fmt="o", color=colour, ms=4,
                        label=f"{name}, d={des['d']}, {des['trials']} trials")
        ax.set_xscale("log")
        ax.set_xlabel("alpha0 = n0/d")
        ax.set_title(f"{loss}: L={p['L']}, R={p['R']}, pi={p['pi']}, theta={p['theta']}, eta={p['eta_w']}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("cosine with xi")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


FIGURES = {"A.thm3.fig": figure}
