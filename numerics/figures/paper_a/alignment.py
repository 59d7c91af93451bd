"""Figure A.thm3.fig: cos(q^(2), xi) and cos(w^(1), xi) vs alpha0 (Paper A's step-3 figure):
Theorem-3 limits (lines, 25 points each, the shape-preserving cubic through them) and finite-d
simulation means ±2 se (points; the figures' convention, numerics/figures/style.py); two panels
side by side at column width."""
from __future__ import annotations

import numpy as np

from numerics.claims.paper_a import alignment as claims_alignment
from numerics.figures.style import COLUMN_WIDTH, SE_LABEL, errorbars, figure_legend, log_ticks, save, smooth_line


def figure(path, settings, progress=lambda it, label: it):
    """cos(q^(2), xi) and cos(w^(1), xi) vs alpha0: Theorem-3 limits and simulations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ip, des = 0, settings.pick(**claims_alignment.DESIGN)[0]  # the ten-token point (the paper's setting in --full)
    p = des["params"]
    sims = claims_alignment.simulate(settings)
    grid = np.geomspace(min(des["alphas"]) / 2, max(des["alphas"]) * 2, 25)
    fig, axes = plt.subplots(1, 2, figsize=(COLUMN_WIDTH, 3.6), sharey=True)
    names = {"q2_cosine": r"$\cos(q^{(2)}, \xi)$", "w1_cosine": r"$\cos(w^{(1)}, \xi)$"}
    for ax, loss in zip(axes, claims_alignment.LOSSES):
        th = [claims_alignment.limits(loss, dict(p, alpha0=float(a)), 15) for a in progress(grid, f"theory {loss}")]
        for key, colour, ls, marker in (("q2_cosine", "C0", "-", "o"), ("w1_cosine", "C1", "--", "s")):
            smooth_line(ax, grid, [float(t[key]) for t in th], ls, color=colour, label=f"{names[key]}, limit (theory)")
            xs = np.array(des["alphas"])
            means = np.array([sims[(ip, des["d"], a)][loss.name][key].mean() for a in des["alphas"]])
            ses = np.array([sims[(ip, des["d"], a)][loss.name][key].std(ddof=1) / np.sqrt(des["trials"]) for a in des["alphas"]])
            errorbars(ax, xs, means, ses, fmt=marker, color=colour,
                      label=f"{names[key]}, simulation $d = {des['d']}$, {des['trials']} trials ({SE_LABEL})")
        ax.set_xscale("log")
        ax.set_xlim(grid[0], grid[-1])
        log_ticks(ax, "x")
        ax.set_xlabel(r"$\alpha_0 = n_0/d$")
        ax.set_title(f"{loss} loss", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(r"cosine with $\xi$")
    fig.suptitle(f"$L = {p['L']}$, $R = {p['R']}$, $\\pi_+ = {p['pi']:g}$, $\\theta = {p['theta']:g}$, "
                 f"$\\eta = {p['eta_w']:g}$", fontsize=9)
    fig.tight_layout()
    figure_legend(fig, axes[0], ncol=1, fontsize=7)
    save(fig, path)
    plt.close(fig)

FIGURES = {"A.thm3.fig": figure}
