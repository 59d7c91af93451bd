"""numpy implementations of the special functions that compiled SymPy expressions call.

SymPy's numpy printer leaves ``erfc``, ``LambertW`` and ``binomial`` as plain names; this map
(passed as ``extra`` to :func:`numerics.core.backends.lambdify`) supplies them.  Generic: no
model formula here.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import binom, erfc, lambertw, wrightomega


def lambertw_real(z, branch=0):
    """Real branch ``branch`` (0 or -1) of Lambert W, nan outside its real domain
    (z >= -1/e, resp. -1/e <= z < 0).  On z >= 0 the principal branch is the Wright omega
    function of log z (real, about 3x faster than the complex ``lambertw``)."""
    z = np.asarray(z, float)
    out = np.full(z.shape, np.nan)
    neg = (z >= -math.exp(-1.0)) & (z < 0)
    out[neg] = np.real(lambertw(z[neg], branch))
    if branch == 0:
        pos = z >= 0
        with np.errstate(divide="ignore"):
            out[pos] = wrightomega(np.log(z[pos]))
    return out


#: name -> numpy implementation, for ``lambdify(..., "numpy", NUMPY_SPECIAL)``
NUMPY_SPECIAL = {"erfc": erfc, "LambertW": lambertw_real, "binomial": binom}
