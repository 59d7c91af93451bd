"""Roots of increasing functions (proximal points): ``increasing`` (vectorised over numpy
arrays) and ``increasing-scalar`` (one root, any number type)."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from numerics.core.results import RESULTS, Solution, SolveError
from numerics.core.solve.driver import iterate


# --- increasing / increasing-scalar: roots of increasing functions (prox points) ------------

def _flat(args, shape):
    out = []
    for v in args:
        v = np.asarray(v, dtype=float)
        out.append(v if v.ndim == 0 else np.broadcast_to(v, shape).ravel())
    return out


def _take(args, idx):
    return [v if v.ndim == 0 else v[idx] for v in args]


def _eval(GG, h, args):
    g, gh = GG(h, *args)
    return (np.broadcast_to(np.asarray(g, dtype=float), np.shape(h)),
            np.broadcast_to(np.asarray(gh, dtype=float), np.shape(h)))


class _Roots:
    """The iterates of :class:`IncreasingRoot` (arrays updated in place) and the active set."""

    def __init__(self, u, shape):
        self.u, self.shape = u, shape
        self.lo, self.hi = np.full(u.size, -np.inf), np.full(u.size, np.inf)
        self.f_prev = np.full(u.size, np.inf)
        self.act = np.arange(u.size)
        self.flat = None
        self.step = 0.0  # the largest relative step of the last iteration


class IncreasingRoot:
    """h with G(h, *args) = 0, elementwise, for G increasing in h; ``GG(h, *args)`` returns
    (G, G_h) (one compiled function); ``args`` broadcastable to the start.

    Newton from the start; the bracket [lo, hi] is tightened by the sign of G at every
    iterate; a step that leaves the bracket or does not halve |G| is replaced by bisection
    once both ends are known, and by a step four times longer towards the root before.  While
    most points are active the compiled function is evaluated on the broadcast arguments as
    given; the last few points are iterated alone.  One step is one iteration of every active
    point; the residual is the largest relative step of the last one."""

    def __init__(self, GG, args, *, tol: float = 1e-14):
        self.GG, self.args, self.tol = GG, args, tol

    def init(self, h0):
        u = np.array(h0, dtype=float)
        return _Roots(u.ravel(), u.shape)

    def step(self, s: _Roots) -> _Roots:
        tol, act, u = self.tol, s.act, s.u
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if act.size > u.size // 2:  # evaluate everywhere on the arguments as given
                f, fp = _eval(self.GG, u.reshape(s.shape), self.args)
                f, fp = f.ravel()[act], fp.ravel()[act]
            else:
                if s.flat is None:
                    s.flat = _flat(self.args, s.shape)
                f, fp = _eval(self.GG, u[act], _take(s.flat, act))
            ua = u[act]
            newton = ua - f / fp
            af = np.abs(f)
            small = np.abs(newton - ua) <= tol * (1.0 + np.abs(ua))
            la = np.where(f < 0, ua, s.lo[act])
            ha = np.where(f > 0, ua, s.hi[act])
            bad = ~small & ((newton <= la) | (newton >= ha) | (af > 0.5 * s.f_prev[act]) | ~np.isfinite(newton))
            if bad.any():
                ib = np.flatnonzero(bad)
                l, r, x0, fb = la[ib], ha[ib], ua[ib], f[ib]
                both = np.isfinite(l) & np.isfinite(r)
                d = np.where(np.isfinite(newton[ib]), np.abs(newton[ib] - x0), 0.0)
                towards = np.where(fb < 0, 1.0, -1.0) * np.maximum(d, 1e-3 * (1.0 + np.abs(x0)))
                newton[ib] = np.where(both, 0.5 * (l + r), x0 + 4.0 * towards)
                small[ib] = both & (r - l <= tol * (1.0 + np.abs(x0)))
            newton = np.where(f == 0, ua, newton)
            rel = np.abs(newton - ua) / (1.0 + np.abs(ua))
            s.step = float(rel.max())  # a step has an active point (terminate stops at none)
            s.f_prev[act], s.lo[act], s.hi[act], u[act] = af, la, ha, newton
            s.act = act[~(small | (f == 0))]
        return s

    def terminate(self, s: _Roots):
        self.active = s.act.size
        return (True, RESULTS.successful) if s.act.size == 0 else (False, RESULTS.failed)

    def explain(self, _s):
        return f"{self.active}"

    def residual(self, s: _Roots):
        return s.step if s.act.size == 0 else math.inf

    def value(self, s: _Roots):
        return s.u.reshape(s.shape)


def increasing_root(GG, args, h0, *, tol: float = 1e-14, max_iter: int = 200) -> np.ndarray:
    """The roots of :class:`IncreasingRoot` from ``h0``; raises :class:`SolveError` if some
    root is not found in ``max_iter`` iterations."""
    solver = IncreasingRoot(GG, args, tol=tol)
    sol = iterate(solver, h0, max_steps=max_iter, throw=False)
    if not sol.ok:
        raise SolveError(Solution(RESULTS.max_steps_reached, max_iter, float("inf"),
                                  message=f"{solver.explain(None)} proximal points did not converge"))
    return sol.raw


class _Scalar(NamedTuple):
    u: Any
    lo: Any
    hi: Any
    f_prev: Any
    step: Any
    result: RESULTS | None  # set when the search ended (a root, or no bracket)


class IncreasingRootScalar:
    """The scalar :class:`IncreasingRoot` for any number type with +, -, *, /, abs and
    comparisons (e.g. mpmath.mpf): ``GG(h) -> (G, G_h)``.  ``init`` brackets the root by
    steps growing away from the start (at most ``max_expand``); each step is then one rtsafe
    iteration (Newton, bisection when it leaves the bracket or |G| did not halve)."""

    def __init__(self, GG, *, tol, max_expand: int = 400):
        self.GG, self.tol, self.max_expand = GG, tol, max_expand

    def init(self, h0):
        GG, tol = self.GG, self.tol
        x = h0
        g, gh = GG(x)
        if g == 0:
            return _Scalar(x, x, x, None, 0, RESULTS.successful)
        up = g < 0
        step = abs(g) / gh if gh > 0 else 1
        step = max(step, tol * (1 + abs(x)) * 16)
        for _ in range(self.max_expand):
            probe = x + step if up else x - step
            gp = GG(probe)[0]
            if gp == 0:  # the probe is the root (Newton would otherwise bisect towards this end)
                return _Scalar(probe, probe, probe, None, 0, RESULTS.successful)
            if (gp > 0) if up else (gp < 0):
                lo, hi = (x, probe) if up else (probe, x)
                return _Scalar((lo + hi) / 2, lo, hi, None, hi - lo, None)
            x = probe
            step *= 4
        return _Scalar(x, x, x, None, math.inf, RESULTS.no_bracket)

    def step(self, s: _Scalar) -> _Scalar:
        u, lo, hi = s.u, s.lo, s.hi
        f, fp = self.GG(u)
        if f == 0:
            return s._replace(step=0, result=RESULTS.successful)
        if f < 0:
            lo = u
        else:
            hi = u
        un = u - f / fp
        if un <= lo or un >= hi or (s.f_prev is not None and abs(f) > abs(s.f_prev) / 2):
            un = (lo + hi) / 2
        tol = self.tol * (1 + abs(un))
        done = abs(un - u) <= tol  # u is an end of [lo, hi] and un inside it: the bracket is no narrower
        return _Scalar(un, lo, hi, f, abs(un - u), RESULTS.successful if done else None)

    def terminate(self, s: _Scalar):
        return (True, s.result) if s.result is not None else (False, RESULTS.failed)

    def residual(self, s: _Scalar):
        return s.step

    def value(self, s: _Scalar):
        return s.u


def increasing_root_scalar(GG, h0, *, tol, max_iter: int = 200, max_expand: int = 400):
    """The root of :class:`IncreasingRootScalar` from ``h0``; raises :class:`SolveError`."""
    sol = iterate(IncreasingRootScalar(GG, tol=tol, max_expand=max_expand), h0, max_steps=max_iter, throw=False)
    if sol.result is RESULTS.no_bracket:
        raise SolveError(Solution(RESULTS.no_bracket, max_expand, float("inf"), message="proximal point not bracketed"))
    if not sol.ok:
        raise SolveError(Solution(RESULTS.max_steps_reached, max_iter, float("inf"),
                                  message="proximal point did not converge"))
    return sol.raw
