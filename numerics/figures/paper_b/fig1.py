"""Figure ``B.fig1``: Paper B's Figure 1 — test error vs M, log–log, medians over seeds.

Panel (a): d = 1, 5, 30 (P = 3, beta = 2), oracle A = A* with the noise integrated out — the
phi-rate, d-free; panel (b): P = 3 and P = 8 (beta = P - 1, d = 5), oracle in quick mode and
learnt A in full mode; panel (c): the paper's panel (a) as the paper ran it, the learnt-A ERM
with realised test errors (quick: 4 seeds on the first five M; full: 10 seeds), with the
oracle fit on the same data dotted — the gap is the parametric excess of learning A (claim
B.rate.d_independence), and the d = 30 line is not parallel.  Error bars: ±2 se of the median
over seeds (bootstrap; the figures' one convention, numerics/figures/style.py); dashed lines,
drawn over the points: the theory slope -2beta/(2beta+1), anchored at each curve's first median
(from the derived exponent, numerics.theory.paper_b.rates).  Series differ in colour, marker and
a small horizontal offset (a few per cent in M) so curves that coincide stay visible.  Layout:
two panels a row at column width, the fourth cell states the conventions.  Setup:
numerics/experiments/paper_b/rates.py.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from numerics.claims.paper_b.rates import SEED_PATH, setup_for, theory_slope  # noqa: E402
from numerics.core.seeding import child  # noqa: E402
from numerics.experiments.paper_b.rates import bootstrap_slope, run_rate, run_rate_oracle_rb  # noqa: E402
from numerics.figures.style import COLUMN_WIDTH, SE_BARS, SE_LABEL, legend_below, log_ticks, num, save  # noqa: E402

MARKERS = ("o", "s", "^")
#: horizontal offsets of the series (factors on M), so coinciding curves stay distinguishable
OFFSETS = (0.95, 1.0, 1.05)
BOOT = 400


def _curve(settings, P, d, progress, learnt: bool):
    """One curve: the oracle-A experiment with the noise integrated out (12 seeds quick, 48 full)
    or the learnt-A ERM with realised errors, paired with the oracle on the same data (quick:
    4 seeds on the first five M of the grid; full: 10 seeds, whole grid)."""
    from dataclasses import replace

    setup = setup_for(P, d, settings, oracle=not learnt)
    if not settings.full:
        setup = replace(setup, seeds=4, n_values=setup.n_values[:5]) if learnt else replace(setup, seeds=12)
    ss = settings.seed_sequence(SEED_PATH, "fig1", "learnt" if learnt else "oracle", f"P{P}", f"d{d}")
    problem = settings.seed_sequence(SEED_PATH, f"P{P}", "problem")
    with threadpool_limits(1):
        if learnt:
            res = run_rate(setup, ss, progress=progress, with_bias=False, problem=problem)
        else:
            res = run_rate_oracle_rb(setup, ss, progress=progress, problem=problem)
    fit = bootstrap_slope(res.Ms, res.errors, np.random.default_rng(child(ss, 'bootstrap')))
    return res, fit


def median_se(errors, rng, boot: int = BOOT):
    """The bootstrap standard error of the median over seeds, per M (``errors``: seeds x M)."""
    errors = np.asarray(errors, dtype=float)
    n = errors.shape[0]
    idx = rng.integers(0, n, size=(boot, n))
    return np.std(np.median(errors[idx], axis=1), axis=0, ddof=1)


def _panel(ax, curves, title, rng=None):
    rng = rng if rng is not None else np.random.default_rng(np.random.SeedSequence(0))
    for k, ((label, P), (res, fit)) in enumerate(curves.items()):
        Ms = np.asarray(res.Ms, dtype=float)
        med = res.medians()
        se = SE_BARS * median_se(res.errors, rng)
        x = Ms * OFFSETS[k % len(OFFSETS)]
        line = ax.errorbar(x, med, yerr=[np.minimum(se, 0.9 * med), se], marker=MARKERS[k % len(MARKERS)], ms=4,
                           capsize=2, lw=0.8, label=f"{label}: fitted slope {num(fit.slope)} ± {num(fit.se)}")
        th = theory_slope(P)
        ax.plot(Ms, med[0] * (Ms / Ms[0]) ** th, "--", color=line[0].get_color(), lw=1.6, zorder=4,
                label=f"theory slope $-2\\beta/(2\\beta+1) = {th:.3f}$ (dashed)")
        if res.oracle_errors is not None:  # learnt runs: the A = A* fit on the same data
            ax.plot(x, np.median(res.oracle_errors, axis=0), ":", marker=".", color=line[0].get_color(),
                    lw=1, label=f"{label}, $A = A^*$ on the same data (dotted)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax, "x", subs=(1.0,))  # a narrow panel: 1000, 10000
    ax.set_xlabel("$M$ (samples)")
    ax.set_ylabel(r"$\|\hat g - g^*\|^2_\rho$")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both")
    legend_below(ax, ncol=1, fontsize=7)


def figure1(path, settings, progress):
    """Paper B Fig. 1: test error vs M, log-log, for d = 1, 5, 30 and P = 3, 8, with the theory slope."""
    a = {(f"$d = {d}$", 3): _curve(settings, 3, d, progress, learnt=False) for d in (1, 5, 30)}
    b = {(f"$P = {P}$", P): _curve(settings, P, 5, progress, learnt=settings.full) for P in (3, 8)}
    c = {(f"$d = {d}$", 3): _curve(settings, 3, d, progress, learnt=True) for d in (1, 5, 30)}
    fig, axes = plt.subplots(2, 2, figsize=(COLUMN_WIDTH, 8.4))
    size = settings.pick("4 seeds", "10 seeds")
    rng = np.random.default_rng(settings.seed_sequence(SEED_PATH, "fig1", "median-se"))
    _panel(axes[0, 0], a, "(a) $\\phi$-rate, $A = A^*$\n(noise integrated out)", rng)
    _panel(axes[0, 1], b, "(b) smoothness, $d = 5$\n(" + settings.pick("$A = A^*$", "learnt $A$") + ")", rng)
    _panel(axes[1, 0], c, f"(c) the paper's panel (a):\n$A$ learnt, {size}", rng)
    axes[1, 1].axis("off")
    axes[1, 1].text(0.0, 1.0, f"Points: the median of $\\|\\hat g - g^*\\|^2_\\rho$\nover seeds, {SE_LABEL} (bootstrap)\nof the median;\n"
                    "series offset by a few\nper cent in $M$.\nDashed: the theory slope\n"
                    "$-2\\beta/(2\\beta+1)$, anchored at\nthe first median.", va="top", fontsize=8,
                    transform=axes[1, 1].transAxes)
    fig.tight_layout(h_pad=2.0)
    save(fig, path)
    plt.close(fig)


FIGURES = {"B.fig1": figure1}
