"""Maximise a smooth objective with exact derivatives, reporting a :class:`Solution`.

Generic machinery: the objective and its derivatives are supplied by the caller (compiled from
SymPy), nothing here knows a model.

* ``fn(x, order) -> (value, gradient, Hessian)`` is the objective; entries above ``order``
  may be None.  :func:`sample_average` builds it for x -> g(x, D(x)), D(x) = sum_i w_i h(x; z_i),
  from compiled h (vectorised over the points z_i) and g, by the chain rule.
* :func:`maximize`: scipy's L-BFGS-B on -value with the exact gradient from several starts,
  then Newton steps with the exact Hessian (``newton-ascent`` of :mod:`numerics.core.solve`).
  The maximiser is the value of a successful :class:`Solution` only if the gradient vanishes
  to ``gtol``, the Hessian is negative definite and the point lies inside the open domain;
  otherwise the Solution says why, and ``.value`` raises.
* :func:`polish_mp`: Newton's method in mpmath (``mdnewton``: ``findroot`` with the exact
  Jacobian) on the gradient, from a float maximiser, with the same checks at ``dps`` digits.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import mpmath
import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from numerics.core.results import RESULTS, Solution
from numerics.core.solve import MPNewton, finite, inside, iterate, solve

#: distance kept from a finite bound of the open domain by L-BFGS-B, and the distance a
#: maximiser must keep from it to count as interior
BOUND_MARGIN = 1e-12
INTERIOR = 1e-8


def sample_average(inner: Callable, outer: Callable, weight) -> Callable:
    """``fn(x, order)`` for x -> g(x, D(x)), D(x) = sum_i weight_i h(x; z_i).

    ``inner(x, order) -> (h (n,), dh (k, n), d2h (k, k, n))``: the summand at every point;
    ``outer(x, D, order) -> (g, dg (k + 1,), d2g (k + 1, k + 1))``: derivatives in (x, D), D
    the last coordinate."""
    w = np.asarray(weight, dtype=float)

    def fn(x, order=2):
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # non-finite: caller's check
            return _fn(x, order)

    def _fn(x, order):
        h, dh, d2h = inner(x, order)
        Dv = np.float64(w @ h)  # numpy semantics: D = 0 gives inf/nan (handled), not an exception
        g, dg, d2g = outer(x, Dv, order)
        if order == 0:
            return g, None, None
        dD = dh @ w
        grad = dg[:-1] + dg[-1] * dD
        if order == 1:
            return g, grad, None
        d2D = d2h @ w
        H = (d2g[:-1, :-1] + np.outer(d2g[:-1, -1], dD) + np.outer(dD, d2g[-1, :-1])
             + d2g[-1, -1] * np.outer(dD, dD) + dg[-1] * d2D)
        return g, grad, H

    return fn


def _finite(*xs) -> bool:
    return all(finite(x) for x in xs)


def _strict_max(eigs) -> bool:
    eigs = np.asarray(eigs, dtype=float)
    return bool(np.all(np.isfinite(eigs)) and eigs.max() < -1e-9 * max(1.0, np.abs(eigs).max()))


def maximize(fn: Callable, starts: Sequence, bounds: Sequence, *, gtol: float = 1e-10,
             max_newton: int = 50, names: Sequence[str] = ()) -> Solution:
    """Maximise ``fn`` over the open box ``bounds`` ((lo, hi) per coordinate, None = unbounded).
    ``Solution.raw`` is the maximiser (float array); ``stats`` has the value, the Hessian's
    eigenvalues and the L-BFGS-B runs.  BLAS runs single-threaded inside (a few variables and
    vector reductions: threads cost far more than they save, most of all on a loaded machine)."""
    with threadpool_limits(1):
        return _maximize(fn, starts, bounds, gtol, max_newton, names)


def _maximize(fn, starts, bounds, gtol, max_newton, names) -> Solution:
    closed = [(None if lo is None else lo + BOUND_MARGIN * max(1.0, abs(lo)),
               None if hi is None else hi - BOUND_MARGIN * max(1.0, abs(hi))) for lo, hi in bounds]

    def neg(x):
        v, g, _ = fn(x, 1)
        if not _finite(v, g):
            return math.inf, np.zeros_like(x)
        return -float(v), -np.asarray(g, dtype=float)

    runs, best = [], None
    for x0 in starts:
        res = minimize(neg, np.asarray(x0, dtype=float), jac=True, method="L-BFGS-B", bounds=closed,
                       options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 2000})
        runs.append({"start": list(map(float, x0)), "value": -float(res.fun), "nit": int(res.nit),
                     "message": str(res.message)})
        if math.isfinite(res.fun) and (best is None or res.fun < best.fun):
            best = res
    stats = {"lbfgs": runs, "names": tuple(names)}
    if best is None:
        return Solution(RESULTS.nonfinite, 0, math.inf, None, "objective not finite from any start", stats)
    sol = solve("newton-ascent", fn, bounds, gtol, x0=best.x, max_steps=max_newton, throw=False)
    s = sol.raw
    eigs = np.linalg.eigvalsh(s.hess) if _finite(s.hess) else np.full(len(s.x), np.nan)
    stats.update({"value": s.value, "hessian_eigenvalues": eigs.tolist(), "newton_steps": sol.iterations})
    result, message = sol.result, sol.message or s.failure
    if result.ok and not _strict_max(eigs):
        result, message = RESULTS.failed, f"not a strict maximum (Hessian eigenvalues {eigs.tolist()})"
    if result.ok and not inside(s.x, bounds, INTERIOR):
        result, message = RESULTS.failed, f"maximum on the boundary of the domain at {s.x.tolist()}"
    return Solution(result, sol.iterations, sol.residual, s.x, message, stats)


def polish_mp(grad: Callable, hess: Callable, x0, dps: int, bounds: Sequence, *,
              max_steps: int = 100) -> Solution:
    """Newton (``mdnewton``: ``mpmath.findroot`` with the exact Jacobian ``hess``) on
    ``grad(*x) = 0`` at dps + 15 digits from the float point ``x0``; successful iff the residual
    is below 10^-dps, the Hessian is negative definite and the root is inside ``bounds``.
    ``Solution.raw`` is the root (list of mpf at dps + 15 digits)."""
    with mpmath.workdps(dps + 15):
        start = [mpmath.mpf(float(v)) for v in x0]
        newton = MPNewton(grad, hess, tol=mpmath.mpf(10) ** (-2 * (dps + 5)), maxsteps=max_steps)
        sol = iterate(newton, start, throw=False)
        if sol.result is RESULTS.nonfinite:
            return Solution(RESULTS.nonfinite, sol.iterations, math.inf, sol.raw,
                            "complex iterate (objective not positive)")
        if not sol.ok:
            return Solution(RESULTS.failed, sol.iterations, math.inf, None, sol.message)
        x, resid = sol.raw, newton.max_abs  # max |grad| at the root, in mpmath
        eigs = mpmath.eigsy(mpmath.matrix(hess(*x)))[0]
        is_max = all(e < 0 for e in eigs)
        inside_ = all((lo is None or xi > lo) and (hi is None or xi < hi) for xi, (lo, hi) in zip(x, bounds))
        if not (resid <= mpmath.mpf(10) ** (-dps) and is_max and inside_):
            return Solution(RESULTS.failed, sol.iterations, float(resid), x,
                            f"no strict interior maximum (residual {mpmath.nstr(resid, 3)}, "
                            f"max={is_max}, inside={inside_})")
        return Solution(RESULTS.successful, sol.iterations, float(resid), x,
                        stats={"hessian_eigenvalues": [float(e) for e in eigs]})
