"""Numerical implementations of the special functions the derivations use by name.

SymPy derivations write the logistic loss with the functions ``softplus`` and ``sigmoid``
(``derivations.paper_a.erm_equations``), whose exact derivatives SymPy knows.  Compiled code
looks their names up here: stable numpy versions (no overflow for large arguments) and
mpmath versions at any precision.  Nothing here knows a model.
"""
from __future__ import annotations

import mpmath
import numpy as np
from scipy import special as _sc


def _softplus_np(x):
    return np.logaddexp(0.0, x)


def _softplus_mp(x):
    x = mpmath.mpf(x)
    return x + mpmath.log1p(mpmath.exp(-x)) if x > 0 else mpmath.log1p(mpmath.exp(x))


def _sigmoid_mp(x):
    x = mpmath.mpf(x)
    if x >= 0:
        return 1 / (1 + mpmath.exp(-x))
    e = mpmath.exp(x)
    return e / (1 + e)


NUMPY = {"softplus": _softplus_np, "sigmoid": _sc.expit, "erfc": _sc.erfc}
MPMATH = {"softplus": _softplus_mp, "sigmoid": _sigmoid_mp, "erfc": mpmath.erfc}


def namespace(backend: str) -> dict:
    """The name -> implementation map for a backend ("numpy" or "mpmath")."""
    return {"numpy": NUMPY, "mpmath": MPMATH}[backend]
