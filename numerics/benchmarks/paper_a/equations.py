"""Benchmark of the step-4 attention equations (the ERM self-consistent equations).

* ``one_point``: attention, logistic, one alpha1, solved to a Newton correction of 1e-11
  (QMC law of 2 x 8 x 2^10 points; quick: 2 x 4 x 2^8).
* ``curve``: 20 alpha1 values by continuation.
* ``baseline``: the same compiled equations on the same (smaller) point set, solved the way
  peer research codes do: ``scipy.optimize.root`` (hybr, finite-difference Jacobian), each
  zeta-average by ``scipy.integrate.quad`` over the real line with the proximal point found by
  ``brentq`` inside the integrand.  Both solvers run in this process on an identical point
  set; the ratio is baseline time / ours (if the baseline stops at its time cap, the ratio is
  a lower bound and says so).
"""
from __future__ import annotations

import time

import numpy as np


def _baseline_solve(law, alpha1, lam, loss, x0, time_cap):
    from scipy.integrate import quad
    from scipy.optimize import brentq, root

    from numerics.core.quadrature import gaussian_density
    from numerics.theory.paper_a import erm_equations as erm_theory

    cmp = erm_theory.compiled(loss, law.signal_along_q)
    n = cmp.n
    alpha = alpha1 / law.dim
    t0 = time.perf_counter()

    class Cap(Exception):
        pass

    def prox(z, x, lat):
        g = lambda hh: float(cmp.prox(hh, z, *x, *lat)[0])  # noqa: E731
        h0 = float(cmp.omega(0.0, z, *x, *lat))
        lo, hi, step = h0 - 1.0, h0 + 1.0, 1.0
        while g(lo) > 0:
            step *= 2
            lo = h0 - step
        while g(hi) < 0:
            step *= 2
            hi = h0 + step
        return brentq(g, lo, hi, xtol=1e-14)

    def F(x):
        if time.perf_counter() - t0 > time_cap:
            raise Cap
        avg = np.zeros(n)
        for lat, wt in zip(zip(*law.latent), law.weight):
            for k in range(n):
                f = lambda z, k=k: float(cmp.channel(prox(z, x, lat), z, *x, *lat)[k]) * gaussian_density(z)  # noqa: E731
                avg[k] += wt * quad(f, -np.inf, np.inf)[0]
        return np.array(cmp.outer(*x, alpha, lam, *avg)[:n], dtype=float)

    try:
        r = root(F, x0, method="hybr")
        x, ok = r.x, bool(r.success)
    except Cap:
        x, ok = None, False
    return x, ok, time.perf_counter() - t0


def bench_attention_equations(settings) -> dict:
    """The step-4 attention equations (ERM self-consistent equations): one point and a continuation."""
    from numerics.theory.paper_a import erm_equations as erm_theory
    from numerics.theory.paper_a import models as M

    args = dict(L=10, R=1, pi=0.5, theta=5.0, beta=1.0, q_norm=2.0, s_q=0.5)
    law_of = lambda log2, K: erm_theory.attention_law(args["L"], args["R"], args["pi"], args["theta"], args["beta"],  # noqa: E731
                                              args["q_norm"], args["s_q"], log2_points=log2, n_scrambles=K, seed=1)
    log2, K = settings.pick((8, 4), (10, 8))
    law = law_of(log2, K)
    t0 = time.perf_counter()
    r = erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC, quad_tol=1e-7)
    t_one = time.perf_counter() - t0
    alphas = np.geomspace(0.5, 8.0, 20)
    t0 = time.perf_counter()
    curve = erm_theory.continuation(law, alphas[::-1], 1e-2, M.LOGISTIC, quad_tol=1e-7)
    t_curve = time.perf_counter() - t0
    # baseline vs ours on one small identical point set
    small = law_of(settings.pick(2, 3), 2)
    t0 = time.perf_counter()
    rs = erm_theory.solve(small, 2.0, 1e-2, M.LOGISTIC, quad_tol=1e-9)
    t_ours_small = time.perf_counter() - t0
    start = [0.0, 0.0, 0.0, 0.5, 1.0]
    xb, okb, t_base = _baseline_solve(small, 2.0, 1e-2, M.LOGISTIC, start, time_cap=settings.pick(30.0, 120.0))
    gap = float(np.max(np.abs(np.array(xb) - np.array(rs.value.vector)))) if okb else None
    return {
        "one_point_converged": r.ok, "one_point_correction": r.residual, "one_point_s": round(t_one, 3),
        "one_point_points": len(law.weight), "one_point_zeta_nodes": r.stats.get("quad_nodes"),
        "curve_20_converged": sum(c.ok for c in curve), "curve_20_s": round(t_curve, 3),
        "small_points": len(small.weight), "ours_small_s": round(t_ours_small, 3),
        "baseline_s": round(t_base, 3), "baseline_converged": okb, "baseline_minus_ours_max": gap,
        "ratio_baseline_over_ours": round(t_base / t_ours_small, 1),
        "ratio_note": "baseline converged" if okb else "baseline stopped at its time cap: ratio is a lower bound",
    }


BENCHMARKS = {"A.attention_equations": bench_attention_equations}
