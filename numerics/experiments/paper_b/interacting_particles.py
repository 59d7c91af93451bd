"""Finite-size simulator of Paper B's interacting-particle model (one attention-style layer).

A sample is N tokens X = (X_1..X_N), X_i in R^d; the M samples are i.i.d.; the output is

    Y_i = R_{g*}[X]_i + eta_i,   R_g[X]_i = (1/(N-1)) sum_{j != i} g(X_i, X_j),
    g*(x, y) = phi*(x^T A* y),    eta_i i.i.d. N(0, sigma^2).

(Paper B's model; docs/paper_b.md "Rate experiments" for the choices fixed here.)

Token laws — each has ``sample(rng, M, N, d) -> X`` of shape (M, N, d):

* ``UniformCube``   i.i.d. Uniform[-h, h]^d (h = 1 by default);
* ``Gaussian``      i.i.d. N(0, I_d / d) (``variance="dim"``, default: E|x|^2 = 1 for every d)
                    or N(0, I_d) (``variance="unit"``);
* ``Conditional``   X_j = c Z + W_j with Z shared by the N tokens of a sample and W_j i.i.d.,
                    Z, W_j ~ Uniform[-1, 1]^d (``base="uniform"``) or N(0, I_d/d)
                    (``base="gaussian"``): exchangeable and conditionally i.i.d. given Z;
* ``Permutation``   a uniformly random permutation of N fixed values (rows of ``values``):
                    finitely exchangeable but *not* conditionally i.i.d. (the counterexample
                    law of the coercivity erratum, docs/paper_b.md).

Interaction matrix A* = U V^T of rank r (``interaction_matrix``):

* ``kind="coordinate"`` (default of the rate experiments): A* = (1/r) sum_k s_k e_{i_k} e_{j_k}^T
  with distinct random rows i_k, distinct random columns j_k and random signs s_k.  Then
  |x^T A* y| <= 1 on the cube exactly, and the law of U = X_1^T A* X_2 is the same for
  every d >= r (for r = 1 it is the law of a product of two independent uniforms), which is
  what a comparison across d needs;
* ``kind="dense"``: U, V with i.i.d. N(0,1) entries, divided by s = sum_k |u_k|_1 |v_k|_1 times
  the token sup-norm squared, which bounds sup_{cube} |x^T U V^T y| (exact for r = 1).  Note:
  for large d this squeezes U into a window of width O(1/d) around 0, where a link with
  fixed knots on [-1, 1] is a single polynomial piece — see docs/paper_b.md.

Link phi*: ``bspline_link`` — a B-spline of degree P with ``pieces`` equal pieces on
[-1, 1] (uniform knots, end knots repeated), coefficients i.i.d. Uniform[-1, 1] from the
given rng, extrapolated polynomially outside [-1, 1]; or any vectorised callable.

This module imports nothing from ``derivations``: it is the experiment.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.interpolate import BSpline

from numerics.core.params import ParameterError
from numerics.papers.paper_b.vocabulary import (D_TOKEN, HALF_WIDTH, M_SAMPLES, N_TOKENS, SHARED, SIGMA, TOKEN_LAWS,
                                                TRUE_DEGREE, TRUE_PIECES, TRUE_RANK)

def _check_rank(r: int, d: int) -> int:
    r = TRUE_RANK.parse(r)
    if r > d:
        raise ParameterError(f"parameter r: must be an integer in [1, d] = [1, {d}], got {r}")
    return r


# --- token laws -------------------------------------------------------------------------
@dataclass(frozen=True)
class UniformCube:
    """i.i.d. Uniform[-h, h]^d tokens."""

    half_width: float = 1.0
    name: str = field(default="uniform", init=False)
    exchangeable: bool = field(default=True, init=False)
    conditionally_iid: bool = field(default=True, init=False)

    def __post_init__(self):
        HALF_WIDTH.parse(self.half_width)

    def sup_norm(self, d: int) -> float:
        return float(self.half_width)

    def sample(self, rng: np.random.Generator, M: int, N: int, d: int) -> np.ndarray:
        M, N, d = M_SAMPLES.parse(M), N_TOKENS.parse(N), D_TOKEN.parse(d)
        return self.draw(rng, (M, N, d))

    def draw(self, rng: np.random.Generator, shape: tuple) -> np.ndarray:
        """i.i.d. coordinates of the law in an array of ``shape`` (its last axis the dimension)."""
        return rng.uniform(-self.half_width, self.half_width, size=shape)

    #: the largest tensor rule ``quadrature`` builds (configurations)
    MAX_RULE = 2_000_000

    def quadrature(self, N: int, d: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
        """Tensor-product Gauss–Legendre rule for the law of one configuration of N i.i.d.
        tokens: (X of shape (P, N, d), weights of shape (P,) summing to 1), P = nodes^(N d).
        E F(X) = sum_p w_p F(X_p) exactly for every F that is a polynomial of degree
        <= 2 nodes - 1 in each coordinate (deterministic: no sampling error)."""
        N, d = N_TOKENS.parse(N), D_TOKEN.parse(d)
        if not (isinstance(nodes, int) and nodes >= 1):
            raise ParameterError(f"parameter nodes: must be an integer >= 1, got {nodes!r}")
        P = nodes ** (N * d)
        if P > self.MAX_RULE:
            raise ParameterError(f"parameter nodes: nodes^(N d) = {P} configurations exceeds {self.MAX_RULE}")
        z, w = np.polynomial.legendre.leggauss(nodes)
        grids = np.meshgrid(*([z] * (N * d)), indexing="ij")
        weights = np.meshgrid(*([w / 2] * (N * d)), indexing="ij")
        X = self.half_width * np.stack([g.ravel() for g in grids], axis=-1).reshape(P, N, d)
        W = np.prod(np.stack([g.ravel() for g in weights], axis=-1), axis=-1)
        return X, W


@dataclass(frozen=True)
class Gaussian:
    """i.i.d. Gaussian tokens, N(0, I_d/d) (``variance="dim"``) or N(0, I_d) (``"unit"``)."""

    variance: str = "dim"
    name: str = field(default="gaussian", init=False)
    exchangeable: bool = field(default=True, init=False)
    conditionally_iid: bool = field(default=True, init=False)

    def __post_init__(self):
        if self.variance not in ("dim", "unit"):
            raise ParameterError(f"parameter variance: must be 'dim' or 'unit', got {self.variance!r}")

    def scale(self, d: int) -> float:
        return 1.0 / np.sqrt(d) if self.variance == "dim" else 1.0

    def sup_norm(self, d: int) -> float:
        return float("inf")

    def sample(self, rng: np.random.Generator, M: int, N: int, d: int) -> np.ndarray:
        M, N, d = M_SAMPLES.parse(M), N_TOKENS.parse(N), D_TOKEN.parse(d)
        return self.draw(rng, (M, N, d))

    def draw(self, rng: np.random.Generator, shape: tuple) -> np.ndarray:
        """i.i.d. coordinates of the law in an array of ``shape`` (its last axis the dimension)."""
        return self.scale(shape[-1]) * rng.standard_normal(shape)


@dataclass(frozen=True)
class Conditional:
    """X_j = c Z + W_j, Z shared within a sample: exchangeable, conditionally i.i.d. given Z.
    Z and the W_j are drawn i.i.d. from ``base`` (an i.i.d. token law: ``UniformCube()``, U[-1, 1]^d,
    or ``Gaussian()``)."""

    c: float = 0.5
    base: "UniformCube | Gaussian" = UniformCube()
    name: str = field(default="conditional", init=False)
    exchangeable: bool = field(default=True, init=False)
    conditionally_iid: bool = field(default=True, init=False)

    def __post_init__(self):
        SHARED.parse(self.c)
        if not isinstance(self.base, (UniformCube, Gaussian)):
            raise ParameterError("parameter base: must be an i.i.d. token law (UniformCube() or Gaussian()), "
                                 f"got {self.base!r}")

    def sup_norm(self, d: int) -> float:
        return (1.0 + self.c) * self.base.sup_norm(d)

    def sample(self, rng: np.random.Generator, M: int, N: int, d: int) -> np.ndarray:
        M, N, d = M_SAMPLES.parse(M), N_TOKENS.parse(N), D_TOKEN.parse(d)
        Z = self.base.draw(rng, (M, 1, d))
        W = self.base.draw(rng, (M, N, d))
        return self.c * Z + W


@dataclass(frozen=True)
class Permutation:
    """A uniformly random permutation of N fixed values (``values`` of shape (N, d) or (N,))."""

    values: np.ndarray
    name: str = field(default="permutation", init=False)
    exchangeable: bool = field(default=True, init=False)
    conditionally_iid: bool = field(default=False, init=False)

    def __post_init__(self):
        v = np.asarray(self.values, dtype=float)
        if v.ndim == 1:
            v = v[:, None]
        if v.ndim != 2 or v.shape[0] < 2 or not np.all(np.isfinite(v)):
            raise ParameterError(
                f"parameter values: must be a finite array of shape (N, d) with N >= 2, got shape {np.shape(self.values)}"
            )
        object.__setattr__(self, "values", v)

    @classmethod
    def random(cls, rng: np.random.Generator, N: int, d: int) -> "Permutation":
        return cls(rng.uniform(-1.0, 1.0, size=(N_TOKENS.parse(N), D_TOKEN.parse(d))))

    def sup_norm(self, d: int) -> float:
        return float(np.max(np.abs(self.values)))

    def sample(self, rng: np.random.Generator, M: int, N: int, d: int) -> np.ndarray:
        M, N, d = M_SAMPLES.parse(M), N_TOKENS.parse(N), D_TOKEN.parse(d)
        if (N, d) != self.values.shape:
            raise ParameterError(
                f"parameters N, d: the permutation law holds values of shape {self.values.shape}, got N={N}, d={d}"
            )
        perm = np.argsort(rng.random((M, N)), axis=1)
        return self.values[perm]


def make_law(name: str, **kwargs):
    """A token law by name: uniform | gaussian | conditional | permutation."""
    table = dict(zip(TOKEN_LAWS, (UniformCube, Gaussian, Conditional, Permutation)))
    if name not in table:
        raise ParameterError(f"parameter law: must be one of {', '.join(TOKEN_LAWS)}, got {name!r}")
    return table[name](**kwargs)


# --- interaction matrix and link --------------------------------------------------------
@dataclass(frozen=True)
class LowRank:
    """A = U V^T with U, V of shape (d, r)."""

    U: np.ndarray
    V: np.ndarray

    @property
    def A(self) -> np.ndarray:
        return self.U @ self.V.T

    @property
    def d(self) -> int:
        return self.U.shape[0]

    @property
    def r(self) -> int:
        return self.U.shape[1]

    def form(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """x_n^T A y_n for paired rows x, y of shape (..., d), computed as (x U)·(y V)."""
        return np.sum((x @ self.U) * (y @ self.V), axis=-1)


def interaction_matrix(rng: np.random.Generator, d: int, r: int, kind: str = "coordinate",
                       token_sup: float = 1.0) -> LowRank:
    """A* = U V^T of rank r with sup over tokens in [-token_sup, token_sup]^d of
    |x^T A* y| <= 1 (see the module docstring for the two kinds)."""
    d = D_TOKEN.parse(d)
    r = _check_rank(r, d)
    if not (token_sup > 0 and np.isfinite(token_sup)):
        raise ParameterError(f"parameter token_sup: must be a real number in (0, inf), got {token_sup!r}")
    if kind == "coordinate":
        rows = rng.choice(d, size=r, replace=False)
        cols = rng.choice(d, size=r, replace=False)
        signs = rng.choice([-1.0, 1.0], size=r)
        U = np.zeros((d, r))
        V = np.zeros((d, r))
        U[rows, np.arange(r)] = signs / r
        V[cols, np.arange(r)] = 1.0
        scale = token_sup**2
    elif kind == "dense":
        U = rng.standard_normal((d, r))
        V = rng.standard_normal((d, r))
        scale = token_sup**2 * float(np.sum(np.abs(U).sum(0) * np.abs(V).sum(0)))
    else:
        raise ParameterError(f"parameter kind: must be 'coordinate' or 'dense', got {kind!r}")
    s = np.sqrt(scale)
    return LowRank(U / s, V / s)


def uniform_knots(degree: int, pieces: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """Open uniform knot vector: ``pieces`` equal pieces on [lo, hi], end knots repeated
    degree+1 times; degree + pieces basis functions."""
    degree, pieces = TRUE_DEGREE.parse(degree), TRUE_PIECES.parse(pieces)
    inner = np.linspace(lo, hi, pieces + 1)
    return np.concatenate([np.full(degree, lo), inner, np.full(degree, hi)])


def bspline_link(rng: np.random.Generator, degree: int, pieces: int = 4, coef_bound: float = 1.0,
                 lo: float = -1.0, hi: float = 1.0) -> BSpline:
    """phi*: a B-spline of degree P with ``pieces`` equal pieces on [lo, hi] and coefficients
    i.i.d. Uniform[-coef_bound, coef_bound] (so |phi*| <= coef_bound on [lo, hi])."""
    t = uniform_knots(degree, pieces, lo, hi)
    coef = rng.uniform(-coef_bound, coef_bound, size=len(t) - degree - 1)
    return BSpline(t, coef, degree, extrapolate=True)


# --- the forward operator ---------------------------------------------------------------
def pair_values(X: np.ndarray, A) -> np.ndarray:
    """U[m, i, j] = X_i^T A X_j for every sample (batched matmul), shape (M, N, N).
    ``A`` is a (d, d) array or a :class:`LowRank` (then computed as (X U)(X V)^T)."""
    if isinstance(A, LowRank):
        return np.matmul(X @ A.U, np.swapaxes(X @ A.V, 1, 2))
    return np.matmul(X @ A, np.swapaxes(X, 1, 2))


def average_off_diagonal(G: np.ndarray) -> np.ndarray:
    """(1/(N-1)) sum_{j != i} G[m, i, j], shape (M, N) (the diagonal is removed)."""
    N = G.shape[-1]
    N_TOKENS.parse(N)
    diag = np.diagonal(G, axis1=-2, axis2=-1)
    return (G.sum(axis=-1) - diag) / (N - 1)


def forward(g: Callable, X: np.ndarray) -> np.ndarray:
    """R_g[X]_i = (1/(N-1)) sum_{j != i} g(X_i, X_j) for a vectorised g(x, y) that maps
    arrays of shape (..., d) to (...); shape (M, N)."""
    X = np.asarray(X, dtype=float)
    G = g(X[:, :, None, :], X[:, None, :, :])
    return average_off_diagonal(np.asarray(G, dtype=float))


def forward_link(phi: Callable, A, X: np.ndarray) -> np.ndarray:
    """R_g[X] for g(x, y) = phi(x^T A y), through one batched X A X^T."""
    return average_off_diagonal(phi(pair_values(X, A)))


def gaussian_log_likelihood(Y: np.ndarray, mean: np.ndarray, sigma: float) -> np.ndarray:
    """log density of the outputs Y (M, N) under the model's noise, Y_i ~ N(mean_i, sigma^2)
    independently over tokens: one value per sample, shape (M,)."""
    sigma = SIGMA.parse(sigma)
    if sigma <= 0:
        raise ParameterError(f"parameter sigma: must be > 0 for a likelihood, got {sigma}")
    r = np.asarray(Y, dtype=float) - np.asarray(mean, dtype=float)
    return -np.sum(r**2, axis=-1) / (2 * sigma**2) - 0.5 * r.shape[-1] * np.log(2 * np.pi * sigma**2)


# --- the model ----------------------------------------------------------------------------
@dataclass
class InteractingParticleModel:
    """Y = R_{g*}[X] + eta with g*(x, y) = phi(x^T A y)."""

    law: object
    A: LowRank
    phi: Callable
    sigma: float
    N: int

    def __post_init__(self):
        self.N = N_TOKENS.parse(self.N)
        self.sigma = SIGMA.parse(self.sigma)

    @property
    def d(self) -> int:
        return self.A.d

    def g_star(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u = np.einsum("...i,ij,...j->...", x, self.A.A, y)
        return self.phi(u)

    def simulate(self, rng: np.random.Generator, M: int):
        """(X, Y): X of shape (M, N, d), Y of shape (M, N)."""
        X = self.law.sample(rng, M, self.N, self.d)
        Y = forward_link(self.phi, self.A, X)
        if self.sigma > 0:
            Y = Y + self.sigma * rng.standard_normal(Y.shape)
        return X, Y

    def sample_pairs(self, rng: np.random.Generator, n: int):
        """n draws from rho = (1/(N(N-1))) sum_{i != j} Law(X_i, X_j): two arrays (n, d)."""
        X = self.law.sample(rng, n, self.N, self.d)
        i = rng.integers(0, self.N, size=n)
        j = (i + rng.integers(1, self.N, size=n)) % self.N
        idx = np.arange(n)
        return X[idx, i], X[idx, j]


def simulate(rng: np.random.Generator, M: int, *, law, N: int, A: LowRank, phi: Callable,
             sigma: float):
    """Functional form of :meth:`InteractingParticleModel.simulate`."""
    return InteractingParticleModel(law, A, phi, sigma, N).simulate(rng, M)
