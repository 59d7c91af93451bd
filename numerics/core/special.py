"""Numerical implementations of the special functions compiled SymPy expressions call by name.

SymPy derivations write the logistic loss with ``softplus`` and ``sigmoid``
(``derivations.paper_a.erm_equations``), whose exact derivatives SymPy knows, and use
``erfc``, ``erfcx`` (exp(x^2) erfc(x), for stable Gaussian tails), ``LambertW`` and
``binomial``; SymPy's printers leave some of them as plain names.  Compiled code looks them up
here, per backend: stable numpy versions (no overflow for large arguments) and mpmath
versions at any precision.  ``NumpyContext.compile`` and ``MpContext.compile``
(``numerics.core.backends``) give ``namespace(backend)`` to every compiled function.  Nothing
here knows a model.
"""
from __future__ import annotations

import math

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


def lambertw_real(z, branch=0):
    """Real branch ``branch`` (0 or -1) of Lambert W, nan outside its real domain
    (z >= -1/e, resp. -1/e <= z < 0).  On z >= 0 the principal branch is the Wright omega
    function of log z (real, about 3x faster than the complex ``lambertw``)."""
    z = np.asarray(z, float)
    out = np.full(z.shape, np.nan)
    neg = (z >= -math.exp(-1.0)) & (z < 0)
    out[neg] = np.real(_sc.lambertw(z[neg], branch))
    if branch == 0:
        pos = z >= 0
        with np.errstate(divide="ignore"):
            out[pos] = _sc.wrightomega(np.log(z[pos]))
    return out



NUMPY = {"softplus": _softplus_np, "sigmoid": _sc.expit, "erfc": _sc.erfc, "erfcx": _sc.erfcx,
         "LambertW": lambertw_real, "binomial": _sc.binom}
MPMATH = {"softplus": _softplus_mp, "sigmoid": _sigmoid_mp, "erfc": mpmath.erfc,
          "erfcx": lambda x: mpmath.exp(x * x) * mpmath.erfc(x)}


def namespace(backend: str) -> dict:
    """The name -> implementation map for a backend ("numpy" or "mpmath")."""
    return {"numpy": NUMPY, "mpmath": MPMATH}[backend]
