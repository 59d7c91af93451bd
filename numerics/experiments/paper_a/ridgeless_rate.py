"""Finite-d ridgeless least squares on pooled / vectorised features: the rate of the test error.

The experiment of ``A.cor2.ridgeless_rate``.  For each alpha_1 in a grid and each trial: draw
n = alpha_1 d samples of the sparse-token model, fit ordinary least squares with an
(unpenalised) intercept on the features (numpy), and compute the trained classifier's exact
test error under the model's law (a Gaussian tail: the features are Gaussian given the label
and the signal positions, :func:`conditional_test_error`).  A weighted least-squares fit of the
trial means e(alpha_1) = E + C / alpha_1 + D / alpha_1^2 gives the limit E and the rate
coefficient C with their standard errors from the trial-to-trial spread.

Nothing here comes from the step-4 derivation: least squares, the Gaussian tail of a linear
classifier, and a polynomial fit in 1/alpha_1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.special import ndtr

from numerics.experiments.paper_a.models import Loss, Model
from numerics.experiments.paper_a.sparse_token import SparseTokenModel, vectorised_features
from numerics.experiments.paper_a.sparse_token_erm import fit_erm, pooled_sample


def conditional_test_error(kind: str, model: SparseTokenModel, w: np.ndarray, b: float, xi: np.ndarray) -> float:
    """P(y (w^T f(X) + b) < 0) for a fresh sample, exactly (uniform positions).

    Given y and the signal positions v, w^T f(X) is Gaussian: pooled f = X^T 1/L has mean
    theta_y (R/L) <w, xi> and variance ||w||^2 / L; vectorised (w = vec W, W of shape L x d)
    has mean theta_y sum_{l in v} <W_l, xi> and variance ||W||^2, averaged over the
    C(L, R) equally likely position sets."""
    L, R, pi, th = model.L, model.R, model.pi, model.theta
    kind = Model.of(kind)
    if kind.needs_query:
        raise ValueError(f"kind must be pool|vec, got {kind}")
    if not kind.keeps_positions:  # pooled
        sd = np.linalg.norm(w) / math.sqrt(L)
        means = np.array([th * (R / L) * (w @ xi)])
    else:
        W = w.reshape(L, -1)
        sd = np.linalg.norm(W)
        proj = W @ xi
        sets = list(combinations(range(L), R))
        if len(sets) > 100_000:
            raise ValueError("too many position sets for the exact average")
        means = th * np.array([proj[list(s)].sum() for s in sets])
    pos = np.mean(ndtr(-(means + b) / sd))  # y = +1 classified negative
    neg = ndtr(b / sd)  # y = -1: mean 0, classified positive
    return float(pi * pos + (1 - pi) * neg)


def ridgeless_trial(model: SparseTokenModel, kind: str, alpha1: float, rng: np.random.Generator,
                    xi: np.ndarray) -> float:
    """One ridgeless least-squares fit at n = alpha_1 d; its exact test error."""
    n = int(round(alpha1 * model.d))
    if not Model.of(kind).keeps_positions:  # pooled
        F, y = pooled_sample(model, rng, n, xi, "iid")
    else:
        X, y, _ = model.sample(rng, n, xi)
        F = vectorised_features(X)
        del X
    fit = fit_erm(F, y, 0.0, Loss.SQUARE)
    return conditional_test_error(kind, model, fit.w, fit.b, xi)


@dataclass(frozen=True)
class RateFit:
    E: float
    E_se: float
    C: float
    C_se: float
    D: float
    chi2: float
    dof: int
    points: tuple  # (alpha_1, mean, se, trials)


def fit_rate(alphas, means, ses) -> RateFit:
    """Weighted least squares of mean = E + C / alpha + D / alpha^2."""
    a, m, s = (np.asarray(v, dtype=float) for v in (alphas, means, ses))
    X = np.stack([np.ones_like(a), 1 / a, 1 / a**2], axis=1) / s[:, None]
    coef, *_ = np.linalg.lstsq(X, m / s, rcond=None)
    cov = np.linalg.inv(X.T @ X)
    chi2 = float(np.sum((X @ coef - m / s) ** 2))
    return RateFit(float(coef[0]), float(math.sqrt(cov[0, 0])), float(coef[1]), float(math.sqrt(cov[1, 1])),
                   float(coef[2]), chi2, len(a) - 3,
                   tuple(zip(a.tolist(), m.tolist(), s.tolist())))


def ridgeless_rate(model: SparseTokenModel, kind: str, alphas, trials: int, rng: np.random.Generator) -> RateFit:
    """Trial means of the exact test error over the alpha_1 grid (a fresh xi per trial), and
    their fit in 1/alpha_1."""
    means, ses = [], []
    for al in alphas:
        vals = []
        for _ in range(trials):
            xi = model.signal_direction(rng)
            vals.append(ridgeless_trial(model, kind, al, rng, xi))
        v = np.array(vals)
        means.append(v.mean())
        ses.append(v.std(ddof=1) / math.sqrt(len(v)))
    return fit_rate(alphas, means, ses)
