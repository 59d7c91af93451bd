"""One number type and one number printer.

:class:`Value` is a number with its uncertainty, as every user-facing result of attncheck is
given (``attncheck.evaluate``, ``attncheck.solve``, ``attncheck eval`` and ``solve`` print
through the same printer).  ``kind`` says what the uncertainty is:

* ``"dps"``     — none beyond the working precision: the value is correct to ``dps`` digits;
* ``"se"``      — a Monte Carlo standard error (``"mc_se"`` where the estimator calls it so);
* ``"qmc_se"``, ``"rqmc_se"`` — the standard error of a (randomized) quasi-Monte Carlo
  estimate over independent scramblings;
* ``"radius"``  — the radius of a ball: the value lies in [value - error, value + error].

Arithmetic (``+ - * / **``, with numbers and with other Values) evaluates the central values
in mpmath at the smaller working precision of the operands and propagates the uncertainty to
first order, for *independent* errors: for f(a, b) the result's error is
sqrt((df/da·σa)² + (df/db·σb)²) for standard errors, and |df/da|·ra + |df/db|·rb for ball
radii (first order: a certified enclosure comes from ``attncheck.certify``, not from this).
Operands of different statistical kinds give a ``"se"``; a radius combined with a standard
error is treated as a standard error.  Correlated operands (``v - v``) are not recognised:
``v - v`` has error sqrt(2)·σ, as for two independent estimates.

Comparison (``<``, ``==``...) compares the central values; ``float(v)``, ``mpmath.mpf(v)``
(through ``_mpf_``) and ``numpy.asarray([v, ...])`` (through ``__array__``: a float64 array)
give the central value.  numpy ufuncs of arithmetic (``np.add``, ``np.multiply``...) applied to
Values, and arrays combined with a Value, give object arrays of Values.

The printer (:func:`supported_digits`, :func:`text`) rounds once, from the exact binary value
(ties away from zero), and prints only the digits the uncertainty supports: ``dps`` digits for
an exact value; two digits beyond the first digit of a standard error (the standard error
itself gets two); one beyond the first digit of a ball radius.
"""
from __future__ import annotations

import decimal
import numbers
import operator
from dataclasses import dataclass

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


def error_text(error) -> str:
    """An uncertainty to two significant digits."""
    return text(error, 2)


# --- the value -----------------------------------------------------------------------------------
def _is_number(x) -> bool:
    return isinstance(x, (numbers.Real, mpmath.mpf)) and not isinstance(x, Value)


@dataclass(frozen=True, eq=False)
class Value:
    """A number with its uncertainty (module docstring): ``value`` (an mpmath ``mpf``, or a
    Python ``bool``/``int`` for flags and counts), ``error`` (None for none), ``kind`` (what the
    error is: one of :data:`KINDS`), ``dps`` (the working precision it was computed at).
    ``digits`` is the number of significant digits printed: by default those the error
    supports."""

    value: object
    error: object = None
    kind: str = "dps"
    dps: int = 30
    digits_override: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not isinstance(self.value, (bool, int, mpmath.mpf)):
            object.__setattr__(self, "value", _mpf(self.value, self.dps))
        if self.error is not None and not isinstance(self.error, mpmath.mpf):
            object.__setattr__(self, "error", _mpf(self.error, self.dps))

    # -- what it is
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
        return self.error is None or self.kind == "dps"

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

    def __format__(self, spec: str) -> str:  # f"{v}" the supported digits, f"{v:.3f}" the float
        return str(self) if not spec else format(float(self), spec)

    # -- conversions
    def __round__(self, ndigits=None):
        return round(float(self), ndigits)

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    @property
    def _mpf_(self):  # mpmath.mpf(v), and mpmath functions of v, take the central value
        return self.mpf._mpf_

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.asarray(float(self), dtype=dtype if dtype is not None else float)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        import numpy as np

        op = _UFUNCS.get(ufunc.__name__)
        if method != "__call__" or kwargs or op is None:
            return NotImplemented
        return np.frompyfunc(op, len(inputs), 1)(*(_objects(x) for x in inputs))

    # -- comparison of central values
    def _other(self, other):
        if isinstance(other, Value):
            return other.mpf
        if _is_number(other):
            return _mpf(other)
        return None

    def _compare(self, other, op):
        o = self._other(other)
        if o is None:
            return NotImplemented
        return op(self.mpf, o)

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        r = self._compare(other, operator.eq)
        return r if r is NotImplemented else not r

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    def __hash__(self):
        return hash(float(self.value))

    # -- arithmetic, first-order propagation of independent errors
    def __add__(self, other):
        return _binary(self, other, lambda a, b: a + b, lambda a, b: (1, 1))

    def __radd__(self, other):
        return _binary(other, self, lambda a, b: a + b, lambda a, b: (1, 1))

    def __sub__(self, other):
        return _binary(self, other, lambda a, b: a - b, lambda a, b: (1, -1))

    def __rsub__(self, other):
        return _binary(other, self, lambda a, b: a - b, lambda a, b: (1, -1))

    def __mul__(self, other):
        return _binary(self, other, lambda a, b: a * b, lambda a, b: (b, a))

    def __rmul__(self, other):
        return _binary(other, self, lambda a, b: a * b, lambda a, b: (b, a))

    def __truediv__(self, other):
        return _binary(self, other, lambda a, b: a / b, lambda a, b: (1 / b, -a / b**2))

    def __rtruediv__(self, other):
        return _binary(other, self, lambda a, b: a / b, lambda a, b: (1 / b, -a / b**2))

    def __pow__(self, other):
        return _binary(self, other, lambda a, b: a**b, _dpow)

    def __rpow__(self, other):
        return _binary(other, self, lambda a, b: a**b, _dpow)

    def __neg__(self):
        return Value(-self.mpf, self.error, self.kind, self.dps)

    def __pos__(self):
        return self

    def __abs__(self):
        return Value(abs(self.mpf), self.error, self.kind, self.dps)


def _dpow(a, b):
    da = b * a ** (b - 1) if b != 0 else mpmath.mpf(0)
    db = a**b * mpmath.log(a) if a > 0 else mpmath.mpf(0)
    return da, db


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


def _as_value(x):
    if isinstance(x, Value):
        return x
    if _is_number(x):
        return Value(_mpf(x), None, "dps", 10**9)  # an exact operand: no precision limit
    return None


def _combined_kind(parts) -> str:
    kinds = {v.kind for v in parts if not v.exact}
    if not kinds:
        return "dps"
    if len(kinds) == 1:
        return kinds.pop()
    return "se"


def _binary(a, b, f, grad):
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):  # an array with a Value: elementwise
        return np.frompyfunc(lambda x, y: _binary(x, y, f, grad), 2, 1)(_objects(a), _objects(b))
    va, vb = _as_value(a), _as_value(b)
    if va is None or vb is None:
        return NotImplemented
    dps = min(va.dps, vb.dps)
    with mpmath.workdps(dps + 5):
        x, y = va.mpf, vb.mpf
        mid = f(x, y)
        kind = _combined_kind((va, vb))
        error = None
        if kind != "dps":
            ga, gb = grad(x, y)
            terms = [abs(_mpf(g)) * v.error for g, v in ((ga, va), (gb, vb)) if not v.exact]
            error = sum(terms) if kind == "radius" else mpmath.sqrt(sum(t**2 for t in terms))
    with mpmath.workdps(dps):
        mid = +mid
    return Value(mid, error, kind, dps)


_UFUNCS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "true_divide": operator.truediv,
           "divide": operator.truediv, "power": operator.pow, "negative": operator.neg, "positive": operator.pos,
           "absolute": abs, "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
           "greater_equal": operator.ge, "equal": operator.eq, "not_equal": operator.ne}


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
