"""Every operation on Value, at 15 to 500 digits, against mpmath at 40 more digits: each printed
digit of a result is the exact function of the operands' central values rounded once (ties away
from zero, as the printer rounds), near and on ties too; its error is the first-order
propagation over independent error sources, with derivatives taken numerically (mpmath.diff),
not from the table the operations use."""
import math
import operator
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from numerics.core import value as V
from numerics.core.value import Value

EXTRA = 40  # the reference's digits beyond the operands'
KINDS = ("dps", "se", "rqmc_se", "radius")

#: the reference of each arithmetic operation of the one table, written here independently
REF = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
    "true_divide": operator.truediv, "power": operator.pow, "hypot": mpmath.hypot, "arctan2": mpmath.atan2,
    "negative": operator.neg, "positive": operator.pos, "absolute": abs, "fabs": abs, "square": lambda x: x * x,
    "reciprocal": lambda x: 1 / x, "sqrt": mpmath.sqrt, "exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log,
    "log2": lambda x: mpmath.log(x, 2), "log10": mpmath.log10, "log1p": mpmath.log1p, "sin": mpmath.sin,
    "cos": mpmath.cos, "tan": mpmath.tan, "arcsin": mpmath.asin, "arccos": mpmath.acos, "arctan": mpmath.atan,
    "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh, "arcsinh": mpmath.asinh,
    "arccosh": mpmath.acosh, "arctanh": mpmath.atanh,
}
UNARY = sorted(n for n in REF if V.UFUNCS[n].partials is not None and len(V.UFUNCS[n].partials) == 1)
BINARY = sorted(n for n in REF if n not in UNARY)
#: where each unary operation is drawn: (lowest, highest decimal exponent of |x|, sign allowed, shift)
DOMAIN = {"sqrt": (-20, 20, False, 0), "log": (-20, 20, False, 0), "log2": (-20, 20, False, 0),
          "log10": (-20, 20, False, 0), "log1p": (-3, 3, False, 0), "arcsin": (-3, -1, True, 0),
          "arccos": (-3, -1, True, 0), "arctanh": (-3, -1, True, 0), "arccosh": (-2, 2, False, 1),
          "exp": (-3, 1, True, 0), "expm1": (-3, 1, True, 0), "sinh": (-3, 1, True, 0), "cosh": (-3, 1, True, 0),
          "tan": (-3, 0, True, 0)}
#: the inverse of each unary operation, and where its result is drawn (a tie in [10^p, 10^(p+1)))
INVERSE = {"negative": (operator.neg, 0), "positive": (operator.pos, 0), "absolute": (operator.pos, 0),
           "fabs": (operator.pos, 0), "square": (mpmath.sqrt, 0), "reciprocal": (lambda t: 1 / t, 0),
           "sqrt": (lambda t: t * t, 0), "exp": (mpmath.log, 0), "expm1": (lambda t: mpmath.log(1 + t), -1),
           "log": (mpmath.exp, 0), "log2": (lambda t: 2**t, 0), "log10": (lambda t: 10**t, 0),
           "log1p": (mpmath.expm1, 0), "sin": (mpmath.asin, -1), "cos": (mpmath.acos, -1),
           "tan": (mpmath.atan, 0), "arcsin": (mpmath.sin, -1), "arccos": (mpmath.cos, 0),
           "arctan": (mpmath.tan, -1), "sinh": (mpmath.asinh, 0), "cosh": (mpmath.acosh, 0),
           "tanh": (mpmath.atanh, -1), "arcsinh": (mpmath.sinh, 0), "arccosh": (mpmath.cosh, 0),
           "arctanh": (mpmath.tanh, -1)}


# --- the reference: exact rationals, rounded here -------------------------------------------------
def exact(x) -> Fraction:
    sign, man, exp, _ = x._mpf_
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


def _scale(a: Fraction, n: int):
    """|a| as num/den·10^(e-n+1) with 10^(n-1) <= num/den < 10^n (integers), and e."""
    p, q = abs(a.numerator), a.denominator
    e = int((p.bit_length() - q.bit_length()) * math.log10(2))
    while (p * 10**-e if e < 0 else p) < (q if e < 0 else q * 10**e):  # 10^e > |a|
        e -= 1
    while (p * 10 ** -(e + 1) if e + 1 < 0 else p) >= (q if e + 1 < 0 else q * 10 ** (e + 1)):
        e += 1
    k = n - 1 - e
    return (p * 10**k, q, e) if k >= 0 else (p, q * 10**-k, e)


def rounded(a: Fraction, n: int) -> Fraction:
    """``a`` to ``n`` significant digits, ties away from zero."""
    if a == 0:
        return a
    num, den, e = _scale(a, n)
    m = (1 if a > 0 else -1) * ((2 * num + den) // (2 * den))
    return Fraction(m * 10 ** (e - n + 1)) if e - n + 1 >= 0 else Fraction(m, 10 ** (n - 1 - e))


def tie_distance(a: Fraction, n: int) -> Fraction:
    """How far ``a`` is from a rounding tie at its n-th digit, in units of that digit."""
    if a == 0:
        return Fraction(1, 2)
    num, den, _ = _scale(a, n)
    return Fraction(abs(2 * (num % den) - den), 2 * den)


def significant(s: str) -> int:
    return len(s.lstrip("-").split("e")[0].replace(".", "").lstrip("0"))


def reference(f, args, dps):
    with mpmath.workdps(dps + EXTRA):
        return f(*[a.mpf if isinstance(a, Value) else _ref_number(a) for a in args])


def _ref_number(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


def check_digits(result: Value, ref, exact_op=False):
    """Every printed digit of ``result``'s central value is ``ref`` rounded once."""
    shown = str(result).split(" ± ")[0]
    a = exact(ref)
    if a == 0:
        assert Fraction(Decimal(shown)) == 0, shown
        return
    n = result.digits
    # the reference is 40 digits beyond; the result GUARD_DPS: no claim within 10^-12 units of a tie
    # the computation did not land on exactly
    assume(exact_op or tie_distance(a, n) == 0 or tie_distance(a, n) > Fraction(1, 10**12))
    assert significant(shown) == n, (shown, n)
    assert Fraction(Decimal(shown)) == rounded(a, n), (shown, mpmath.nstr(ref, n + 5))


def first_order_error(f, args, dps):
    """sqrt(Σ (∂f/∂x_i·σ_i)²), or Σ|∂f/∂x_i|·r_i when every uncertain argument is a radius, by
    numerical differentiation at dps + 40 digits; None if no argument is uncertain."""
    values = [a for a in args if isinstance(a, Value) and not a.exact]
    if not values:
        return None
    with mpmath.workdps(dps + EXTRA):
        xs = [a.mpf if isinstance(a, Value) else _ref_number(a) for a in args]
        terms = []
        for i, a in enumerate(args):
            if isinstance(a, Value) and not a.exact:
                order = [1 if j == i else 0 for j in range(len(xs))]
                terms.append(mpmath.diff(f, xs, order) * a.error)
        if all(v.kind == "radius" for v in values):
            return mpmath.fsum(abs(t) for t in terms)
        return mpmath.sqrt(mpmath.fsum(t * t for t in terms))


def check_error(result: Value, f, args, dps):
    expect = first_order_error(f, args, dps)
    if expect is None:
        assert result.exact and result.error is None and result.kind == "dps"
        return
    kinds = {a.kind for a in args if isinstance(a, Value) and not a.exact}
    assert result.kind == (kinds.pop() if len(kinds) == 1 else "se")
    assert abs(result.error - expect) <= mpmath.mpf(10) ** -12 * expect + mpmath.mpf(10) ** -(dps + 5), \
        (result.error, expect)


# --- the operands ---------------------------------------------------------------------------------
@st.composite
def values(draw, dps=None, lo=-20, hi=20, signed=True, shift=0, kind=None):
    """A Value at 15..500 digits, its central value carrying up to 30 digits beyond them, of any
    kind of error (a standard error or radius from 10^-3 to 10^-(dps-5) relative)."""
    dps = draw(st.integers(15, 500)) if dps is None else dps
    digits = draw(st.integers(1, dps + 30))
    mantissa = draw(st.integers(10 ** (digits - 1), 10**digits - 1))
    e = draw(st.integers(lo, hi))
    sign = draw(st.sampled_from((1, -1))) if signed else 1
    kind = draw(st.sampled_from(KINDS)) if kind is None else kind
    with mpmath.workdps(dps + 30):
        x = shift + sign * mpmath.mpf(mantissa) * mpmath.mpf(10) ** (e - digits)
        error = None
        if kind != "dps":
            error = abs(x) * mpmath.mpf(10) ** -draw(st.integers(3, dps - 5)) * draw(st.integers(1, 9))
    return Value(x, error, kind, dps)


@st.composite
def ties(draw, dps, p=0, signed=True, offset=True, deepest=8):
    """A number whose ``dps``-digit rounding is a tie (digit dps + 1 is 5, then zeros), times
    1 ± 10^-(dps + k) for k = 1..``deepest`` (``offset``), in [10^p, 10^(p+1)); at dps + 40
    digits."""
    digits = draw(st.integers(10 ** (dps - 1), 10**dps - 1)) * 10 + 5
    sign = draw(st.sampled_from((1, -1))) if signed else 1
    with mpmath.workdps(dps + EXTRA):
        t = sign * mpmath.mpf(digits) * mpmath.mpf(10) ** (p - dps)
        if offset:
            t *= 1 + draw(st.sampled_from((1, -1))) * mpmath.mpf(10) ** -(dps + draw(st.integers(1, deepest)))
    return t


@st.composite
def dyadic_ties(draw, dps):
    """An exact binary number whose ``dps``-digit rounding is an exact tie: (2N+1)/2^j with
    dps + 1 significant digits (the last one 5)."""
    j = draw(st.integers(1, 6))
    lo = -(-(10**dps // 5**j - 1) // 2)
    hi = (10 ** (dps + 1) // 5**j - 1) // 2 - 1
    n = draw(st.integers(lo, hi))
    x = mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(2 * n + 1, -j))
    assert len(str((2 * n + 1) * 5**j)) == dps + 1
    return mpmath.fneg(x, exact=True) if draw(st.booleans()) else x


def test_the_reference_covers_every_operation():
    arithmetic = {n for n, op in V.UFUNCS.items() if op.partials is not None}
    assert set(REF) == arithmetic


# --- random operands ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_unary_operations_every_digit_and_first_order_error(name, data):
    lo, hi, signed, shift = DOMAIN.get(name, (-20, 20, True, 0))
    v = data.draw(values(lo=lo, hi=hi, signed=signed, shift=shift))
    if name in ("arcsin", "arccos", "arctanh", "sqrt", "log", "log2", "log10") and not v.exact:
        assume(abs(v.mpf) - v.error > 0 and abs(v.mpf) + v.error < (1 if name.startswith("arc") else math.inf))
    ufunc = getattr(np, name)
    results = [ufunc(v), ufunc(np.array([v, v], dtype=object))[1]]
    results += {"negative": [-v], "positive": [+v], "absolute": [abs(v)]}.get(name, [])
    ref = reference(REF[name], (v,), v.dps)
    for r in results:
        assert isinstance(r, Value) and r.dps == v.dps
        check_digits(r, ref, exact_op=name in ("negative", "positive", "absolute", "fabs"))
        check_error(r, REF[name], (v,), v.dps)


@st.composite
def binary_operands(draw, name):
    """Two operands of ``name``: Values of different precisions and kinds, or a Value and an
    int, float, mpf or Fraction on either side."""
    if name == "power":
        a = draw(values(lo=-3, hi=3, signed=False))
        b = draw(values(lo=-3, hi=0))  # |a^b| within 10^±120
    else:
        a, b = draw(values()), draw(values())
    other = draw(st.sampled_from(("value", "int", "float", "mpf", "fraction")))
    if other == "int":
        b = draw(st.integers(-10**30, 10**30).filter(bool)) if name != "power" else draw(st.integers(-20, 20))
    elif other == "float":
        b = draw(st.floats(-1e6, 1e6).filter(lambda x: abs(x) > 1e-6)) if name != "power" else draw(st.floats(-5, 5))
    elif other in ("mpf", "fraction"):  # in (0, 10^4], at most 20 for an exponent
        q = Fraction(draw(st.integers(1, 10**20)), draw(st.integers(10**16, 10**20)))
        q = min(q, 20) if name == "power" else q
        with mpmath.workdps(draw(st.integers(5, 600))):
            b = q if other == "fraction" else mpmath.mpf(q.numerator) / q.denominator
    left = other not in ("value", "mpf") and name != "power" and draw(st.booleans())
    return (b, a) if left else (a, b)  # an mpf on the left is mpmath's operation (module docstring)


def _operator(name):
    return {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
            "true_divide": operator.truediv, "power": operator.pow}.get(name)


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_binary_operations_every_digit_and_first_order_error(name, data):
    a, b = data.draw(binary_operands(name))
    if name == "power" and not isinstance(b, Value):  # a number base: b**a, the __rpow__ side
        a, b = (data.draw(st.sampled_from((2, 3.5, np.float64(0.25), 10**12 + 1))), a) \
            if data.draw(st.booleans()) else (a, b)
    if name in ("divide", "true_divide"):
        assume(b != 0)
    dps = min(x.dps for x in (a, b) if isinstance(x, Value))
    f = REF[name]
    results = [getattr(np, name)(a, b)]
    if _operator(name):
        results.append(_operator(name)(a, b))
    ref = reference(f, (a, b), dps)
    for r in results:
        assert isinstance(r, Value) and r.dps == dps
        check_digits(r, ref)
        check_error(r, f, (a, b), dps)


@given(v=values(), n=st.integers(-5, 60))
def test_rounding_and_conversions_are_exact(v, n):
    x = exact(v.mpf)
    assert round(v) == round(x) and int(v) == int(x) and math.floor(v) == math.floor(x) and math.ceil(v) == math.ceil(x)
    assert float(v) == float(x)
    r = round(v, n)
    assert r.dps == v.dps and r.kind == v.kind and (r.error == v.error or v.exact)
    target = round(x, n)
    if target != 0:  # the rounded number at the Value's precision, and printed once from it
        assert abs(exact(r.mpf) - target) <= abs(target) * Fraction(1, 10 ** (v.dps + V.GUARD_DPS - 2))
        check_digits(r, _at(target, v.dps))


def _at(q: Fraction, dps):
    with mpmath.workdps(dps + EXTRA):
        return mpmath.mpf(q.numerator) / q.denominator


@given(v=values(), data=st.data())
def test_comparisons_are_exact_against_every_kind_of_number(v, data):
    x = exact(v.mpf)
    with mpmath.workdps(v.dps + 30):
        near = v.mpf + data.draw(st.sampled_from((-1, 0, 1))) * mpmath.mpf(2) ** (mpmath.mpf(v.mpf).exp)
    others = [float(v), int(v), near, Value(near, None, "dps", data.draw(st.integers(15, 500))),
              Fraction(data.draw(st.integers(-10**40, 10**40)), data.draw(st.integers(1, 10**40))),
              x + Fraction(1, 3**80), x - Fraction(1, 3**5000), np.float64(float(v)), np.int64(max(-2**62, min(2**62, int(v))))]
    for o in others:
        y = exact(o.mpf) if isinstance(o, Value) else exact(o) if isinstance(o, mpmath.mpf) else \
            Fraction(o.item() if isinstance(o, np.generic) else o)
        for op in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge):
            assert op(v, o) == op(x, y), (op, o)
            assert op(o, v) == op(y, x), (op, o)
    assert np.less(v, others[2]) == (x < exact(others[2]))


# --- results on and near a tie --------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(INVERSE))
@given(data=st.data())
def test_unary_results_near_a_tie_print_every_digit(name, data):
    dps = data.draw(st.integers(15, 500))
    inverse, p = INVERSE[name]
    t = data.draw(ties(dps, p, signed=name not in ("sqrt", "square", "exp", "cosh", "arccos", "arccosh", "absolute", "fabs")))
    with mpmath.workdps(dps + EXTRA):
        x = inverse(t)
    v = Value(x, dps=dps)
    ref = reference(REF[name], (v,), dps)
    for r in (getattr(np, name)(v), getattr(np, name)(np.array([v], dtype=object))[0]):
        check_digits(r, ref)


@pytest.mark.parametrize("name", ["negative", "positive", "absolute", "fabs"])
@given(data=st.data())
def test_exact_operations_keep_every_stored_digit(name, data):
    """-, +, abs are exact: a central value 10^-(dps + 35) beside a tie still prints on its side
    (beyond the guard digits of the inexact operations)."""
    dps = data.draw(st.integers(15, 500))
    v = Value(data.draw(ties(dps, data.draw(st.integers(-30, 30)), deepest=35)), dps=dps)
    ref = reference(REF[name], (v,), dps)
    for r in (getattr(np, name)(v), {"negative": -v, "positive": +v}.get(name, abs(v))):
        check_digits(r, ref, exact_op=True)


@pytest.mark.parametrize("name", ["negative", "positive", "absolute", "fabs", "square", "sqrt", "add", "subtract",
                                  "multiply", "divide", "round"])
@given(data=st.data())
def test_exact_ties_print_as_the_printer_rounds_them(name, data):
    """On an exact tie (a binary number whose digit dps + 1 is a 5 and the last): the exact
    operations, and those whose result is exact, round it away from zero, as the printer does."""
    dps = data.draw(st.integers(15, 500))
    x = data.draw(dyadic_ties(dps))
    v = Value(x, dps=dps)
    k = data.draw(st.integers(0, 20))
    with mpmath.workdps(2 * dps + 100):
        r, ref = {"negative": (-v, -x), "positive": (+v, x), "absolute": (abs(v), abs(x)), "fabs": (np.fabs(v), abs(x)),
                  "square": (np.sqrt(Value(x * x, dps=dps)), abs(x)), "sqrt": (np.sqrt(Value(x * x, dps=dps)), abs(x)),
                  "add": (v + k, x + k), "subtract": (k - v, k - x), "multiply": (v * 2**k, x * 2**k),
                  "divide": (v / 2**k, x / 2**k), "round": (round(v, 10), _at(round(exact(x), 10), dps))}[name]
    if name in ("negative", "positive", "absolute", "fabs"):
        assert tie_distance(exact(ref), dps) == 0
    check_digits(r, ref, exact_op=True)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power", "rpow", "hypot", "arctan2"])
@given(data=st.data())
def test_binary_results_near_a_tie_print_every_digit(name, data):
    dps = data.draw(st.integers(15, 500))
    t = data.draw(ties(dps, 0, signed=name in ("add", "subtract", "multiply", "divide")))
    y = data.draw(values(dps=data.draw(st.integers(dps, dps + 50)), lo=-2, hi=0, signed=False, kind="dps"))
    with mpmath.workdps(dps + EXTRA):
        b = y.mpf
        if name == "arctan2":
            t = t / 10 + mpmath.mpf("0.05")  # in (0.15, 1.05): the angle
        x, call, f = {
            "add": (t - b, lambda u: u + y, operator.add), "subtract": (t + b, lambda u: u - y, operator.sub),
            "multiply": (t / b, lambda u: u * y, operator.mul), "divide": (t * b, lambda u: u / y, operator.truediv),
            "power": (t ** (1 / (b + 1)), lambda u: u ** (y + 1), lambda u, w: u ** (w + 1)),
            "rpow": (mpmath.log(t, 3), lambda u: 3**u, lambda u, w: 3**u),
            "hypot": (mpmath.sqrt(t * t - b * b * t * t / 4), lambda u: np.hypot(u, y * (t / 2)),
                      lambda u, w: mpmath.hypot(u, w * (t / 2))),
            "arctan2": (b * mpmath.tan(t), lambda u: np.arctan2(u, y), mpmath.atan2),
        }[name]
        w = Value(b * (t / 2), dps=dps)
    v = Value(x, dps=dps)
    if name == "hypot":
        ref = reference(mpmath.hypot, (v, w), dps)
        r = np.hypot(v, w)
    else:
        ref = reference(f, (v, y), dps)
        r = call(v)
    assert r.dps == dps
    check_digits(r, ref)


# --- correlated operands ------------------------------------------------------------------------
EXPRESSIONS = {
    "a - a": lambda a, b, m: a - a,
    "2a - a": lambda a, b, m: 2 * a - a,
    "a·a - a²": lambda a, b, m: a * a - a**2,
    "a/a": lambda a, b, m: a / a,
    "(a + b)·a - b·a": lambda a, b, m: (a + b) * a - b * a,
    "exp(log(a)) + b - a": lambda a, b, m: m.exp(m.log(a)) + b - a,
    "sqrt(a² + b²)·a / b": lambda a, b, m: m.sqrt(a * a + b * b) * a / b,
    "sin(a)² + cos(a)² + b": lambda a, b, m: m.sin(a) ** 2 + m.cos(a) ** 2 + b,
    "a^b·b - tanh(a·b)": lambda a, b, m: a**b * b - m.tanh(a * b),
}


class _Mp:  # mpmath under numpy's names
    exp, log, sqrt, sin, cos, tanh = mpmath.exp, mpmath.log, mpmath.sqrt, mpmath.sin, mpmath.cos, mpmath.tanh


@pytest.mark.parametrize("expr", sorted(EXPRESSIONS))
@given(data=st.data())
def test_correlated_operands_first_order_over_independent_sources(expr, data):
    kind = data.draw(st.sampled_from(KINDS[1:]))
    a = data.draw(values(lo=-1, hi=1, signed=False, kind=kind))
    b = data.draw(values(lo=-1, hi=1, signed=False, kind=data.draw(st.sampled_from((kind, "se")))))
    f = EXPRESSIONS[expr]
    r = f(a, b, np)
    dps = r.dps
    assert dps in (a.dps, min(a.dps, b.dps))
    ref = reference(lambda x, y: f(x, y, _Mp), (a, b), dps)
    expect = first_order_error(lambda x, y: f(x, y, _Mp), (a, b), dps)
    assert r.kind in (kind, "se")
    assert abs(r.error - expect) <= mpmath.mpf(10) ** -10 * (a.error + b.error), (r.error, expect)
    if expr in ("a - a", "a·a - a²"):  # the derivatives cancel exactly (a/a: to rounding)
        assert r.error == 0
    with mpmath.workdps(dps + EXTRA):  # the central value to the operands' precision
        assert abs(r.mpf - ref) <= mpmath.mpf(10) ** -(dps - 5) * (1 + abs(ref))
