"""Paper B's parameters and names, declared once.

The interacting-particle model (N tokens of dimension d, M samples, the rank r of A*, the noise
sigma, the degree P and pieces of phi*'s B-spline link), the pairwise ERM (the degree s and the
K pieces of the estimator's spline, its ridge, the rank and norm bound of the fitted A, the
L-BFGS restarts) and the token laws a user chooses from.  The truth's and the estimator's degree
and rank are different parameters with different names.
"""
from __future__ import annotations

from numerics.core.params import Param

# --- the interacting-particle model -----------------------------------------------------------
N_TOKENS = Param("N", int, 2, None, doc="tokens per sample, >= 2")
D_TOKEN = Param("d", int, 1, None, doc="token dimension, >= 1")
M_SAMPLES = Param("M", int, 1, None, doc="number of samples, >= 1")
TRUE_RANK = Param("r", int, 1, None, doc="rank of A*, 1 <= r <= d")
SIGMA = Param("sigma", float, 0.0, None, doc="noise standard deviation, >= 0")
TRUE_DEGREE = Param("P", int, 0, 20, doc="B-spline degree, 0 <= P <= 20")
TRUE_PIECES = Param("pieces", int, 1, 10_000, doc="number of equal B-spline pieces, >= 1")
SHARED = Param("c", float, 0.0, None, doc="weight of the shared component, c >= 0")
HALF_WIDTH = Param("half_width", float, 0.0, None, lo_open=True, doc="cube half-width, > 0")

#: the token laws: i.i.d. uniform on a cube, i.i.d. Gaussian, a shared component plus noise
#: (conditionally i.i.d.), and a uniformly random permutation of a fixed set of values
TOKEN_LAWS = ("uniform", "gaussian", "conditional", "permutation")

# --- the pairwise ERM -------------------------------------------------------------------------
FIT_DEGREE = Param("s", int, 0, 20, doc="spline degree of the estimator, 0 <= s <= 20")
FIT_PIECES = Param("K", int, 1, 10_000, doc="number of equal spline pieces, >= 1")
RIDGE = Param("ridge", float, 0.0, None, doc="ridge mu >= 0 on the spline coefficients")
FIT_RANK = Param("r", int, 1, None, doc="rank of A, >= 1")
RESTARTS = Param("restarts", int, 1, 1000, doc="number of L-BFGS restarts, >= 1")
A_BAR = Param("a_bar", float, 0.0, None, lo_open=True, doc="Frobenius norm a_bar > 0 of the fitted A")

# --- the rate experiments ---------------------------------------------------------------------
SEEDS = Param("seeds", int, 2, 100_000, doc="number of seeds, >= 2")
