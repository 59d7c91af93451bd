"""Figure ``B.fig1``: Paper B's Figure 1 — test error vs M, log–log, medians over seeds.

Panel (a): d = 1, 5, 30 (P = 3, beta = 2); panel (b): P = 3 and P = 8 (beta = P - 1, d = 5).
Error bars: interquartile range over seeds; dashed lines: the theory slope -2beta/(2beta+1),
anchored at each curve's first median.  Quick mode: the oracle-A conditional-MC experiment
(12 seeds, as in the claims but fewer seeds); full mode: the learnt-A ERM with realised test
errors (the paper's metric; 5 seeds), with the oracle A = A* fit on the same data dotted:
the gap is the parametric excess of learning A (claim B.rate.d_independence).  Setup:
numerics/rate_experiments.py.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from numerics.claims.paper_b_rates import SEED_PATH, setup_for, theory_slope  # noqa: E402
from numerics.rate_experiments import bootstrap_slope, run_rate, run_rate_oracle_rb  # noqa: E402


def _curve(settings, P, d, progress):
    setup = setup_for(P, d, settings.full, oracle=not settings.full)
    if not settings.full:
        from dataclasses import replace

        setup = replace(setup, seeds=12)
    ss = settings.seed_sequence(SEED_PATH, "fig1", f"P{P}", f"d{d}")
    problem = settings.seed_sequence(SEED_PATH, f"P{P}", "problem")
    with threadpool_limits(1):
        if settings.full:
            res = run_rate(setup, ss, progress=progress, with_bias=False, problem=problem)
        else:
            res = run_rate_oracle_rb(setup, ss, progress=progress, problem=problem)
    fit = bootstrap_slope(res.Ms, res.errors, np.random.default_rng(ss.spawn(1)[0]))
    return res, fit


def _panel(ax, curves, title):
    for (label, P), (res, fit) in curves.items():
        Ms = np.asarray(res.Ms, dtype=float)
        med = res.medians()
        lo, hi = np.quantile(res.errors, [0.25, 0.75], axis=0)
        line = ax.errorbar(Ms, med, yerr=[med - lo, hi - med], marker="o", ms=4, capsize=3,
                           label=f"{label}: slope {fit.slope:.3f} ± {fit.se:.3f}")
        th = theory_slope(P)
        ax.plot(Ms, med[0] * (Ms / Ms[0]) ** th, "--", color=line[0].get_color(), lw=1,
                label=f"theory {th:.3f}")
        if res.oracle_errors is not None:  # learnt runs: the A = A* fit on the same data
            ax.plot(Ms, np.median(res.oracle_errors, axis=0), ":", marker=".", color=line[0].get_color(),
                    lw=1, label=f"{label}, A = A* (same data)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("M (samples)")
    ax.set_ylabel(r"$\|\hat g - g^*\|^2_\rho$ (median)")
    ax.set_title(title)
    ax.legend(fontsize=7)


def figure1(path, settings, progress):
    a = {(f"d={d}", 3): _curve(settings, 3, d, progress) for d in (1, 5, 30)}
    b = {(f"P={P}", P): _curve(settings, P, 5, progress) for P in (3, 8)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    what = "learnt A, realised error" if settings.full else "oracle A, noise integrated out"
    _panel(axes[0], a, f"(a) P=3, beta=2: d-independence ({what})")
    _panel(axes[1], b, f"(b) smoothness, d=5 ({what})")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


FIGURES = {"B.fig1": figure1}
