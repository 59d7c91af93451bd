"""Rigorous enclosures of compiled SymPy expressions: ball arithmetic with python-flint.

The compiler (``compile_arb`` / ``compile_acb``, the printer that refuses what it cannot
evaluate rigorously, and the errors) is :mod:`numerics.core.arb_compile`; its names are
imported here, so ``numerics.core.arb`` stays the one entry point.  This module holds the
numbers going in and out (:func:`arb_of`, :func:`precision`, :class:`Ball`) and the generic
certified numerics on top (no model formula here; the expressions come from the
caller): :func:`gaussian_expectation` (E f(mu + s zeta), zeta ~ N(0, 1), by ``acb.integral`` on
[-Z, Z] plus a rigorous Gaussian-tail bound), :func:`real_line_bound` (sup |f| over the real
line of a rational function of exp(x)), :func:`krawczyk` (interval Newton: proves a unique
root of a system in a box), :class:`Ball` (midpoint, radius and certified digits as strings).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Callable, Sequence

import sympy as sp

from numerics.core.arb_compile import (ArbPrintError, ArbPrinter, CertificateMismatch, CertifyError,  # noqa: F401
                                       compile_acb, compile_arb)

try:  # python-flint is a dependency; the import error says so if it is missing
    from flint import acb, arb, arb_mat, ctx
except ImportError as e:  # pragma: no cover
    raise ImportError("certified evaluation needs python-flint (pip install python-flint)") from e

__all__ = ["ArbPrintError", "ArbPrinter", "Ball", "CertificateMismatch", "CertifyError", "arb_of", "ball", "compile_acb",
           "compile_arb", "gaussian_cutoff", "gaussian_expectation", "krawczyk", "normal_tail", "precision", "real_line_bound"]


# ---- numbers in and out ----------------------------------------------------------------------
def arb_of(x) -> arb:
    """A user number as a ball around its exact value: ints exact, decimal strings and floats
    through their decimal representation (0.2 is a ball around 1/5), SymPy rationals as p/q."""
    if isinstance(x, arb):
        return x
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number here")
    if isinstance(x, int):
        return arb(x)
    if isinstance(x, sp.Basic) and not isinstance(x, sp.Rational):
        raise TypeError(f"arb_of takes numbers, got the expression {x}")
    q = x if isinstance(x, sp.Rational) else sp.Rational(x if isinstance(x, str) else repr(float(x)))
    return arb(int(q.p)) / int(q.q)  # p / 1 is exact


def bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10)))


@contextmanager
def precision(prec_bits: int):
    """Set the working precision of FLINT (bits) inside the block."""
    old = ctx.prec
    ctx.prec = int(prec_bits)
    try:
        yield
    finally:
        ctx.prec = old


def width_ok(x: arb, digits: int) -> bool:
    """2 rad <= 10^-digits, absolutely and relative to |x| (unless the ball contains 0)."""
    if not x.is_finite():
        return False
    tol = arb(10) ** (-digits)
    w = 2 * x.rad()
    if w > tol:
        return False
    return bool(x.contains(0)) or bool(w <= tol * abs(x).lower())


def _up(x: arb, sig: int = 3) -> str:
    """An upper bound of the non-negative ball x as a short decimal string (rounded up)."""
    u = x.upper() if not x.is_zero() else arb(0)
    if u.is_zero():
        return "0"
    s = u.str(sig + 5, radius=False, more=True)
    d = Decimal(s.strip("[]").split(" ")[0])
    q = Decimal(1).scaleb(d.adjusted() - sig + 1)
    return str(d.quantize(q, rounding=ROUND_CEILING) + q)


@dataclass(frozen=True)
class Ball:
    """A certified enclosure: the true value lies in [mid - rad, mid + rad] (decimal strings,
    rounded outward); ``digits`` the decimal digits FLINT certifies, ``value`` the ball."""

    mid: str
    rad: str
    digits: str
    value: object

    def __str__(self) -> str:
        return f"{self.digits}  [{self.mid} ± {self.rad}]"

    def contains(self, x) -> bool:
        """Does the ball contain x (an mpmath mpf, taken exactly, or a decimal string)?"""
        if isinstance(x, str):
            v = sp.Rational(x)
        else:
            import mpmath

            sign, man, exp, _ = (x if isinstance(x, mpmath.mpf) else mpmath.mpf(x))._mpf_
            if not man and exp:  # inf / nan
                return False
            v = (-1) ** sign * sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
        with precision(bits(len(self.mid) + 40) + abs(v.p.bit_length()) + v.q.bit_length()):
            return _exact_ball(self).contains(arb(int(v.p)) / int(v.q) if v.q != 1 else arb(int(v.p)))

    def width(self) -> float:
        return 2 * float(Decimal(self.rad))


def _exact_ball(b: Ball) -> arb:
    m, r = sp.Rational(b.mid), sp.Rational(b.rad)
    with precision(bits(len(b.mid) + 40)):
        return arb(int(m.p)) / int(m.q) + arb(0, (arb(int(r.p)) / int(r.q)).upper())


def ball(x: arb, digits: int) -> Ball:
    """``x`` as strings: midpoint with digits + 10 significant digits, a radius that covers the
    ball and the rounding of the midpoint, the digits FLINT certifies (at most ``digits``)."""
    if not x.is_finite():
        raise CertifyError(f"non-finite ball {x}")
    mid = x.mid()  # exact: printed without brackets or radius
    mid_s = mid.str(digits + 10, radius=False, more=True)
    with precision(max(ctx.prec, bits(digits + 40))):
        printed = arb_of(sp.Rational(mid_s))
        rad = x.rad() + abs(mid - printed).upper() + printed.rad()
    return Ball(mid_s, _up(arb(rad)), x.str(digits, radius=False), x)


# ---- certified numerics ----------------------------------------------------------------------
def real_line_bound(f: sp.Expr, x: sp.Symbol, max_depth: int = 8) -> arb:
    """An upper bound of sup over real x of |f(x)|, for f a rational function of exp(x).

    With e = exp(x): x <= 0 is e in (0, 1], x >= 0 is w = 1/e in (0, 1]; the two rational
    functions r(e), r(1/w) are evaluated in ball arithmetic on [0, 1] split into 2^k pieces,
    k = 0 .. max_depth (511 evaluations a side): each split whose pieces are all finite bounds
    the side by its largest piece, and the least of these bounds is kept (a peak narrower than
    the coarse pieces is bounded closely only by the fine ones).  Raises
    :class:`CertifyError` if f is not of that form or no split is finite."""
    if x not in f.free_symbols:
        return abs(compile_arb(f, ())())
    e = sp.Dummy("e", positive=True)
    g = sp.cancel(sp.powsimp(sp.expand_power_exp(f.subs(x, sp.log(e)))))
    if g.free_symbols != {e} or not g.is_rational_function(e):
        raise CertifyError(f"cannot bound |{f}| on the real line: not a rational function of exp({x})")
    best = arb(0)
    for side in (g, sp.cancel(g.subs(e, 1 / e))):
        fn = compile_arb(side, (e,))
        bound = None  # the side's least bound so far
        for depth in range(max_depth + 1):
            n = 2**depth
            vals = [fn(arb(arb(2 * i + 1) / (2 * n), arb(1) / (2 * n))) for i in range(n)]
            if all(v.is_finite() for v in vals):
                split = arb(0)
                for v in vals:  # in balls: a float key would tie every bound beyond 1e308
                    split = split.max(abs(v).upper())
                bound = split if bound is None else bound.min(split)
        if bound is None:
            raise CertifyError(f"|{f}| is not bounded on the real line (ball evaluation not finite)")
        best = best.max(bound)
    return best.upper()


def normal_tail(Z) -> arb:
    """P(|zeta| > Z), zeta ~ N(0, 1), as a ball: erfc(Z / sqrt 2) (both tails)."""
    Z = arb(Z)
    return (Z / arb(2).sqrt()).erfc()


def gaussian_cutoff(bound, digits: int) -> tuple:
    """(Z, tail): the truncation [-Z, Z] of a Gaussian expectation of an integrand with
    sup |f| <= ``bound`` (B) and the rigorous bound ``B * P(|zeta| > Z)`` of what it leaves out,
    with Z = ceil(sqrt(2 (digits + 6) ln 10 + 2 ln(max(B, 1) + 1))).  The tail is then below
    10^-(digits + 6): P(|zeta| > Z) <= exp(-Z^2 / 2) <= 10^-(digits + 6) / (max(B, 1) + 1)."""
    bound = arb(bound).upper()
    Z = arb(int(math.ceil(math.sqrt(2 * (digits + 6) * math.log(10) + 2 * math.log(max(1.0, float(bound.mid()))
                                                                                     + 1)))))
    return Z, (bound * normal_tail(Z)).upper()


def gaussian_expectation(f_acb: Callable, mu: arb, s: arb, bound: arb, digits: int) -> arb:
    """E f(mu + s zeta), zeta ~ N(0, 1), as a ball: ``acb.integral`` of f(mu + s z) phi(z) on
    [-Z, Z] (f given over complex balls with the analytic flag, ``compile_acb``; it must be
    analytic near the real segment, else the integral is not finite and this raises) plus the
    tail, bounded by ``bound`` (>= sup |f| on the real line) times P(|zeta| > Z) =
    erfc(Z/sqrt 2), added as a radius (:func:`gaussian_cutoff`)."""
    Z, tail = gaussian_cutoff(bound, digits)
    norm = 1 / (2 * arb.pi()).sqrt()
    mu_c, s_c = acb(mu), acb(s)

    def integrand(z, analytic):
        return f_acb(mu_c + s_c * z, _an=analytic) * (-(z * z) / 2).exp()

    val = acb.integral(integrand, -Z, Z)
    if not (val.real.is_finite() and val.imag.contains(0)):
        raise CertifyError(f"Gaussian expectation: quadrature did not give a finite real ball ({val})")
    return val.real * norm + arb(0, tail)


def krawczyk(F: Callable, J: Callable, x0: Sequence, radius: float, digits: int, max_iter: int = 60):
    """A box proved to contain exactly one root of F (a function of n real balls returning n
    balls; J its Jacobian, n x n balls, both compiled from SymPy), around the guess x0, and
    shrunk until every side has width <= 10^-digits.

    Krawczyk operator K(X) = m - Y F(m) + (I - Y J(X)) (X - m), m the midpoint of X, Y the
    midpoint inverse of J(m): K(X) in the interior of X proves a unique root in X, and the
    root lies in K(X) (then X <- K(X) ∩ X and repeat).  The starting box is x0 +- radius;
    when its inclusion fails, radius x 1e2, 1e3, 1e-2, 1e-4, 1e-6 are tried.
    Returns (box, iterations)."""
    n = len(x0)
    tol = arb(10) ** (-digits)
    eye = arb_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])

    def K_of(X):
        m = [arb(v.mid()) for v in X]
        Jm = arb_mat([[v.mid() for v in row] for row in J(*m)])
        try:
            Yi = Jm.inv()
        except ZeroDivisionError:
            raise CertifyError("Krawczyk: the Jacobian at the midpoint is singular") from None
        Y = arb_mat([[Yi[i, j].mid() for j in range(n)] for i in range(n)])
        Fm = arb_mat([[v] for v in F(*m)])
        JX = arb_mat([list(row) for row in J(*X)])
        dX = arb_mat([[X[i] - m[i]] for i in range(n)])
        K = arb_mat([[v] for v in m]) - Y * Fm + (eye - Y * JX) * dX
        return [K[i, 0] for i in range(n)]

    for r in (radius * 10.0**k for k in (0, 2, 3, -2, -4, -6)):
        X = [arb(arb(v).mid(), r) for v in x0]
        Kx = K_of(X)
        if all(k.is_finite() for k in Kx) and all(X[i].contains_interior(Kx[i]) for i in range(n)):
            break
    else:
        raise CertifyError("Krawczyk: no box around the guess passed the inclusion test")
    # proved: exactly one root in X, and it lies in K(X); every root in a box lies in K(box)
    X = Kx
    for it in range(1, max_iter + 1):
        if all(2 * v.rad() <= tol for v in X):
            return X, it
        Kx = K_of(X)
        if not all(k.is_finite() and X[i].overlaps(k) for i, k in enumerate(Kx)):
            raise CertifyError("Krawczyk: K(X) left the proved box (should not happen)")
        new = [X[i].intersection(Kx[i]) for i in range(n)]
        if max(float(v.rad()) for v in new) > 0.5 * max(float(v.rad()) for v in X):
            raise CertifyError(f"Krawczyk: no contraction below width {2 * max(float(v.rad()) for v in X):.3g} "
                               "at this working precision")
        X = new
    raise CertifyError("Krawczyk: the box did not shrink to the asked width")


def negative_definite(H: Callable, X: Sequence) -> bool:
    """Is the symmetric ball matrix H(X) negative definite for every point of the box X
    (Sylvester: (-1)^k det of the leading k x k block > 0, k = 1..n, each decided by the balls)?"""
    M = [list(row) for row in H(*X)]
    n = len(M)
    for k in range(1, n + 1):
        d = arb_mat([row[:k] for row in M[:k]]).det()
        if not ((-1) ** k * d > 0):
            return False
    return True
