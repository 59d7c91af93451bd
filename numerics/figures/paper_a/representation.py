"""Figure A.representation: oracle test error vs L for three signal scalings and three models.

Panels: theta = 0.3 sqrt(L), theta = 0.5 log L, theta = 1.25 sqrt(2 log L), theta = 0.8 sqrt(2 log L)
(pi = 1/2, R = 1).  Lines (compiled derivation steps): pooled E*_pool, vectorised (best
k-sparse rule over a geometric grid of k: an upper bound on E*_vec that is <= pooled), hard
attention.
Points: oracle simulations (fitted threshold) of pooled and hard attention, and the softmax
attention oracle at gamma = theta/2 (Rao-Blackwellised MC), with 2 se error bars.
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
from numerics.figures.style import figure_legend, save  # noqa: E402

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
    Ls_line = [int(x) for x in np.unique(np.round(np.geomspace(10, 10**6, settings.pick(9, 16))))]
    Ls_sim = [10, 100, 1000] + settings.pick([], [10_000])
    n_sim = settings.pick(4_000, 20_000)
    fig, axes = plt.subplots(1, len(SCALINGS), figsize=(4.2 * len(SCALINGS), 3.8), sharey=True)
    for ax, (name, th) in zip(axes, progress(list(SCALINGS.items()), "scalings")):
        pool = [float(ao.pool_error_at(th(L), L, R, PI, 15)) for L in Ls_line]
        vec = [ao.vec_ksparse_best(L, R, PI, th(L), ks=_k_grid(L)).error for L in Ls_line]
        hard = [float(ao.hardmax_error(L, R, PI, th(L), 15).error) for L in Ls_line]
        # the pooled line is wide and pale, so the vectorised bound (often equal to it) shows on top
        ax.semilogx(Ls_line, pool, "-", color="C0", lw=4, alpha=0.35, label="pooled (exact)")
        ax.semilogx(Ls_line, vec, "--", color="C2", lw=1.5, label="vectorised, best $k$-sparse rule (bound)")
        ax.semilogx(Ls_line, hard, "-", color="C3", label="hard attention (exact)")
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
        for key, color, marker, lab in (("pool", "C0", "o", "pooled (sim)"), ("hard", "C3", "s", "hard attention (sim)"),
                                        ("soft", "C1", "^", r"softmax, $\gamma = \theta/2$ (Rao-Blackwellised MC)")):
            a = np.array(pts[key])
            ax.errorbar(a[:, 0], a[:, 1], yerr=2 * a[:, 2], fmt=marker, color=color, ms=4, capsize=2, label=lab + r" ($\pm 2$ se)")
        ax.set_title(TITLES[name], fontsize=11)
        ax.set_xlabel("$L$")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(r"oracle test error ($\pi_+ = 1/2$, $R = 1$)")
    fig.tight_layout()
    figure_legend(fig, axes[0], ncol=3)
    save(fig, path, dpi=130)
    plt.close(fig)


def figure_sharp_threshold(path, settings, progress):
    """Hard-attention oracle error (exact) at L = 10^2 ... 10^(10^6): the sharp threshold.

    Against r = theta/sqrt(2 log L) and against x = theta - b_L; the second panel shows the collapse onto the limit law
    min(pi Phi(-x), 1 - pi) (docs/paper_a_representation.md#sharp-threshold)."""
    import mpmath

    log10s = [2, 4, 8, 16, 64, 10**4, 10**6]
    rs = np.linspace(0.5, 1.6, settings.pick(12, 23))
    xs = np.linspace(-2.0, 3.0, settings.pick(11, 21))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for k in progress(log10s, "L = 10^k"):
        lnL = k * math.log(10)
        with mpmath.workdps(30):
            b = ao.b_L_mp(mpmath.mpf(k) * mpmath.log(10))
        e_r = [float(ao.hardmax_error(None, R, PI, r * math.sqrt(2 * lnL), 12, lnL=lnL).error) for r in rs]
        e_x = [float(ao.hardmax_error(None, R, PI, b + mpmath.mpf(repr(float(x))), 12, lnL=lnL).error) for x in xs]
        lab = f"$L = 10^{{{k}}}$" if k < 1000 else f"$L = 10^{{10^{{{int(round(math.log10(k)))}}}}}$"
        style = "-" if k < 1000 else (0, (5, 3)) if k < 10**5 else (0, (1, 2))  # the last two nearly coincide
        a1.plot(rs, e_r, linestyle=style, label=lab)
        a2.plot(xs, e_x, linestyle=style, label=lab)
    a2.plot(xs, [float(ao.hardmax_limit_law(x, PI, R)) for x in xs], color="k", lw=3, alpha=0.3,
            label=r"limit $\min(\pi_+\Phi(-x),\ 1 - \pi_+)$")
    a1.axvline(1.0, color="k", lw=0.8)
    a1.set_xlabel(r"$r = \theta / \sqrt{2\log L}$")
    a2.set_xlabel(r"$x = \theta - b_L$,  $b_L = \Phi^{-1}(1 - 1/L)$")
    a1.set_ylabel(r"hard-attention oracle error ($\pi_+ = 1/2$, $R = 1$)")
    for a in (a1, a2):
        a.grid(alpha=0.3)
    fig.tight_layout()
    figure_legend(fig, a2, ncol=4)
    save(fig, path, dpi=130)
    plt.close(fig)

FIGURES = {"A.representation": figure_representation, "A.sharp_threshold": figure_sharp_threshold}
