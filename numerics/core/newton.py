"""Damped Newton for a small system F(x) = 0 with an exact Jacobian, in float64 or mpmath.

A solver object for :func:`numerics.core.results.iterate` (init/step/terminate/residual/value).

* Unknowns flagged ``positive`` are solved in u = log x (they stay positive and may span
  decades); the others in u = x.
* Damping by the natural monotonicity test (Deuflhard): with the Newton correction
  du = -J_u(x)^{-1} F(x), a trial x(u + t du) is accepted if the simplified correction
  -J_u(x)^{-1} F(x_trial) is smaller than (1 - t/4) |du|; t is halved otherwise.
* Convergence: the scaled Newton correction |du|_j / max(1, |x_j|) (free unknowns; relative
  for log unknowns) is below ``tol``.  That correction estimates the distance of x to the
  root; it is what ``residual`` reports.

The functions are generic: ``fun(x) -> (F, J)`` with x, F lists and J a list of rows;
``ops`` is :data:`NUMPY` or :data:`MPMATH` (linear solve, log, exp).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.core.results import RESULTS


@dataclass(frozen=True)
class Ops:
    solve: object
    log: object
    exp: object
    isfinite: object


def _np_solve(J, F):
    return list(np.linalg.solve(np.array(J, dtype=float), np.array(F, dtype=float)))


def _mp_solve(J, F):
    import mpmath

    out = mpmath.lu_solve(mpmath.matrix(J), mpmath.matrix(F))
    return [out[i] for i in range(len(F))]


def _mp_isfinite(v):
    import mpmath

    return mpmath.isfinite(v)


NUMPY = Ops(_np_solve, math.log, math.exp, math.isfinite)


def _mp_ops():
    import mpmath

    return Ops(_mp_solve, mpmath.log, mpmath.exp, _mp_isfinite)


@dataclass(frozen=True)
class _State:
    x: tuple
    F: tuple
    Ju: tuple  # Jacobian in u
    du: tuple  # Newton correction in u
    norm: object
    result: RESULTS | None  # a terminal outcome reached inside step(), else None
    t: float  # last accepted damping factor


class Newton:
    def __init__(self, fun, positive, *, tol=1e-10, t_min=1e-6, ops: Ops | str = "numpy"):
        self.fun, self.positive, self.tol, self.t_min = fun, tuple(positive), tol, t_min
        self.ops = NUMPY if ops == "numpy" else (_mp_ops() if ops == "mpmath" else ops)

    # -- helpers
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
            return _State(tuple(x), tuple(F), (), (), float("inf"), RESULTS.nonfinite, t)
        try:
            du = self._correction(Ju, F)
        except (np.linalg.LinAlgError, ZeroDivisionError):
            return _State(tuple(x), tuple(F), (), (), float("inf"), RESULTS.singular, t)
        if not self._finite(du):
            return _State(tuple(x), tuple(F), (), (), float("inf"), RESULTS.singular, t)
        return _State(tuple(x), tuple(F), tuple(map(tuple, Ju)), tuple(du), self._norm(du, x), None, t)

    # -- the Solver protocol
    def init(self, x0):
        return self._state(list(x0))

    def step(self, s: _State) -> _State:
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
                        if self._norm(dbar, xt) <= (1 - t / 4) * s.norm:
                            return self._state(xt, t, (Ft, Jt))
                    except (np.linalg.LinAlgError, ZeroDivisionError):
                        pass
            t /= 2
        return _State(s.x, s.F, s.Ju, s.du, s.norm, RESULTS.failed, t)

    def terminate(self, s: _State):
        if s.result is not None:
            return True, s.result
        if s.norm <= self.tol:
            return True, RESULTS.successful
        return False, RESULTS.failed

    def residual(self, s: _State):
        return s.norm

    def value(self, s: _State):
        return list(s.x)
