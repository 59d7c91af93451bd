"""Rigorous enclosures of compiled SymPy expressions: ball arithmetic with python-flint.

``compile_arb(expr, args)`` turns a SymPy expression into a Python function over
``flint.arb`` (real balls); ``compile_acb(expr, args)`` over ``flint.acb`` (complex balls),
with the ``analytic`` flag that ``acb.integral`` passes to an integrand.  Every operation of
the compiled code is a ball operation, so the result is a ball that provably contains the
value of the expression at every point of the argument balls (up to the correctness of FLINT).
The printer (:class:`ArbPrinter`) prints only what it can print rigorously and refuses the
rest with :class:`ArbPrintError`:

* Integers exact (``arb(p)``), Rationals as ``arb(p)/q`` (a ball around p/q), Floats via their
  decimal string (a Float means the decimal it prints as: ``0.2`` is 1/5, as for parameters);
* pi, E, exp, log, sqrt and rational powers, erf, erfc, Abs, LambertW, binomial (exact
  non-negative integer lower argument), Max / Min and Piecewise (real balls only: a condition
  the balls cannot decide is an error, never a guess);
* Heaviside, sign, unevaluated integrals, undefined functions and anything else: refused.

Arguments are renamed (``_a0, _a1, ...``) before printing, so a parameter Symbol named ``pi``
never shadows the constant pi.

Generic certified numerics on top (no model formula here; the expressions come from the
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
from functools import lru_cache
from typing import Callable, Sequence

import sympy as sp
from sympy.printing.printer import Printer

try:  # python-flint is a dependency; the import error says so if it is missing
    from flint import acb, arb, arb_mat, ctx
except ImportError as e:  # pragma: no cover
    raise ImportError("certified evaluation needs python-flint (pip install python-flint)") from e

__all__ = ["ArbPrintError", "ArbPrinter", "Ball", "CertificateMismatch", "CertifyError", "arb_of", "ball", "compile_acb",
           "compile_arb", "gaussian_cutoff", "gaussian_expectation", "krawczyk", "normal_tail", "precision", "real_line_bound"]


class ArbPrintError(ValueError):
    """The expression contains something the ball printer cannot evaluate rigorously."""


class CertifyError(ArithmeticError):
    """A certificate could not be obtained (balls too wide, inclusion test failed, ...)."""


class CertificateMismatch(CertifyError):
    """A certified ball excludes the independent high-precision value, or is wider than
    promised: the certificate is wrong and is not printed."""


# ---- the printer ----------------------------------------------------------------------------
class ArbPrinter(Printer):
    """SymPy -> Python source over ``arb`` (``kind="arb"``) or ``acb`` (``kind="acb"``).

    ``names`` maps each argument Symbol to its Python name; a Symbol not in ``names`` is an
    error (no free symbol is ever looked up in a namespace)."""

    printmethod = "_arbcode"
    _default_settings = {"order": None}

    def __init__(self, names: dict, kind: str = "arb"):
        super().__init__()
        if kind not in ("arb", "acb"):
            raise ValueError(f"kind must be 'arb' or 'acb', got {kind!r}")
        self.names = dict(names)
        self.kind = kind
        self.K = "_K"  # the ball type in the generated namespace

    def emptyPrinter(self, expr):
        raise ArbPrintError(f"cannot print {type(expr).__name__} ({expr}) rigorously in ball arithmetic")

    def _refuse(self, expr, why=""):
        raise ArbPrintError(f"refused: {type(expr).__name__} ({expr}) {why}".rstrip())

    # -- atoms
    def _print_Symbol(self, s):
        if s not in self.names:
            raise ArbPrintError(f"free symbol {s} is not an argument")
        return self.names[s]

    _print_Dummy = _print_Symbol

    def _print_Integer(self, n):
        return f"{self.K}({int(n)})"

    def _print_Rational(self, q):
        return f"({self.K}({int(q.p)})/{int(q.q)})"

    def _print_Float(self, f):
        return f"{self.K}(_arb({str(f)!r}))"

    def _print_Pi(self, _):
        return f"{self.K}.pi()"

    def _print_Exp1(self, _):
        return f"{self.K}(_arb.const_e())"

    def _print_ImaginaryUnit(self, expr):
        if self.kind != "acb":
            self._refuse(expr, "(imaginary unit in real ball arithmetic)")
        return "_acb(0, 1)"

    def _print_Infinity(self, expr):
        self._refuse(expr)

    _print_NegativeInfinity = _print_ComplexInfinity = _print_NaN = _print_Infinity

    # -- arithmetic
    def _print_Add(self, expr):
        return "(" + " + ".join(self._print(a) for a in expr.args) + ")"

    def _print_Mul(self, expr):
        return "(" + "*".join(self._print(a) for a in expr.args) + ")"

    def _print_Pow(self, expr):
        base, e = expr.args
        b = self._print(base)
        if e.is_Integer:
            n = int(e)
            return f"_ipow({b}, {n})"
        if e == sp.S.Half:
            return self._sqrt(b)
        if e == -sp.S.Half:
            return f"(1/{self._sqrt(b)})"
        if e.is_Rational:  # (b^(1/2))^p for p/2, else exp(e log b) (nan for a ball touching b <= 0)
            if e.q == 2:
                return f"_ipow({self._sqrt(b)}, {int(e.p)})"
            return self._pow(b, self._print(e))
        return self._pow(b, self._print(e))

    def _sqrt(self, b):
        return f"({b}).sqrt(analytic=_an)" if self.kind == "acb" else f"({b}).sqrt()"

    def _pow(self, b, e):
        return f"({b}).pow({e}, analytic=_an)" if self.kind == "acb" else f"(({b})**({e}))"

    # -- functions
    def _unary(self, expr, method):
        (x,) = expr.args
        return f"({self._print(x)}).{method}()"

    def _print_exp(self, expr):
        return self._unary(expr, "exp")

    def _print_log(self, expr):
        if len(expr.args) != 1:
            self._refuse(expr, "(log with a base)")
        x = self._print(expr.args[0])
        return f"({x}).log(analytic=_an)" if self.kind == "acb" else f"({x}).log()"

    def _print_erf(self, expr):
        return self._unary(expr, "erf")

    def _print_erfc(self, expr):
        return self._unary(expr, "erfc")

    def _print_Abs(self, expr):
        (x,) = expr.args
        return f"({self._print(x)}).real_abs(analytic=_an)" if self.kind == "acb" else f"abs({self._print(x)})"

    def _print_LambertW(self, expr):
        x = self._print(expr.args[0])
        k = expr.args[1] if len(expr.args) > 1 else sp.S.Zero
        if k not in (0, -1):
            self._refuse(expr, "(LambertW branch other than 0, -1)")
        if self.kind == "acb":
            return f"({x}).lambertw({int(k)}, analytic=_an)"
        return f"({x}).lambertw({int(k)})"

    def _print_binomial(self, expr):
        n, k = (self._print(a) for a in expr.args)
        return f"_binomial({n}, {k})"

    def _real_only(self, expr):
        if self.kind == "acb":
            self._refuse(expr, "(not analytic: real balls only)")

    def _fold(self, expr, method):
        self._real_only(expr)
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            out = f"({out}).{method}({self._print(a)})"
        return out

    def _print_Max(self, expr):
        return self._fold(expr, "max")

    def _print_Min(self, expr):
        return self._fold(expr, "min")

    def _print_Piecewise(self, expr):
        self._real_only(expr)
        pieces = ", ".join(f"((lambda: {self._cond(c)}), (lambda: {self._print(v)}))" for v, c in expr.args)
        return f"_piecewise(({pieces},))"

    def _cond(self, c):
        if c is sp.true:
            return "True"
        ops = {sp.StrictLessThan: "_lt", sp.LessThan: "_le", sp.StrictGreaterThan: "_gt", sp.GreaterThan: "_ge"}
        for cls, fn in ops.items():
            if isinstance(c, cls):
                return f"{fn}({self._print(c.lhs)}, {self._print(c.rhs)})"
        if isinstance(c, sp.And):
            return "(" + " and ".join(self._cond(a) for a in c.args) + ")"
        if isinstance(c, sp.Or):
            return "(" + " or ".join(self._cond(a) for a in c.args) + ")"
        raise ArbPrintError(f"cannot decide the condition {c} in ball arithmetic")

    def _print_Heaviside(self, expr):
        self._refuse(expr, "(discontinuous: excluded from ball evaluation)")

    _print_sign = _print_Heaviside

    def _print_Integral(self, expr):
        self._refuse(expr, "(integrate with gaussian_expectation / acb.integral instead)")

    def _print_Function(self, expr):
        self._refuse(expr, "(no rigorous ball implementation)")

    _print_AppliedUndef = _print_Function


# ---- runtime helpers of the generated code ---------------------------------------------------
def _undecided(a, b):
    raise CertifyError(f"cannot decide the comparison of {a} and {b}: the balls overlap")


def _lt(a, b):
    return True if a < b else False if a >= b else _undecided(a, b)


def _le(a, b):
    return True if a <= b else False if a > b else _undecided(a, b)


def _gt(a, b):
    return _lt(b, a)


def _ge(a, b):
    return _le(b, a)


def _piecewise(pieces):
    for cond, val in pieces:
        if cond():
            return val()
    raise CertifyError("no branch of the Piecewise holds")


def _ipow(x, n: int):
    """x^n for an integer n by repeated squaring (FLINT's generic power returns nan for a ball
    that contains 0; products of balls are always enclosures)."""
    if n < 0:
        return 1 / _ipow(x, -n)
    out, base = None, x
    while n:
        if n & 1:
            out = base if out is None else out * base
        n >>= 1
        if n:
            base = base * base
    return out if out is not None else type(x)(1)


def _binomial(n, k):
    kk = k.real if isinstance(k, acb) else k
    if not (kk.is_exact() and kk.is_integer() and kk >= 0) or (isinstance(k, acb) and not k.imag.is_zero()):
        raise CertifyError(f"binomial({n}, {k}): the lower argument must be an exact non-negative integer")
    return n.bin(int(kk.unique_fmpz()))


_RUNTIME = {"_arb": arb, "_acb": acb, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge,
            "_piecewise": _piecewise, "_binomial": _binomial, "_ipow": _ipow}


def _source(exprs, args, kind: str, cse: bool) -> str:
    names = {a: f"_a{i}" for i, a in enumerate(args)}
    exprs = [sp.sympify(e) for e in exprs]
    lines = []
    if cse:
        reps, exprs = sp.cse(exprs, symbols=sp.numbered_symbols("_c"), optimizations=None)
    else:
        reps = []
    for s, _ in reps:
        names[s] = str(s)
    p = ArbPrinter(names, kind)
    for s, e in reps:
        lines.append(f"    {s} = {p.doprint(e)}")
    lines.append("    return (" + ", ".join(p.doprint(e) for e in exprs) + ",)")
    params = ", ".join(f"_a{i}" for i in range(len(args)))
    head = f"def _f({params}{', ' if params else ''}_an=False):" if kind == "acb" else f"def _f({params}):"
    return "\n".join([head] + lines)


@lru_cache(maxsize=512)
def _compile(key, args: tuple, kind: str, cse: bool):
    exprs = list(key) if isinstance(key, sp.Tuple) else [key]
    src = _source(exprs, args, kind, cse)
    ns = dict(_RUNTIME, _K=arb if kind == "arb" else acb)
    exec(compile(src, f"<arb:{kind}>", "exec"), ns)
    f = ns["_f"]
    if isinstance(key, sp.Tuple):
        return f
    return lambda *a, **k: f(*a, **k)[0]


def _key(expr):
    if isinstance(expr, (list, tuple)):
        return sp.Tuple(*expr)
    if isinstance(expr, sp.MatrixBase):
        return sp.Tuple(*expr)
    return sp.sympify(expr)


def compile_arb(expr, args: Sequence[sp.Symbol], *, cse: bool = True) -> Callable:
    """``expr`` (an expression, or a list/tuple of them: the function returns a tuple) as a
    function of ``args`` over real balls.  Compiled once per (expression, args): the key is
    the expression itself, so a structurally mutated derivation compiles its own code."""
    return _compile(_key(expr), tuple(args), "arb", cse)


def compile_acb(expr, args: Sequence[sp.Symbol], *, cse: bool = True) -> Callable:
    """As :func:`compile_arb` over complex balls; the function takes ``_an`` (the
    ``acb.integral`` analytic flag) as keyword or last positional argument and forwards it to
    the functions with branch cuts (sqrt, log, powers, Abs, LambertW)."""
    return _compile(_key(expr), tuple(args), "acb", cse)


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
    if isinstance(x, sp.Rational):
        return arb(int(x.p)) / int(x.q) if x.q != 1 else arb(int(x.p))
    if isinstance(x, sp.Basic):
        raise TypeError(f"arb_of takes numbers, got the expression {x}")
    q = sp.Rational(x if isinstance(x, str) else repr(float(x)))
    return arb(int(q.p)) / int(q.q) if q.q != 1 else arb(int(q.p))


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
    mid = x.mid()
    mid_s = mid.str(digits + 10, radius=False, more=True).strip("[]").split(" ")[0]
    with precision(max(ctx.prec, bits(digits + 40))):
        q = sp.Rational(mid_s)
        printed = arb(int(q.p)) / int(q.q) if q.q != 1 else arb(int(q.p))
        rad = x.rad() + abs(mid - printed).upper() + printed.rad()
    return Ball(mid_s, _up(arb(rad)), x.str(digits, radius=False), x)


# ---- certified numerics ----------------------------------------------------------------------
def real_line_bound(f: sp.Expr, x: sp.Symbol, max_depth: int = 8) -> arb:
    """An upper bound of sup over real x of |f(x)|, for f a rational function of exp(x).

    With e = exp(x): x <= 0 is e in (0, 1], x >= 0 is w = 1/e in (0, 1]; the two rational
    functions r(e), r(1/w) are evaluated in ball arithmetic on [0, 1] (split into 2^k pieces
    until every piece is finite).  Raises :class:`CertifyError` if f is not of that form or is
    unbounded."""
    if x not in f.free_symbols:
        return abs(compile_arb(f, ())())
    e = sp.Dummy("e", positive=True)
    g = sp.cancel(sp.powsimp(sp.expand_power_exp(f.subs(x, sp.log(e)))))
    if g.free_symbols != {e} or not g.is_rational_function(e):
        raise CertifyError(f"cannot bound |{f}| on the real line: not a rational function of exp({x})")
    best = arb(0)
    for side in (g, sp.cancel(g.subs(e, 1 / e))):
        fn = compile_arb(side, (e,))
        for depth in range(max_depth + 1):
            n = 2**depth
            vals = [fn(arb(arb(2 * i + 1) / (2 * n), arb(1) / (2 * n))) for i in range(n)]
            if all(v.is_finite() for v in vals):
                for v in vals:
                    best = best.max(abs(v).upper())
                break
        else:
            raise CertifyError(f"|{f}| is not bounded on the real line (ball evaluation not finite)")
    return best.upper()


def normal_tail(Z) -> arb:
    """P(|zeta| > Z), zeta ~ N(0, 1), as a ball: erfc(Z / sqrt 2) (both tails)."""
    Z = arb(Z)
    return (Z / arb(2).sqrt()).erfc()


def gaussian_cutoff(bound, digits: int) -> tuple:
    """(Z, tail): the truncation [-Z, Z] of a Gaussian expectation of an integrand with
    sup |f| <= ``bound`` and the rigorous bound ``bound * P(|zeta| > Z)`` of what it leaves
    out, with Z the first integer from sqrt(2 (digits + 6) ln 10 + 2 ln(bound + 1)) on at which
    the tail is below 10^-(digits + 5)."""
    bound = arb(bound).upper()
    target = arb(10) ** (-(digits + 5))
    Z = arb(int(math.ceil(math.sqrt(2 * (digits + 6) * math.log(10) + 2 * math.log(max(1.0, float(bound.mid()))
                                                                                     + 1)))))
    tail = bound * normal_tail(Z)
    while not tail < target:
        Z += 1
        tail = bound * normal_tail(Z)
    return Z, tail.upper()


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
