"""One number type and one number printer.

:class:`Value` is a number with its uncertainty, as every user-facing result of attncheck is
given (``attncheck.evaluate``, ``attncheck.solve``, ``attncheck eval`` and ``solve`` print
through the same printer).  ``kind`` says what the uncertainty is:

* ``"dps"``     — none beyond the working precision: the value is correct to ``dps`` digits;
* ``"se"``      — a Monte Carlo standard error (``"mc_se"`` where the estimator calls it so);
* ``"qmc_se"``, ``"rqmc_se"`` — the standard error of a (randomized) quasi-Monte Carlo
  estimate over independent scramblings;
* ``"radius"``  — the radius of a ball: the value lies in [value - error, value + error].

Every operation works at the operands' precision or refuses with an error.  An operation
(``+ - * / **`` with numbers and Values on either side, unary ``-``, ``+``, ``abs``, and the numpy
ufuncs of :data:`UFUNCS`: ``np.sqrt``, ``np.exp``, ``np.log``, ``np.sin``, ``np.hypot``...)
evaluates the central values in mpmath at the smaller ``dps`` of the Value operands plus
:data:`GUARD_DPS` guard digits, and the result keeps them: printing rounds once, from the exact
binary value, so every printed digit of a result is the correctly rounded value of the exact
function of the operands' central values, unless that value lies within 10^-(dps + GUARD_DPS)
(relative) of a rounding boundary without being on it.  ``-``, ``+``, ``abs`` are exact.  A
result that is not real (``np.sqrt`` of a negative Value, a negative base to a fractional power)
raises ValueError; a ufunc not in :data:`UFUNCS` raises TypeError naming the ufunc and those
supported.  Comparisons (``<``, ``==``... with Values, mpf, int, float, Fraction) compare the
exact central values; ``float(v)`` is the nearest float, ``int``, ``math.floor``/``ceil``/
``trunc`` and ``round(v)`` the exact integer, ``round(v, n)`` a Value rounded to ``n`` decimals
at its own precision (ties to even, as ``round`` of a float), with the same error.

Errors propagate to first order, over *independent error sources* (linear error propagation, as
the ``uncertainties`` package does): a Value made from a number and an error (``Value(x, se,
"se")``, each estimate of :func:`values`, each ball of :func:`from_ball`) is a new source; a
result carries its derivative in every source it depends on (``.sources``), accumulated through
the operations that made it.  The error of a result is then sqrt(Σ_s (∂f/∂s · σ_s)²) for
standard errors, and Σ_s |∂f/∂s| · r_s for ball radii (every source a radius).  So ``v - v`` has
error 0, ``2*v - v`` error σ, ``v * v`` the error of ``v**2``; two Values made separately stay
independent even with equal numbers (``v - Value(v.value, v.error, v.kind)`` has error √2·σ).
A pickled copy is the same source (the identity is pickled); printed text and JSON
(:func:`flatten`) carry no sources: a number read back from them is a new source.  Estimates of
one raw result (:func:`values`) are independent sources, as their covariance is not recorded.
Operands of different statistical kinds give a ``"se"``; a radius combined with a standard error
is treated as a standard error.

The propagated radius of a ball is a first-order bound, not a certified one: a result's true
range can exceed it by the second-order terms (O(r²): ``v**2`` at v = 0 has radius 0) and by
rounding.  What is certified is a ball of ``attncheck.certify`` itself (:func:`from_ball`), not
arithmetic on it.

``mpmath.mpf(v)`` (through ``_mpf_``) and ``numpy.asarray([v, ...])`` (through ``__array__``: a
float64 array) give the central value.  numpy ufuncs applied to Values, and arrays combined
with a Value, give object arrays of Values; numpy's ufuncs on object arrays of Values call the
same operations (the methods ``v.sqrt()``, ``v.exp()``... numpy looks up).  ``f"{v:>40}"``
aligns the supported digits; ``f"{v:.3f}"`` formats ``float(v)`` and refuses a spec that would
show digits the float does not hold.  An mpf
on the left of an operator (``mpf + v``) is mpmath's own operation, on the central value at
mpmath's global precision, and gives an mpf; a Fraction to the power of a Value is Fraction's
(through a float): put the Value first, or make the number a Value.

The printer (:func:`supported_digits`, :func:`text`) rounds once, from the exact binary value
(ties away from zero), and prints only the digits the uncertainty supports: ``dps`` digits for
an exact value; two digits beyond the first digit of a standard error (the standard error
itself gets two); one beyond the first digit of a ball radius.
"""
from __future__ import annotations

import decimal
import math
import numbers
import operator
import os
import re
from fractions import Fraction
from typing import NamedTuple

import mpmath
from mpmath import libmp

from numerics.core.precision import MAX_DPS

#: the statistical kinds of uncertainty, and the key suffix each rides on in a raw result dict
SE_KINDS = {"_se": "se", "_rqmc_se": "rqmc_se", "_qmc_se": "qmc_se", "_mc_se": "mc_se"}
#: the suffixes, longest first (``x_rqmc_se`` is the rqmc se of ``x``, not the se of ``x_rqmc``)
SE_SUFFIXES = tuple(sorted(SE_KINDS, key=len, reverse=True))
KINDS = ("dps", "radius", *SE_KINDS.values())


# --- the printer ---------------------------------------------------------------------------------
def supported_digits(value, error, kind: str, dps: int) -> int:
    """The significant digits of ``value`` that its uncertainty supports (at most ``dps``)."""
    if error is None or kind == "dps" or isinstance(value, bool):
        return dps
    with mpmath.workdps(30):  # a ratio of magnitudes: 30 digits whatever mpmath.mp.dps is
        err, val = abs(_mpf(error)), abs(_mpf(value))
        if err <= 0 or val == 0 or not mpmath.isfinite(err) or not mpmath.isfinite(val):
            return dps
        beyond = 1 if kind == "radius" else 2
        return int(max(beyond, min(dps, mpmath.floor(mpmath.log10(val / err)) + beyond)))


_EXACT_BITS = 20_000  # binary exponents up to which the printer rounds from the exact value


def text(value, digits: int) -> str:
    """Booleans and counts (Python bool/int) as they are; a number to ``digits`` significant
    digits (trailing zeros kept: they are supported digits), rounded once from its exact binary
    value (ties away from zero), laid out as ``mpmath.nstr`` lays it out."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    x = _mpf(value)
    if not x or not mpmath.isfinite(x):
        return mpmath.nstr(x, digits)  # 0.0, +inf, -inf, nan
    sign, man, exp, bc = x._mpf_
    man, exp = int(man), int(exp)  # mpmath's mantissa may be a gmpy2 integer
    if abs(exp + bc) > _EXACT_BITS:  # beyond 10^±6000: from 25 guard digits (no exact tie is that far out)
        _, digs, point = libmp.to_digits_exp(x._mpf_, digits + 25)  # truncated toward zero
        q = int(digs[:digits]) + (digs[digits] >= "5")
        if q == 10**digits:
            q, point = q // 10, point + 1
        digs = str(q)
    else:
        with decimal.localcontext() as ctx:  # the exact value man·2^exp, rounded once to `digits`
            ctx.prec, ctx.rounding = digits, decimal.ROUND_HALF_UP
            ctx.Emax, ctx.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
            if exp >= 0:
                d = ctx.plus(decimal.Decimal(man << exp))
            else:  # man·2^exp = man·5^-exp·10^exp
                d = ctx.scaleb(decimal.Decimal(man * 5**-exp), decimal.Decimal(exp))
        digs = "".join(map(str, d.as_tuple().digits))
        point = d.adjusted()  # the decimal exponent of the first digit
    digs = digs.ljust(digits, "0")
    if min(-(digits // 3), -5) < point < digits:  # fixed point, where mpmath.nstr uses it
        if point < 0:
            digs, split = "0" * -point + digs, 1
        else:
            split = point + 1
            digs += "0" * (split - len(digs))
        return ("-" if sign else "") + (digs[:split] + "." + digs[split:]).rstrip(".")
    return f"{'-' if sign else ''}{digs[0]}.{digs[1:]}e{point:+d}"


def _mpf(x, dps: int = MAX_DPS):
    """``x`` as an mpf: an mpf as it is, an integer or a binary float exactly (``mpmath.mpf(x)``
    would round them to the global precision), any other rational or a string rounded to ``dps``
    digits."""
    if isinstance(x, mpmath.mpf):
        return x
    ratio = _ratio(x)
    if ratio is None:
        with mpmath.workdps(dps):
            return mpmath.mpf(x)
    p, q = ratio
    if q & (q - 1) == 0:  # a power of two: exact
        return mpmath.mp.make_mpf(libmp.from_man_exp(p, 1 - q.bit_length()))
    return mpmath.mp.make_mpf(libmp.from_rational(p, q, libmp.dps_to_prec(dps), libmp.round_nearest))


def _ratio(x):
    """A Python/numpy real number as (numerator, denominator), exactly; None for anything else
    (a string, an mpf, inf, nan)."""
    if isinstance(x, numbers.Integral):
        return int(x), 1
    if isinstance(x, numbers.Real) and hasattr(x, "as_integer_ratio"):
        try:
            return x.as_integer_ratio()
        except (OverflowError, ValueError):  # inf, nan
            return None
    return None


def _fraction(x) -> Fraction:
    """A finite mpf as the exact rational it is."""
    sign, man, exp, _ = x._mpf_
    man, exp = (-int(man) if sign else int(man)), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


def error_text(error) -> str:
    """An uncertainty to two significant digits."""
    return text(error, 2)


# --- the value -----------------------------------------------------------------------------------
#: decimal digits beyond the operands' precision at which an operation evaluates its result; the
#: result keeps them, so that printing rounds once (module docstring)
GUARD_DPS = 15
_PENDING = object()  # the error of a result not yet accumulated from its operands


def _is_number(x) -> bool:
    return isinstance(x, (numbers.Real, mpmath.mpf)) and not isinstance(x, Value)


def _new_source(kind: str):
    """A new independent error source: its kind and a random identity (kept by pickling, unique
    across processes)."""
    return kind, os.urandom(16)


class Value:
    """A number with its uncertainty (module docstring): ``value`` (an mpmath ``mpf``, or a
    Python ``bool``/``int`` for flags and counts), ``error`` (None for none), ``kind`` (what the
    error is: one of :data:`KINDS`), ``dps`` (the working precision it was computed at).
    ``digits`` is the number of significant digits printed: by default those the error
    supports.

    A Value made from a number and an error is a new, independent error source; a Value computed
    from others carries its first-order dependence on their sources (``sources``), so that
    ``v - v`` has no error.  Immutable."""

    __slots__ = ("value", "kind", "dps", "digits_override", "_error", "_sources", "_operands")

    def __init__(self, value, error=None, kind: str = "dps", dps: int = 30, digits_override: int | None = None):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if not isinstance(value, (bool, int, mpmath.mpf)):
            value = _mpf(value, dps)
        if error is not None and not isinstance(error, mpmath.mpf):
            error = _mpf(error, dps)
        uncertain = error is not None and kind != "dps"
        self._set(value, kind, dps, digits_override, error, {_new_source(kind): error} if uncertain else None, None)

    def _set(self, value, kind, dps, digits_override, error, sources, operands):
        for name, x in zip(self.__slots__, (value, kind, dps, digits_override, error, sources, operands)):
            object.__setattr__(self, name, x)

    @classmethod
    def _result(cls, value, kind: str, dps: int, operands: tuple) -> "Value":
        """The result of an operation: ``operands`` = ((d result / d operand, operand), ...) for
        the uncertain operands; its error is accumulated when first asked for."""
        v = object.__new__(cls)
        exact = kind == "dps"
        v._set(value, kind, dps, None, None if exact else _PENDING, None, None if exact else operands)
        return v

    def __setattr__(self, name, x):
        raise AttributeError(f"a Value is immutable (cannot set {name})")

    def __delattr__(self, name):
        raise AttributeError(f"a Value is immutable (cannot delete {name})")

    def __reduce__(self):  # pickled with its sources: a copy is the same estimate
        return _restore, (self.value, self.kind, self.dps, self.digits_override, self.error, self.sources)

    # -- what it is
    @property
    def error(self):
        if self._error is _PENDING:
            _accumulate(self)
        return self._error

    @property
    def sources(self) -> dict:
        """``{error source: contribution}``: the first-order part of this value in the
        independent error sources it depends on (empty for an exact value)."""
        if self._error is _PENDING:
            _accumulate(self)
        return dict(self._sources or {})

    @property
    def digits(self) -> int:
        if self.digits_override is not None:
            return self.digits_override
        return supported_digits(self.value, self.error, self.kind, self.dps)

    @property
    def mpf(self):
        """The central value as an mpmath number (at its own precision)."""
        return _mpf(self.value, self.dps)

    @property
    def exact(self) -> bool:
        """No uncertainty beyond the working precision."""
        return self.kind == "dps" or self._error is None

    def __str__(self) -> str:
        if self.exact or isinstance(self.value, (bool, int)):
            return text(self.value, self.digits)
        return f"{text(self.value, self.digits)} ± {error_text(self.error)}"

    def __repr__(self) -> str:
        if self.exact:
            return f"Value({self}, dps={self.dps})"
        return f"Value({text(self.value, self.digits)}, {self.kind}={error_text(self.error)})"

    def _repr_latex_(self) -> str:
        if self.exact:
            return f"${self}$"
        return f"${text(self.value, self.digits)} \\pm {error_text(self.error)}$"

    def __format__(self, spec: str) -> str:
        """``f"{v}"`` the supported digits, ``f"{v:>40}"`` aligned; ``f"{v:.3f}"`` formats
        ``float(v)``, and refuses (ValueError) when a digit it shows is not the Value's own (more
        digits than a float holds, or a value beyond the float range)."""
        aligned = re.fullmatch(r"(?:(.)?([<>^]))?(\d*)", spec)
        if aligned:  # no precision, no type: the supported digits, right-aligned as numbers are
            fill, align, width = aligned.groups()
            return format(str(self), f"{fill or ''}{align or '>'}{width}")
        out = format(float(self), spec)
        if isinstance(self.value, mpmath.mpf) and mpmath.isfinite(self.value) and not _shows(out, self.value):
            raise ValueError(f"format spec {spec!r} shows digits that float(v) does not hold for this "
                             f"{self.dps}-digit Value ({out.strip()}); str(v) prints its {self.digits} "
                             f"supported digits")
        return out

    # -- conversions: exact, or correctly rounded
    def __round__(self, ndigits=None):
        """``round(v)`` the nearest integer (ties to even, as for float); ``round(v, n)`` a Value
        rounded to ``n`` decimals (ties to even) at its own precision, with the same error."""
        if ndigits is None:
            return round(self._rational())
        if isinstance(self.value, (bool, int)):
            mid = round(int(self.value), ndigits)
        elif not mpmath.isfinite(self.value):
            return self
        else:
            mid = _mpf(round(_fraction(self.value), ndigits), self.dps + GUARD_DPS)
        return Value._result(mid, self.kind, self.dps, () if self.exact else ((1, self),))

    def __float__(self) -> float:
        return float(self.value)  # mpmath rounds to the nearest float

    def __int__(self) -> int:
        return int(self._rational())

    def __trunc__(self) -> int:
        return math.trunc(self._rational())

    def __floor__(self) -> int:
        return math.floor(self._rational())

    def __ceil__(self) -> int:
        return math.ceil(self._rational())

    def __bool__(self) -> bool:
        return bool(self.value)

    def _rational(self):
        """The central value exactly: an int or a Fraction (inf and nan as the float they are,
        so that conversions to an integer raise as float's do)."""
        if isinstance(self.value, (bool, int)):
            return int(self.value)
        return _fraction(self.value) if mpmath.isfinite(self.value) else float(self.value)

    @property
    def _mpf_(self):  # mpmath.mpf(v), and mpmath functions of v, take the central value
        return self.mpf._mpf_

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.asarray(float(self), dtype=dtype if dtype is not None else float)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        if name not in UFUNCS:
            raise TypeError(f"numpy.{name} is not supported on a Value; supported: {', '.join(sorted(UFUNCS))}")
        if method != "__call__" or kwargs:
            extra = f".{method}" if method != "__call__" else f" with {', '.join(kwargs)}="
            raise TypeError(f"numpy.{name}{extra} is not supported on a Value; call numpy.{name}(...) on "
                            f"Values or object arrays of Values")
        return _elementwise(name, inputs, ufunc=True)

    # -- comparison of central values, exact
    def _compare(self, other, op):
        """``op`` of the exact central values: binary ones compared as mpf, any other rational
        as a Fraction."""
        if isinstance(other, (Value, mpmath.mpf)):
            return op(self.mpf, other.mpf if isinstance(other, Value) else other)
        ratio = _ratio(other) if _is_number(other) else None
        if ratio is None:
            return op(self.mpf, _mpf(other)) if _is_number(other) else NotImplemented  # inf, nan
        p, q = ratio
        if q & (q - 1) == 0 or not mpmath.isfinite(self.mpf):
            return op(self.mpf, _mpf(other))  # exact, or the sign decides
        return op(_fraction(self.mpf), Fraction(p, q))

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        return self._compare(other, operator.ne)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    def __hash__(self):  # equal to the hash of an equal int, float or Fraction
        return hash(self._rational())

    # -- arithmetic: the operations of UFUNCS
    def __add__(self, other):
        return _operate("add", self, other)

    def __radd__(self, other):
        return _operate("add", other, self)

    def __sub__(self, other):
        return _operate("subtract", self, other)

    def __rsub__(self, other):
        return _operate("subtract", other, self)

    def __mul__(self, other):
        return _operate("multiply", self, other)

    def __rmul__(self, other):
        return _operate("multiply", other, self)

    def __truediv__(self, other):
        return _operate("divide", self, other)

    def __rtruediv__(self, other):
        return _operate("divide", other, self)

    def __pow__(self, other):
        return _operate("power", self, other)

    def __rpow__(self, other):
        return _operate("power", other, self)

    def __neg__(self):
        return _operate("negative", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _operate("absolute", self)


def _restore(value, kind, dps, digits_override, error, sources):
    v = object.__new__(Value)
    v._set(value, kind, dps, digits_override, error, sources or None, None)
    return v


def _shows(out: str, x) -> bool:
    """Whether the number printed in ``out`` (a float formatted) is ``x`` rounded at its last
    printed digit: within half a unit of it."""
    m = re.search(r"\d[\d,_]*(\.\d*)?([eE][-+]?\d+)?%?", out)
    if m is None:
        return False  # inf or nan printed for a finite value
    number = m.group(0).replace(",", "").replace("_", "")
    percent = number.endswith("%")
    d = decimal.Decimal(number.rstrip("%").rstrip("."))
    unit = decimal.Decimal(1).scaleb(d.as_tuple().exponent)
    if percent:
        d, unit = d / 100, unit / 100
    if "-" in out[: m.start()]:
        d = -d
    return abs(_fraction(x) - Fraction(d)) <= Fraction(unit) / 2


# --- first-order error propagation over independent sources ---------------------------------------
def _accumulate(top: Value) -> None:
    """Fill ``top``'s sources and error from its operands: reverse accumulation of the
    derivatives over the graph of pending results (each visited once, whatever is shared),
    down to Values whose sources are known."""
    order, seen, stack = [], {id(top)}, [(top, False)]
    while stack:  # post-order of the pending results, without recursion
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        stack.append((node, True))
        for _, child in node._operands:
            if child._error is _PENDING and id(child) not in seen:
                seen.add(id(child))
                stack.append((child, False))
    with mpmath.workdps(top.dps + GUARD_DPS):
        weight, known = {id(top): mpmath.mpf(1)}, {}
        for node in reversed(order):  # every result before the results it is computed from
            w = weight.pop(id(node))
            for g, child in node._operands:
                if child._error is not _PENDING:
                    known[id(child)] = child
                _add(weight, id(child), _times(w, g))
        sources = {}
        for key, child in known.items():
            w = weight[key]
            for source, c in child._sources.items():
                _add(sources, source, _times(w, c))
        object.__setattr__(top, "_sources", sources)
        object.__setattr__(top, "_error", _combined_error(sources, top.kind))
        object.__setattr__(top, "_operands", None)  # the graph below is no longer needed


def _add(terms: dict, key, x) -> None:
    terms[key] = terms[key] + x if key in terms else x


def _times(a, b):
    """a·b, exact when a factor is ±1 (a derivative of a sum, a negation)."""
    if a == 1:
        return b
    if b == 1:
        return a
    if a == -1:
        return -b if not isinstance(b, mpmath.mpf) else mpmath.fneg(b, exact=True)
    return a * b


def _combined_error(sources: dict, kind: str):
    """The error of a value from its contributions: the absolute values summed for a ball radius
    (every source a radius), in quadrature otherwise; one source's contribution exactly."""
    cs = [_abs(_mpf(c)) for c in sources.values()]
    if len(cs) == 1:
        return cs[0]
    if kind == "radius":
        return mpmath.fsum(cs)
    return mpmath.sqrt(mpmath.fsum(c * c for c in cs))


def _combined_kind(parts) -> str:
    kinds = {v.kind for v in parts if not v.exact}
    if not kinds:
        return "dps"
    if len(kinds) == 1:
        return kinds.pop()
    return "se"


# --- the operations: one table ----------------------------------------------------------------------
class Op(NamedTuple):
    """An operation on Values: ``f`` evaluates it on mpf central values (or, for ``partials``
    None, on the Values themselves: a comparison or a choice of one operand); ``partials`` the
    derivative in each argument, at the same arguments."""

    f: object
    partials: tuple | None
    symbol: str = ""


def _neg(x):
    return mpmath.fneg(x, exact=True)


def _abs(x):
    return _neg(x) if x < 0 else x


def _dpow_base(a, b):
    return b * a ** (b - 1) if b != 0 else mpmath.mpf(0)


def _dpow_exponent(a, b):
    if a < 0:
        raise ValueError("a negative base with an uncertain exponent: the power is not real near it")
    return a**b * mpmath.log(a) if a > 0 else mpmath.mpf(0)


def _one(*_):
    return 1


def _minus_one(*_):
    return -1


#: every operation a Value supports, by numpy ufunc name: Python's operators and numpy's ufuncs
#: use these entries, and nothing else
UFUNCS: dict[str, Op] = {
    "add": Op(lambda a, b: a + b, (_one, _one), "+"),
    "subtract": Op(lambda a, b: a - b, (_one, _minus_one), "-"),
    "multiply": Op(lambda a, b: a * b, (lambda a, b: b, lambda a, b: a), "*"),
    "divide": Op(lambda a, b: a / b, (lambda a, b: 1 / b, lambda a, b: -a / b**2), "/"),
    "power": Op(lambda a, b: a**b, (_dpow_base, _dpow_exponent), "**"),
    "hypot": Op(mpmath.hypot, (lambda a, b: a / mpmath.hypot(a, b), lambda a, b: b / mpmath.hypot(a, b))),
    "arctan2": Op(mpmath.atan2, (lambda a, b: b / (a * a + b * b), lambda a, b: -a / (a * a + b * b))),
    "negative": Op(_neg, (_minus_one,), "-"),
    "positive": Op(lambda x: x, (_one,), "+"),
    "absolute": Op(_abs, (lambda x: -1 if x < 0 else 1,), "abs"),
    "fabs": Op(_abs, (lambda x: -1 if x < 0 else 1,)),
    "square": Op(lambda x: x * x, (lambda x: 2 * x,)),
    "reciprocal": Op(lambda x: 1 / x, (lambda x: -1 / x**2,)),
    "sqrt": Op(mpmath.sqrt, (lambda x: 1 / (2 * mpmath.sqrt(x)),)),
    "exp": Op(mpmath.exp, (mpmath.exp,)),
    "expm1": Op(mpmath.expm1, (mpmath.exp,)),
    "log": Op(mpmath.log, (lambda x: 1 / x,)),
    "log2": Op(lambda x: mpmath.log(x, 2), (lambda x: 1 / (x * mpmath.ln2),)),
    "log10": Op(mpmath.log10, (lambda x: 1 / (x * mpmath.ln10),)),
    "log1p": Op(mpmath.log1p, (lambda x: 1 / (1 + x),)),
    "sin": Op(mpmath.sin, (mpmath.cos,)),
    "cos": Op(mpmath.cos, (lambda x: -mpmath.sin(x),)),
    "tan": Op(mpmath.tan, (lambda x: mpmath.sec(x) ** 2,)),
    "arcsin": Op(mpmath.asin, (lambda x: 1 / mpmath.sqrt(1 - x * x),)),
    "arccos": Op(mpmath.acos, (lambda x: -1 / mpmath.sqrt(1 - x * x),)),
    "arctan": Op(mpmath.atan, (lambda x: 1 / (1 + x * x),)),
    "sinh": Op(mpmath.sinh, (mpmath.cosh,)),
    "cosh": Op(mpmath.cosh, (mpmath.sinh,)),
    "tanh": Op(mpmath.tanh, (lambda x: mpmath.sech(x) ** 2,)),
    "arcsinh": Op(mpmath.asinh, (lambda x: 1 / mpmath.sqrt(x * x + 1),)),
    "arccosh": Op(mpmath.acosh, (lambda x: 1 / mpmath.sqrt(x * x - 1),)),
    "arctanh": Op(mpmath.atanh, (lambda x: 1 / (1 - x * x),)),
    "less": Op(operator.lt, None), "less_equal": Op(operator.le, None), "greater": Op(operator.gt, None),
    "greater_equal": Op(operator.ge, None), "equal": Op(operator.eq, None), "not_equal": Op(operator.ne, None),
    "maximum": Op(lambda a, b: b if b > a else a, None), "minimum": Op(lambda a, b: b if b < a else a, None),
}
UFUNCS["true_divide"] = UFUNCS["divide"]
#: the operations numpy's loops over object arrays call as a method of each element (np.sqrt of
#: an object array calls ``x.sqrt()``); the others it calls through Python's operators
_METHODS = ("hypot", "arctan2", "fabs", "sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
            "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")


def _method(name):
    def method(self, *others):
        return _elementwise(name, (self, *others), ufunc=True)

    method.__name__ = name
    method.__doc__ = f"numpy.{name} of this Value (numpy calls it on object arrays of Values)."
    return method


for _name in _METHODS:
    setattr(Value, _name, _method(_name))


def _scalar_object(v: Value):
    import numpy as np

    out = np.empty((), dtype=object)
    out[()] = v
    return out


def _objects(x):
    """``x`` as an object array of Python numbers and Values (numpy scalars become Python ones,
    so that no element sends the operation back to numpy)."""
    import numpy as np

    if isinstance(x, Value):
        return _scalar_object(x)
    arr = np.asarray(x)
    return arr if arr.dtype == object else arr.astype(object)


def _elementwise(name, args, ufunc=False):
    """``name`` applied to Values, numbers and arrays of them (elementwise, an object array)."""
    import numpy as np

    if not any(isinstance(a, np.ndarray) for a in args):
        out = _operate(name, *args)
        if out is NotImplemented and ufunc:
            raise TypeError(f"numpy.{name} of {', '.join(type(a).__name__ for a in args)}: "
                            f"a Value combines with numbers and Values")
        return out
    return np.frompyfunc(lambda *xs: _elementwise(name, xs, ufunc=True), len(args), 1)(*map(_objects, args))


def _as_value(x):
    if isinstance(x, Value):
        return x
    if _is_number(x):
        return Value(_mpf(x, MAX_DPS + GUARD_DPS), None, "dps", 10**9)  # an exact operand: no precision limit
    return None


def _operate(name: str, *args):
    """Operation ``name`` of :data:`UFUNCS` on Values and numbers (NotImplemented for other
    operands): evaluated at the smallest precision of the Values plus :data:`GUARD_DPS` digits,
    the first-order dependence on each uncertain operand recorded."""
    import numpy as np

    if any(isinstance(a, np.ndarray) for a in args):  # an array with a Value: elementwise
        return _elementwise(name, args)
    if not any(isinstance(a, Value) for a in args):
        return getattr(np, name)(*args)  # numbers only (an element of an array operand)
    op, vals = UFUNCS[name], [_as_value(a) for a in args]
    if any(v is None for v in vals):
        return NotImplemented
    if op.partials is None:  # a comparison, or a choice of one operand as it is
        return op.f(*args)
    dps = min(v.dps for v in vals)
    kind = _combined_kind(vals)
    with mpmath.workdps(dps + GUARD_DPS):
        xs = [v.mpf for v in vals]
        try:
            mid = op.f(*xs)
        except ValueError as e:
            raise ValueError(f"{_call(name, op, xs)}: {e}") from None
        if not isinstance(mid, mpmath.mpf):
            raise ValueError(f"{_call(name, op, xs)} is not a real number; a Value is real")
        operands = ()
        if kind != "dps":
            operands = tuple((_partial(name, op, d, xs), v) for d, v in zip(op.partials, vals) if not v.exact)
    return Value._result(mid, kind, dps, operands)


def _partial(name, op, d, xs):
    try:
        g = d(*xs)
    except ZeroDivisionError:
        g = None
    except ValueError as e:
        raise ValueError(f"{_call(name, op, xs)}: {e}") from None
    if g is None or not isinstance(g, (int, mpmath.mpf)) or not mpmath.isfinite(g):
        raise ValueError(f"{_call(name, op, xs)} has no finite derivative there: its error has no first-order "
                         f"propagation")
    return g


def _call(name, op, xs) -> str:
    shown = [mpmath.nstr(x, 8) for x in xs]
    if op.symbol and len(xs) == 2:
        return f"{shown[0]} {op.symbol} {shown[1]}"
    if op.symbol == "-" and len(xs) == 1:
        return f"-({shown[0]})"
    return f"{op.symbol or 'numpy.' + name}({', '.join(shown)})"


def from_ball(ball, dps: int) -> Value:
    """A certified ball (``.mid``, ``.rad``: decimal strings, numerics.core.arb.Ball) as a Value
    of kind ``"radius"``: the true value lies in [value - error, value + error]."""
    return Value(_mpf(ball.mid, dps + 10), _mpf(ball.rad, 20), "radius", dps)


# --- raw results: uncertainty on key suffixes -> Values ------------------------------------------
def _base_and_kind(key: str):
    for suffix in SE_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)], SE_KINDS[suffix]
    return None, None


def values(out: dict, dps: int) -> dict:
    """A raw result dict (an estimate ``x`` next to its standard error ``x_se`` /
    ``x_qmc_se`` / ``x_rqmc_se`` / ``x_mc_se``) as ``{name: Value}``: each estimate carries its
    error, the companion keys are folded into it.  A standard error without its estimate stays
    a Value printed to two digits; text and other non-numbers are kept as they are."""
    res = {}
    for key, v in out.items():
        base, kind = _base_and_kind(key)
        if base is not None and base in out and _numeric(out[base]):
            continue  # folded into its estimate
        if not _numeric(v):
            res[key] = v
            continue
        if isinstance(v, (bool, int)):
            res[key] = Value(v, None, "dps", dps)
            continue
        companions = [(out[key + s], SE_KINDS[s]) for s in SE_SUFFIXES if key + s in out and _numeric(out[key + s])]
        if companions:
            err, kind = companions[0]
            res[key] = Value(_mpf(v), _mpf(err), kind, dps)
        elif base is not None:
            res[key] = Value(_mpf(v), None, "dps", dps, digits_override=min(dps, 2))
        else:
            res[key] = Value(_mpf(v), None, "dps", dps)
    return res


def _numeric(v) -> bool:
    return isinstance(v, (numbers.Real, mpmath.mpf))


def flatten(vals: dict) -> dict:
    """The inverse of :func:`values` for printing and JSON: ``{name: text}`` with each error
    back on its key suffix (``x`` and ``x_rqmc_se``), every number to its supported digits."""
    res = {}
    for key, v in vals.items():
        if not isinstance(v, Value):
            res[key] = v
            continue
        res[key] = str(v) if v.exact else text(v.value, v.digits)
        if not v.exact:
            suffix = next(s for s, k in SE_KINDS.items() if k == v.kind) if v.kind in SE_KINDS.values() else "_radius"
            res[key + suffix] = error_text(v.error)
    return res
