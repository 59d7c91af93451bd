"""Newton-type solvers of systems: ``newton`` (damped, float64 or mpmath), ``mdnewton``
(mpmath.findroot with the exact Jacobian) and ``newton-ascent`` (a maximiser's polish)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import mpmath
import numpy as np

from numerics.core.results import RESULTS
from numerics.core.solve.driver import finite, inside


# --- newton: damped Newton for a small system ----------------------------------------------

@dataclass(frozen=True)
class Ops:
    solve: object
    log: object
    exp: object
    isfinite: object


def _np_solve(J, F):
    return list(np.linalg.solve(np.array(J, dtype=float), np.array(F, dtype=float)))


def _mp_solve(J, F):
    out = mpmath.lu_solve(mpmath.matrix(J), mpmath.matrix(F))
    return [out[i] for i in range(len(F))]


#: the arithmetic of the two number systems a Newton solve runs in
FLOAT64_OPS = Ops(_np_solve, math.log, math.exp, math.isfinite)
MPMATH_OPS = Ops(_mp_solve, mpmath.log, mpmath.exp, mpmath.isfinite)


@dataclass(frozen=True)
class _NewtonState:
    x: tuple
    Ju: tuple  # Jacobian in u
    du: tuple  # Newton correction in u
    norm: object
    result: RESULTS | None  # a terminal outcome reached inside step(), else None
    t: float  # last accepted damping factor


class Newton:
    """Damped Newton for F(x) = 0, ``fun(x) -> (F, J)`` (x, F lists, J a list of rows).

    * Unknowns flagged ``positive`` are solved in u = log x (they stay positive and may span
      decades); the others in u = x.
    * Damping by the natural monotonicity test (Deuflhard): with the Newton correction
      du = -J_u(x)^{-1} F(x), a trial x(u + t du) is accepted if the simplified correction
      -J_u(x)^{-1} F(x_trial) is smaller than (1 - t/4) |du|, both measured in the scaling of
      x (a trial's own scaling would accept an iterate that runs off to infinity, |x| growing
      faster than the correction); t is halved otherwise, and starts the next step at twice
      the last accepted t.
    * Convergence: the scaled Newton correction |du|_j / max(1, |x_j|) (free unknowns; relative
      for log unknowns) is below ``tol``.  That correction estimates the distance of x to the
      root; it is what ``residual`` reports.

    ``ops`` is the :class:`Ops` of its number system (linear solve, log, exp, isfinite):
    ``FLOAT64_OPS`` or ``MPMATH_OPS`` (at the caller's working precision)."""

    def __init__(self, fun, positive, *, tol=1e-10, t_min=1e-6, ops: Ops = FLOAT64_OPS):
        self.fun, self.positive, self.tol, self.t_min = fun, tuple(positive), tol, t_min
        self.ops = ops

    def _u(self, x):
        return [self.ops.log(v) if p else v for v, p in zip(x, self.positive)]

    def _x(self, u):
        return [self.ops.exp(v) if p else v for v, p in zip(u, self.positive)]

    def _norm(self, du, x):
        return max(abs(d) if p else abs(d) / max(1, abs(v)) for d, v, p in zip(du, x, self.positive))

    def _finite(self, vals):
        return all(self.ops.isfinite(v) for v in vals)

    def _correction(self, Ju, F):
        return [-v for v in self.ops.solve(Ju, F)]

    def _in_u(self, x, J):
        return [[J[i][j] * (x[j] if self.positive[j] else 1) for j in range(len(x))] for i in range(len(J))]

    def _state(self, x, t=1.0, FJ=None):
        F, J = self.fun(x) if FJ is None else FJ
        F, Ju = list(F), self._in_u(x, J)
        flat = list(F) + [v for row in Ju for v in row]
        if not self._finite(flat):
            return _NewtonState(tuple(x), (), (), float("inf"), RESULTS.nonfinite, t)
        try:
            du = self._correction(Ju, F)
        except (np.linalg.LinAlgError, ZeroDivisionError):
            return _NewtonState(tuple(x), (), (), float("inf"), RESULTS.singular, t)
        if not self._finite(du):
            return _NewtonState(tuple(x), (), (), float("inf"), RESULTS.singular, t)
        return _NewtonState(tuple(x), tuple(map(tuple, Ju)), tuple(du), self._norm(du, x), None, t)

    def init(self, x0):
        return self._state(list(x0))

    def step(self, s: _NewtonState) -> _NewtonState:
        u = self._u(s.x)
        t = min(1.0, 2 * s.t)
        while t >= self.t_min:
            try:
                xt = self._x([ui + t * di for ui, di in zip(u, s.du)])
            except OverflowError:
                xt = [float("inf")]
            if self._finite(xt):
                try:
                    Ft, Jt = self.fun(xt)
                except ArithmeticError:
                    Ft = None
                if Ft is not None and self._finite(Ft):
                    try:
                        dbar = self._correction(s.Ju, list(Ft))
                        if self._norm(dbar, s.x) <= (1 - t / 4) * s.norm:
                            return self._state(xt, t, (Ft, Jt))
                    except (np.linalg.LinAlgError, ZeroDivisionError):
                        pass
            t /= 2
        return _NewtonState(s.x, s.Ju, s.du, s.norm, RESULTS.failed, t)

    def terminate(self, s: _NewtonState):
        if s.result is not None:
            return True, s.result
        if s.norm <= self.tol:
            return True, RESULTS.successful
        return False, RESULTS.failed

    def residual(self, s: _NewtonState):
        return s.norm

    def value(self, s: _NewtonState):
        return list(s.x)


# --- mdnewton: mpmath.findroot with the exact Jacobian --------------------------------------

class _Done(NamedTuple):
    x: Any
    result: RESULTS
    residual: Any
    calls: int
    message: str = ""


class MPNewton:
    """``mpmath.findroot(f, x0, J=J, tol, maxsteps)`` (its ``mdnewton``) in the working
    precision; ``f(*x) -> list`` and ``J(*x) -> matrix`` count their calls, which is what
    ``iterations`` reports; the residual is max |f| at the root (``max_abs`` keeps it in the
    working precision)."""

    def __init__(self, f, J, *, tol, maxsteps: int = 100):
        self.f, self.J, self.tol, self.maxsteps = f, J, tol, maxsteps
        self.calls, self.max_abs = 0, None

    def _f(self, *x):
        self.calls += 1
        return list(self.f(*x))

    def init(self, x0):
        try:
            root = mpmath.findroot(self._f, list(x0), J=lambda *x: mpmath.matrix(self.J(*x)), tol=self.tol,
                                   maxsteps=self.maxsteps)
        except (ValueError, ZeroDivisionError, ArithmeticError) as e:
            return _Done(None, RESULTS.failed, math.inf, self.calls, f"mpmath Newton failed: {e}")
        x = [root[i] for i in range(len(x0))]
        g = self._f(*x)
        if any(isinstance(v, mpmath.mpc) for v in list(x) + g):
            return _Done(x, RESULTS.nonfinite, math.inf, self.calls, "complex iterate")
        self.max_abs = max(abs(v) for v in g)
        return _Done(x, RESULTS.successful, self.max_abs, self.calls)

    def step(self, s):
        return s

    def terminate(self, s):
        return True, s.result

    def residual(self, s):
        return s.residual

    def value(self, s):
        return s.x

    def iterations(self, s):
        return s.calls

    def explain(self, s):
        return s.message


# --- newton-ascent: Newton steps on a gradient (the polish of a maximiser) ------------------

class AscentState(NamedTuple):
    x: np.ndarray
    value: float
    grad: np.ndarray
    hess: np.ndarray
    failure: str = ""


class NewtonAscent:
    """Newton steps on the gradient of ``fn(x, 2) -> (value, gradient, Hessian)`` with the exact
    Hessian, halving the step until the point stays in the open box ``bounds`` and the
    objective does not decrease (beyond rounding); converged when max |gradient| <= gtol.
    The value is the final :class:`AscentState`."""

    def __init__(self, fn, bounds, gtol):
        self.fn, self.bounds, self.gtol = fn, bounds, gtol

    def _eval(self, x):  # x: a float array
        v, g, H = self.fn(x, 2)
        return AscentState(x, float(v), np.asarray(g, dtype=float), np.asarray(H, dtype=float))

    def init(self, x0):
        return self._eval(np.asarray(x0, dtype=float))

    def step(self, s):
        try:
            p = np.linalg.solve(s.hess, -s.grad)
        except np.linalg.LinAlgError:
            return s._replace(failure="singular Hessian")
        if not (finite(p) and s.grad @ p > 0):
            return s._replace(failure="Hessian not negative definite (no Newton ascent direction)")
        tau = 1.0
        for _ in range(60):
            xn = s.x + tau * p
            if inside(xn, self.bounds):
                new = self._eval(xn)
                if finite(new.value) and finite(new.grad) and finite(new.hess) \
                        and new.value >= s.value - 1e-12 * max(1.0, abs(s.value)):
                    return new
            tau /= 2
        return s._replace(failure="line search failed")

    def terminate(self, s):
        if s.failure:
            return True, RESULTS.failed
        if not (finite(s.value) and finite(s.grad) and finite(s.hess)):
            return True, RESULTS.nonfinite
        if float(np.max(np.abs(s.grad))) <= self.gtol:
            return True, RESULTS.successful
        return False, RESULTS.failed

    def residual(self, s):
        return float(np.max(np.abs(s.grad))) if finite(s.grad) else math.inf

    def value(self, s):
        return s
