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

import math
import numbers
import operator
import os
import re
from fractions import Fraction

import mpmath

from numerics.core.digits import (_abs, _fraction, _mpf, _ratio, _shows, error_text,  # noqa: F401  (re-exported)
                                  supported_digits, text)

#: the statistical kinds of uncertainty, and the key suffix each rides on in a raw result dict
SE_KINDS = {"_se": "se", "_rqmc_se": "rqmc_se", "_qmc_se": "qmc_se", "_mc_se": "mc_se"}
#: the suffixes, longest first (``x_rqmc_se`` is the rqmc se of ``x``, not the se of ``x_rqmc``)
SE_SUFFIXES = tuple(sorted(SE_KINDS, key=len, reverse=True))
KINDS = ("dps", "radius", *SE_KINDS.values())



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

        return np.asarray(float(self), dtype=dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        if name not in UFUNCS:
            raise TypeError(f"numpy.{name} is not supported on a Value; supported: {', '.join(sorted(UFUNCS))}")
        if method != "__call__" or kwargs:
            extra = f".{method}" if method != "__call__" else f" with {', '.join(kwargs)}="
            raise TypeError(f"numpy.{name}{extra} is not supported on a Value; call numpy.{name}(...) on "
                            f"Values or object arrays of Values")
        return _ops._elementwise(name, inputs, ufunc=True)

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
        return _ops.operate("add", self, other)

    def __radd__(self, other):
        return _ops.operate("add", other, self)

    def __sub__(self, other):
        return _ops.operate("subtract", self, other)

    def __rsub__(self, other):
        return _ops.operate("subtract", other, self)

    def __mul__(self, other):
        return _ops.operate("multiply", self, other)

    def __rmul__(self, other):
        return _ops.operate("multiply", other, self)

    def __truediv__(self, other):
        return _ops.operate("divide", self, other)

    def __rtruediv__(self, other):
        return _ops.operate("divide", other, self)

    def __pow__(self, other):
        return _ops.operate("power", self, other)

    def __rpow__(self, other):
        return _ops.operate("power", other, self)

    def __neg__(self):
        return _ops.operate("negative", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops.operate("absolute", self)


def _restore(value, kind, dps, digits_override, error, sources):
    v = object.__new__(Value)
    v._set(value, kind, dps, digits_override, error, sources or None, None)
    return v


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


# --- the operations (numerics.core.value_ops: one table) -------------------------------------------
from numerics.core import value_ops as _ops  # noqa: E402  (it reads Value, defined above)
from numerics.core.value_ops import UFUNCS  # noqa: E402,F401  (re-exported)

#: the operations numpy's loops over object arrays call as a method of each element (np.sqrt of
#: an object array calls ``x.sqrt()``); the others it calls through Python's operators
_METHODS = ("hypot", "arctan2", "fabs", "sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
            "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")


def _method(name):
    def method(self, *others):
        return _ops._elementwise(name, (self, *others), ufunc=True)

    method.__name__ = name
    method.__doc__ = f"numpy.{name} of this Value (numpy calls it on object arrays of Values)."
    return method


for _name in _METHODS:
    setattr(Value, _name, _method(_name))

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


def flatten(vals: dict, as_float: bool = False) -> dict:
    """The inverse of :func:`values` for printing and JSON: ``{name: text}`` with each error
    back on its key suffix (``x`` and ``x_rqmc_se``), every number to its supported digits;
    ``as_float``: floats instead, for tables and plots (text and other non-numbers left out)."""
    res = {}
    for key, v in vals.items():
        if not isinstance(v, Value):
            res.update({} if as_float else {key: v})
            continue
        res[key] = float(v.value) if as_float else text(v.value, v.digits)
        if not v.exact:
            res[key + _suffix(v)] = float(v.error) if as_float else error_text(v.error)
    return res


def _suffix(v: "Value") -> str:
    """The key suffix of a value's error: its standard error's kind, else ``_radius``."""
    return next(s for s, k in SE_KINDS.items() if k == v.kind) if v.kind in SE_KINDS.values() else "_radius"
