"""Solvers in a bracket: ``rtsafe`` (Newton safeguarded by bisection), ``brent`` (scipy's
brentq) and ``golden`` (golden-section minimisation)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from numerics.core.results import RESULTS
from numerics.core.solve.driver import finite
from numerics.core.solve.newton import _Done, MPNewton


# --- brent: scipy's brentq ---------------------------------------------------------------

class Brent:
    """Root of ``f`` in [lo, hi] (a sign change) by ``scipy.optimize.brentq``; the residual is
    |f| at the root, as for the other solvers (brentq's own bound on the distance to the root
    is xtol + rtol |x|)."""

    def __init__(self, f, lo, hi, *, xtol: float = 2e-12, rtol: float = 8.881784197001252e-16,
                 maxiter: int = 100):
        self.f, self.lo, self.hi, self.xtol, self.rtol, self.maxiter = f, lo, hi, xtol, rtol, maxiter

    def init(self, _x0=None):
        from scipy.optimize import brentq

        try:
            x, r = brentq(self.f, self.lo, self.hi, xtol=self.xtol, rtol=self.rtol, maxiter=self.maxiter,
                          full_output=True, disp=False)
        except ValueError as e:  # f(lo) and f(hi) of one sign
            return _Done(None, RESULTS.no_bracket, math.inf, 0, str(e))
        result = RESULTS.successful if r.converged else RESULTS.max_steps_reached
        return _Done(x, result, abs(self.f(x)), r.iterations + 1)

    step, terminate, residual, value = MPNewton.step, MPNewton.terminate, MPNewton.residual, MPNewton.value
    iterations, explain = MPNewton.iterations, MPNewton.explain


# --- rtsafe: Newton in a bracket, and golden section ------------------------------------------

@dataclass(frozen=True)
class _BracketState:
    x: object
    lo: object
    hi: object
    fx: object
    dx: object        # the last step
    dx_old: object    # the step before
    bracketed: bool


class BracketedNewton:
    """Root of ``f`` in [lo, hi] where f changes sign: Newton steps with ``df``, bisection
    whenever a step leaves the bracket or would not halve the step before last (the
    safeguard of Numerical Recipes' rtsafe: Newton crawls on exponential tails); stops when
    |dx| <= tol (1 + |x|) or f(x) = 0."""

    def __init__(self, f, df, lo, hi, tol):
        self.f, self.df, self.tol = f, df, tol
        self.lo, self.hi = lo, hi

    def init(self, x0):
        flo, fhi = self.f(self.lo), self.f(self.hi)
        ok = flo * fhi <= 0
        # orient so that f(lo) <= 0 <= f(hi)
        lo, hi = (self.lo, self.hi) if flo <= 0 else (self.hi, self.lo)
        x = x0 if x0 is not None and min(lo, hi) < x0 < max(lo, hi) else (lo + hi) / 2  # no start: the midpoint
        width = abs(hi - lo)
        return _BracketState(x, lo, hi, self.f(x), width, width, ok)

    def step(self, s):
        d = self.df(s.x)
        x_new = s.x - s.fx / d if d != 0 else None
        small = x_new is not None and abs(x_new - s.x) <= self.tol * (1 + abs(s.x))
        within = x_new is not None and min(s.lo, s.hi) < x_new < max(s.lo, s.hi)
        if small or (within and 2 * abs(x_new - s.x) <= s.dx_old):
            dx = abs(x_new - s.x)       # a Newton step (one below the tolerance is taken as is)
        else:
            # bisection: the step is the half-width of the bracket, not the distance moved,
            # which is 0 when x is already the midpoint (the start, when x0 is outside the
            # bracket): that 0 would stop the solver at the midpoint as if it had converged
            x_new, dx = (s.lo + s.hi) / 2, abs(s.hi - s.lo) / 2
        f_new = self.f(x_new)
        lo, hi = (x_new, s.hi) if f_new <= 0 else (s.lo, x_new)
        return _BracketState(x_new, lo, hi, f_new, dx, s.dx, True)

    def terminate(self, s):
        if not s.bracketed:
            return True, RESULTS.no_bracket
        if not (finite(s.x) and finite(s.fx)):
            return True, RESULTS.nonfinite
        if s.fx == 0 or s.dx <= self.tol * (1 + abs(s.x)):
            return True, RESULTS.successful
        return False, RESULTS.failed

    def residual(self, s):
        return abs(s.fx)

    def value(self, s):
        return s.x


@dataclass(frozen=True)
class _GoldenState:
    a: object
    b: object
    x1: object
    x2: object
    f1: object
    f2: object


class GoldenSection:
    """Minimiser of ``f`` on [lo, hi] (unimodal there) by golden-section search; stops when
    the bracket is below tol (1 + |x|)."""

    R = (math.sqrt(5) - 1) / 2

    def __init__(self, f, lo, hi, tol):
        self.f, self.lo, self.hi, self.tol = f, lo, hi, tol

    def init(self, _x0=None):
        a, b = self.lo, self.hi
        x1, x2 = b - self.R * (b - a), a + self.R * (b - a)
        return _GoldenState(a, b, x1, x2, self.f(x1), self.f(x2))

    def step(self, s):
        if s.f1 < s.f2:
            b, x2, f2 = s.x2, s.x1, s.f1
            x1 = b - self.R * (b - s.a)
            return _GoldenState(s.a, b, x1, x2, self.f(x1), f2)
        a, x1, f1 = s.x1, s.x2, s.f2
        x2 = a + self.R * (s.b - a)
        return _GoldenState(a, s.b, x1, x2, f1, self.f(x2))

    def terminate(self, s):
        if not (finite(s.f1) and finite(s.f2)):
            return True, RESULTS.nonfinite
        done = abs(s.b - s.a) <= self.tol * (1 + abs(s.x1))
        return done, (RESULTS.successful if done else RESULTS.failed)

    def residual(self, s):
        return abs(s.b - s.a)

    def value(self, s):
        return s.x1 if s.f1 <= s.f2 else s.x2
