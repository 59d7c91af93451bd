"""Figure A.representation: oracle test error vs L for three signal scalings and three models.

Panels (two a row, at column width): theta = 0.3 sqrt(L), theta = 0.5 log L,
theta = 1.25 sqrt(2 log L), theta = 0.8 sqrt(2 log L) (pi = 1/2, R = 1).  Lines (compiled
derivation steps): pooled E*_pool on a fine grid of L, vectorised (best k-sparse rule over a
geometric grid of k: an upper bound on E*_vec that is <= pooled; ~1 s a point, so a coarser grid
drawn as the shape-preserving cubic through it), hard attention on an adaptive grid (refined where
the line turns: ``adaptive_grid``), drawn as the shape-preserving cubic through it.
Points: oracle simulations (fitted threshold) of pooled and hard attention, and the softmax
attention oracle at gamma = theta/2 (Rao-Blackwellised MC), with ±2 se error bars (the figures'
convention, numerics/figures/style.py).
docs/paper_a_representation.md#figure.
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from numerics.theory.paper_a import representation as ao  # noqa: E402
from numerics.core.seeding import rng as make_rng  # noqa: E402
from numerics.experiments.paper_a import representation as sim  # noqa: E402
from numerics.figures.style import (COLUMN_WIDTH, SE_LABEL, adaptive_grid, errorbars, figure_legend, fine_grid,  # noqa: E402
                                    save, smooth_line)

SCALINGS = {
    "theta = 0.3 sqrt(L)": lambda L: 0.3 * math.sqrt(L),
    "theta = 0.5 log L": lambda L: 0.5 * math.log(L),
    "theta = 1.25 sqrt(2 log L)": lambda L: 1.25 * math.sqrt(2 * math.log(L)),
    "theta = 0.8 sqrt(2 log L)": lambda L: 0.8 * math.sqrt(2 * math.log(L)),
}
#: the panel titles (the keys above are also seed-path names, kept as they are)
TITLES = {
    "theta = 0.3 sqrt(L)": r"$\theta = 0.3\sqrt{L}$",
    "theta = 0.5 log L": r"$\theta = 0.5\log L$",
    "theta = 1.25 sqrt(2 log L)": r"$\theta = 1.25\sqrt{2\log L}$",
    "theta = 0.8 sqrt(2 log L)": r"$\theta = 0.8\sqrt{2\log L}$",
}
PI, R = 0.5, 1


def _k_grid(L):
    ks = sorted({int(round(x)) for x in np.geomspace(1, L, 25)} | {L})
    return [k for k in ks if 1 <= k <= L]


def figure_representation(path, settings, progress):
    """Oracle test error vs L for four signal scalings: pooled, vectorised, hard and softmax attention."""
    Ls_vec = [int(x) for x in np.unique(np.round(np.geomspace(10, 10**6, settings.pick(9, 16))))]
    Ls_pool = fine_grid(10, 10**6, settings.pick(41, 81))
    Ls_sim = [10, 100, 1000] + settings.pick([], [10_000])
    n_sim = settings.pick(4_000, 20_000)
    fig, axes = plt.subplots(2, 2, figsize=(COLUMN_WIDTH, 5.6), sharey=True)
    axes = axes.ravel()
    for ax, (name, th) in zip(axes, progress(list(SCALINGS.items()), "scalings")):
        pool = [float(ao.pool_error_at(th(L), L, R, PI, 15)) for L in Ls_pool]
        vec = [ao.vec_ksparse_best(L, R, PI, th(L), ks=_k_grid(L)).error for L in Ls_vec]
        # hard attention at integer L, refined where its line turns (the drop of theta = 0.3 sqrt(L))
        Ls_hard, hard = adaptive_grid(lambda L: float(ao.hardmax_error(int(round(L)), R, PI, th(int(round(L))), 15).error),
                                      10, 10**6, n0=settings.pick(9, 17), max_points=settings.pick(49, 97))
        # the pooled line is wide and pale, so the vectorised bound (often equal to it) shows on top
        ax.semilogx(Ls_pool, pool, "-", color="C0", lw=4, alpha=0.35, label="pooled (exact)")
        smooth_line(ax, Ls_vec, vec, "--", color="C2", lw=1.5, label="vectorised, best $k$-sparse rule (bound)")
        smooth_line(ax, Ls_hard, hard, "-", color="C3", label="hard attention (exact)")
        pts = {"pool": [], "hard": [], "soft": []}
        for L in Ls_sim:
            theta = th(L)
            r = make_rng(settings.seed, "A.representation", name, L)
            e1 = sim.oracle_error(r, sim.stat_pooled, n_sim, L, R, PI, theta)
            e2 = sim.oracle_error(r, sim.stat_hardmax, n_sim, L, R, PI, theta)
            e3 = ao.softmax_error_rb(r, L, R, PI, theta, max(theta / 2, 0.05), n_sim)
            pts["pool"].append((L, e1.error, e1.se))
            pts["hard"].append((L, e2.error, e2.se))
            pts["soft"].append((L, e3.error, e3.se))
        # points at the same L side by side (factors on L), so coinciding estimates stay visible
        for key, color, marker, shift, lab in (("pool", "C0", "o", 1.0, "pooled (sim)"),
                                               ("hard", "C3", "s", 0.87, "hard attention (sim)"),
                                               ("soft", "C1", "^", 1.15, r"softmax, $\gamma = \theta/2$ (Rao-Blackwellised MC)")):
            a = np.array(pts[key])
            errorbars(ax, a[:, 0] * shift, a[:, 1], a[:, 2], fmt=marker, color=color, label=f"{lab} ({SE_LABEL})")
        ax.set_title(TITLES[name], fontsize=9)
        ax.set_xlabel("$L$")
        ax.set_xticks([10, 10**2, 10**3, 10**4, 10**5, 10**6])
        ax.grid(alpha=0.3)
    for ax in axes[::2]:
        ax.set_ylabel(r"oracle test error")
    fig.suptitle(r"$\pi_+ = 1/2$, $R = 1$", fontsize=9)
    fig.tight_layout()
    figure_legend(fig, axes[0], ncol=2, fontsize=7)
    save(fig, path, dpi=130)
    plt.close(fig)


def figure_sharp_threshold(path, settings, progress):
    """Hard-attention oracle error (exact) at L = 10^2 ... 10^(10^6): the sharp threshold.

    Against r = theta/sqrt(2 log L) and against x = theta - b_L; the second panel shows the collapse onto the limit law
    min(pi Phi(-x), 1 - pi) (docs/paper_a_representation.md#sharp-threshold)."""
    import mpmath

    log10s = [2, 4, 8, 16, 64, 10**4, 10**6]
    # r: denser where the curves drop (around r = 1); each line the shape-preserving cubic through its points
    n = settings.pick(4, 8)
    rs = np.unique(np.concatenate([np.linspace(0.5, 0.85, n), np.linspace(0.85, 1.15, 2 * n + 1),
                                   np.linspace(1.15, 1.6, n)]))
    xs = np.linspace(-2.0, 3.0, settings.pick(11, 21))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(COLUMN_WIDTH, 3.4), sharey=True)
    for k in progress(log10s, "L = 10^k"):
        lnL = k * math.log(10)
        with mpmath.workdps(30):
            b = ao.b_L_mp(mpmath.mpf(k) * mpmath.log(10))
        e_r = [float(ao.hardmax_error(None, R, PI, r * math.sqrt(2 * lnL), 12, lnL=lnL).error) for r in rs]
        e_x = [float(ao.hardmax_error(None, R, PI, b + mpmath.mpf(repr(float(x))), 12, lnL=lnL).error) for x in xs]
        lab = f"$L = 10^{{{k}}}$" if k < 1000 else f"$L = 10^{{10^{{{int(round(math.log10(k)))}}}}}$"
        style = "-" if k < 1000 else (0, (5, 3)) if k < 10**5 else (0, (1, 2))  # the last two nearly coincide
        (line,) = smooth_line(a1, rs, e_r, log=False, linestyle=style, label=lab)
        smooth_line(a2, xs, e_x, log=False, linestyle=style, color=line.get_color(), label=lab)
    xf = np.linspace(xs[0], xs[-1], 121)
    a2.plot(xf, [float(ao.hardmax_limit_law(x, PI, R)) for x in xf], color="k", lw=3, alpha=0.3,
            label=r"limit $\min(\pi_+\Phi(-x),\ 1 - \pi_+)$")
    a1.axvline(1.0, color="k", lw=0.8)
    a1.set_xlabel(r"$r = \theta / \sqrt{2\log L}$")
    a2.set_xlabel(r"$x = \theta - b_L$,  $b_L = \Phi^{-1}(1 - 1/L)$")
    a1.set_ylabel("hard-attention oracle error")
    fig.suptitle(r"$\pi_+ = 1/2$, $R = 1$", fontsize=9)
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.xaxis.label.set_fontsize(8)
    fig.tight_layout()
    figure_legend(fig, a2, ncol=3, fontsize=7)
    save(fig, path, dpi=130)
    plt.close(fig)

FIGURES = {"A.representation": figure_representation, "A.sharp_threshold": figure_sharp_threshold}
