"""SymPy expressions compiled to python-flint ball arithmetic (the compiler of :mod:`numerics.core.arb`).

``compile_arb(expr, args)`` turns a SymPy expression into a Python function over
``flint.arb`` (real balls); ``compile_acb(expr, args)`` over ``flint.acb`` (complex balls),
with the ``analytic`` flag that ``acb.integral`` passes to an integrand.  Every operation of
the compiled code is a ball operation, so the result is a ball that provably contains the
value of the expression at every point of the argument balls (up to the correctness of FLINT).
The printer (:class:`ArbPrinter`) prints only what it can print rigorously and refuses the
rest with :class:`ArbPrintError`:

* Integers exact (``arb(p)``), Rationals as ``arb(p)/q`` (a ball around p/q), Floats via their
  decimal string (a Float means the decimal it prints as: ``0.2`` is 1/5, as for parameters);
* pi, E, exp, expm1, log, log1p, sqrt and rational powers, erf, erfc, Abs, LambertW, binomial (exact
  non-negative integer lower argument), Max / Min and Piecewise (real balls only: a condition
  the balls cannot decide is an error, never a guess; a condition that common-subexpression
  elimination names is evaluated only where the Piecewise reaches it, as it would be unnamed);
* sign (real balls: decided by the ball, or an error as a condition is);
* Heaviside, unevaluated integrals, undefined functions and anything else: refused.

Arguments are renamed (``_a0, _a1, ...``) before printing, so a parameter Symbol named ``pi``
never shadows the constant pi.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import sympy as sp
from sympy.printing.printer import Printer

try:  # python-flint is a dependency; the import error says so if it is missing
    from flint import acb, arb
except ImportError as e:  # pragma: no cover
    raise ImportError("certified evaluation needs python-flint (pip install python-flint)") from e

__all__ = ["ArbPrintError", "ArbPrinter", "CertificateMismatch", "CertifyError", "compile_acb", "compile_arb"]


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
        #: the names of conditions (their code is a function, called where a condition is decided)
        self.conditions: set = set()
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
        if e.is_Rational:  # (b^(1/2))^p for p/2 (1/sqrt(b) for -1/2), else exp(e log b) (nan for a ball touching b <= 0)
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

    def _print_expm1(self, expr):
        return self._unary(expr, "expm1")

    def _print_log1p(self, expr):
        if self.kind == "acb":  # log(1 + x) on the principal branch, with the analytic flag
            return self._print_log(sp.log(1 + expr.args[0], evaluate=False))
        return self._unary(expr, "log1p")

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
            return f"_lambertw({x}, {int(k)}, _an)"
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
        if c in self.conditions:  # a condition named by common-subexpression elimination
            return f"{self.names[c]}()"
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

    def _print_sign(self, expr):
        self._real_only(expr)
        return f"_sign({self._print(expr.args[0])})"

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


def _sign(x):
    """sign(x) of a real ball: exact where the ball decides it (the function is constant on the
    ball, so a derivative that carries it is smooth there), an error where the ball holds 0 and
    other numbers."""
    if x > 0:
        return arb(1)
    if x < 0:
        return arb(-1)
    if x == 0:
        return arb(0)
    return _undecided(x, 0)


def _piecewise(pieces):
    for cond, val in pieces:
        if cond():
            return val()
    raise CertifyError("no branch of the Piecewise holds")


def _ipow(x, n: int):
    """x^n for an integer n.  A real ball's power comes from its two ends (x^n is monotone on
    each side of 0; an even power of a ball around 0 reaches down to 0): as a product of balls,
    [0, 1]^2 would be [-0.5, 1], and 1 / (1 + 10^4 [0, 1]^4) not finite.  A complex ball's, by
    repeated squaring (FLINT's generic power returns nan for a ball that contains 0; products of
    balls are always enclosures)."""
    if n < 0:
        return 1 / _ipow(x, -n)
    if isinstance(x, arb) and n > 1:
        lo, hi = x.lower(), x.upper()
        out = _squarings(lo, n).union(_squarings(hi, n))
        return out.union(arb(0)) if n % 2 == 0 and not (lo > 0 or hi < 0) else out
    return _squarings(x, n)


def _squarings(x, n: int):
    """x^n (n >= 0) by repeated squaring: an enclosure for any ball."""
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
    m = int(kk.unique_fmpz())
    if isinstance(n, acb):  # FLINT's complex balls have no binomial: n (n-1) ... (n-m+1) / m!
        return (n - m + 1).rising(m) / arb.fac_ui(m)
    return n.bin(m)


def _lambertw(z, branch: int, analytic: bool):
    """W_branch(z) over complex balls.  With ``analytic`` (``acb.integral``'s flag) a ball that
    meets a branch cut is indeterminate: the cuts of Corless et al., which FLINT follows, lie on
    the real axis up to -1/e for the principal branch and up to 0 for the branch -1."""
    if analytic:
        end = -1 / arb.const_e() if branch == 0 else arb(0)
        if z.imag.contains(0) and not z.real > end:
            return acb(arb.nan(), arb.nan())
    return z.lambertw(branch)


_RUNTIME = {"_arb": arb, "_acb": acb, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge,
            "_piecewise": _piecewise, "_sign": _sign, "_binomial": _binomial, "_ipow": _ipow, "_lambertw": _lambertw}


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
        if e.is_Relational or isinstance(e, (sp.And, sp.Or)):
            lines.append(f"    {s} = lambda: {p._cond(e)}")
            p.conditions.add(s)
        else:
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
    the functions with branch cuts (sqrt, log, powers, Abs, LambertW: a ball on a cut is then
    indeterminate, and ``acb.integral`` subdivides)."""
    return _compile(_key(expr), tuple(args), "acb", cse)
