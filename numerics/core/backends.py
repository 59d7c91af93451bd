"""Turn exact SymPy expressions into evaluators: mpmath (any precision) or numpy (vectorised).

One expression, every backend.  ``mp_eval`` evaluates at a requested number of decimal
digits; ``evalf_reference`` is the independent check (SymPy's own ``evalf`` at the same
substitution), used by the tests to confirm the lambdified mpmath code agrees to the asked
digits.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

BACKENDS = ("mpmath", "numpy")


@lru_cache(maxsize=512)
def _lambdify(expr: sp.Basic, args: tuple[sp.Symbol, ...], module: str, extra: tuple = (), cse: bool = False):
    modules = [dict(extra), module] if extra else [module]
    # Rename the arguments first: a parameter Symbol named like a constant (the prior "pi")
    # would otherwise shadow that constant inside the generated code (sympy's dummify=True
    # still leaks the name into the namespace).
    safe = tuple(sp.Symbol(f"_arg{i}") for i in range(len(args)))
    return sp.lambdify(safe, _rename(expr, dict(zip(args, safe))), modules=modules, cse=cse)


def _rename(expr, mapping):
    """xreplace through (nested) lists and tuples, the output shapes lambdify accepts."""
    if isinstance(expr, (list, tuple)):
        return type(expr)(_rename(e, mapping) for e in expr)
    return sp.sympify(expr).xreplace(mapping)


def lambdify(expr: sp.Basic, args: Sequence[sp.Symbol], backend: str = "mpmath", extra: Mapping | None = None,
             *, cse: bool = False):
    """Compile ``expr`` once per (expr, args, backend).  ``extra`` maps SymPy function names
    to backend implementations (for e.g. unevaluated Gaussian integrals); ``cse`` computes
    common subexpressions once (for large vectorised expressions)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    extra_t = tuple(sorted((extra or {}).items()))
    key = sp.Tuple(*expr) if isinstance(expr, (list, tuple)) else expr  # hashable for the cache
    f = _lambdify(key, tuple(args), backend, extra_t, cse)
    return f


def mp_eval(expr: sp.Basic, values: Mapping[sp.Symbol, object], dps: int = 30, extra: Mapping | None = None):
    """Evaluate ``expr`` in mpmath at ``dps`` digits.  Parameters are converted from their
    decimal string so that e.g. 0.2 means exactly 1/5, as it does for ``evalf``."""
    args = tuple(values)
    f = lambdify(expr, args, "mpmath", extra)
    with mpmath.workdps(dps + 10):
        out = f(*[to_mpf(values[a]) for a in args])
        return +mpmath.mpf(out) if not isinstance(out, mpmath.mpc) else out


def np_eval(expr: sp.Basic, values: Mapping[sp.Symbol, object], extra: Mapping | None = None):
    args = tuple(values)
    f = lambdify(expr, args, "numpy", extra)
    return f(*[np.asarray(values[a], dtype=float) for a in args])


def to_mpf(x) -> mpmath.mpf:
    """Exact-ish conversion: ints and decimal strings are exact, floats via repr."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, (int, np.integer)):
        return mpmath.mpf(int(x))
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.N(x, mpmath.mp.dps + 5))
    return mpmath.mpf(repr(float(x))) if not isinstance(x, str) else mpmath.mpf(x)


def to_exact(x) -> sp.Expr:
    """A user number as an exact SymPy rational (0.2 -> 1/5)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, (int, np.integer)):
        return sp.Integer(int(x))
    return sp.Rational(repr(float(x)) if not isinstance(x, str) else x)


def evalf_reference(expr: sp.Basic, values: Mapping[sp.Symbol, object], dps: int) -> mpmath.mpf:
    """The independent reference: SymPy's own evalf, with each parameter given as a Float of
    dps + 20 digits from its decimal string (0.2 is 1/5 to that precision).  Floats rather than
    exact rationals: substituting huge rationals into powers makes SymPy factor integers."""
    def convert(v):
        if isinstance(v, sp.Basic):
            return v
        if isinstance(v, (int, np.integer)):
            return sp.Integer(int(v))
        return sp.Float(v if isinstance(v, str) else repr(float(v)), dps + 20)

    subs = {k: convert(v) for k, v in values.items()}
    with mpmath.workdps(dps + 10):
        return mpmath.mpf(sp.N(expr, dps + 5, subs=subs))


def agree_digits(a, b) -> float:
    """Number of agreeing significant decimal digits between two mp numbers.

    Works at a precision above the CLI's maximum (2000 digits) whatever the caller's context,
    so two 50-digit values are never rounded to doubles before they are compared."""
    with mpmath.workdps(2100):
        a = a if isinstance(a, mpmath.mpf) else mpmath.mpf(a)
        b = b if isinstance(b, mpmath.mpf) else mpmath.mpf(b)
        if a == b:
            return float("inf")
        scale = max(abs(a), abs(b))
        return float(-mpmath.log10(abs(a - b) / scale)) if scale else float("inf")


def format_mp(x, digits: int) -> str:
    return mpmath.nstr(x, digits, strip_zeros=False, min_fixed=-3, max_fixed=4)
