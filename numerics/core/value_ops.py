"""The operations on :class:`numerics.core.value.Value`, in one table (:data:`UFUNCS`):
Python's operators, numpy's ufuncs on a Value and numpy's loops over object arrays of Values
all evaluate an entry of it (:func:`operate`), at the operands' precision plus guard digits,
and record the first-order dependence of the result on each uncertain operand (the rules are
in the docstring of :mod:`numerics.core.value`)."""
from __future__ import annotations

import operator
from typing import NamedTuple

import mpmath

from numerics.core.digits import _abs, _mpf, _neg
from numerics.core.precision import MAX_DPS


class Op(NamedTuple):
    """An operation on Values: ``f`` evaluates it on mpf central values (or, for ``partials``
    None, on the Values themselves: a comparison or a choice of one operand); ``partials`` the
    derivative in each argument, at the same arguments."""

    f: object
    partials: tuple | None
    symbol: str = ""


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


def _scalar_object(v: V.Value):
    import numpy as np

    out = np.empty((), dtype=object)
    out[()] = v
    return out


def _objects(x):
    """``x`` as an array for ``numpy.frompyfunc``, which hands each element over as a Python
    number (never a numpy scalar, which would send the operation back to numpy) or a Value."""
    import numpy as np

    return _scalar_object(x) if isinstance(x, V.Value) else np.asarray(x)


def _elementwise(name, args, ufunc=False):
    """``name`` applied to Values, numbers and arrays of them (elementwise, an object array)."""
    import numpy as np

    if not any(isinstance(a, np.ndarray) for a in args):
        out = operate(name, *args)
        if out is NotImplemented and ufunc:
            raise TypeError(f"numpy.{name} of {', '.join(type(a).__name__ for a in args)}: "
                            f"a Value combines with numbers and Values")
        return out
    return np.frompyfunc(lambda *xs: _elementwise(name, xs, ufunc=True), len(args), 1)(*map(_objects, args))


def _as_value(x):
    if isinstance(x, V.Value):
        return x
    if V._is_number(x):
        return V.Value(_mpf(x, MAX_DPS + V.GUARD_DPS), None, "dps", 10**9)  # an exact operand: no precision limit
    return None


def operate(name: str, *args):
    """Operation ``name`` of :data:`UFUNCS` on Values and numbers (NotImplemented for other
    operands): evaluated at the smallest precision of the Values plus ``GUARD_DPS`` digits,
    the first-order dependence on each uncertain operand recorded."""
    import numpy as np

    if any(isinstance(a, np.ndarray) for a in args):  # an array with a Value: elementwise
        return _elementwise(name, args)
    if not any(isinstance(a, V.Value) for a in args):
        return getattr(np, name)(*args)  # numbers only (an element of an array operand)
    op, vals = UFUNCS[name], [_as_value(a) for a in args]
    if any(v is None for v in vals):
        return NotImplemented
    if op.partials is None:  # a comparison, or a choice of one operand as it is
        return op.f(*args)
    dps = min(v.dps for v in vals)
    kind = V._combined_kind(vals)
    with mpmath.workdps(dps + V.GUARD_DPS):
        xs = [v.mpf for v in vals]
        mid = op.f(*xs)  # mpmath gives a complex number, not an error, outside the real domain
        if not isinstance(mid, mpmath.mpf):
            raise ValueError(f"{_call(name, op, xs)} is not a real number; a Value is real")
        operands = tuple((_partial(name, op, d, xs), v) for d, v in zip(op.partials, vals) if not v.exact)
    return V.Value._result(mid, kind, dps, operands)


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
    return f"{op.symbol or 'numpy.' + name}({', '.join(shown)})"


from numerics.core import value as V  # noqa: E402  (last: value.py imports this module at its end)
