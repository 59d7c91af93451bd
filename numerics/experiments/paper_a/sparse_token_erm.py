"""Finite-d step 4 of Paper A's protocol: ridge ERM on pooled / vectorised / attention features.

Objective (docs/paper_a_after_training.md, conventions): (1/n) sum_i ell(w^T f_i + b; y_i)
+ (lam/2) ||w||^2, bias not penalised; ell = log(1 + e^{-y h}) (logistic) or (h - y)^2/2
(square).  Logistic: L-BFGS on (w, b) with the analytic gradient (np.logaddexp, expit),
started from the square-loss solution, gradient tolerance ``gtol``; the result records the
final gradient norm and whether it met the tolerance.  Square: a linear solve (primal or
dual form, whichever is smaller).

This module deliberately imports nothing from ``derivations``: it is the experiment.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from numerics.experiments.paper_a.models import Loss, Model, loss_value
from numerics.experiments.paper_a.sparse_token import SparseTokenModel, features


@dataclass
class Fit:
    w: np.ndarray
    b: float
    converged: bool
    grad_norm: float
    iterations: int


def _square_fit(F, y, lam):
    n, p = F.shape
    Fm, ym = F.mean(axis=0), y.mean()
    Fc, yc = F - Fm, y - ym
    if lam == 0 and n <= p:
        raise ValueError("ridgeless square loss needs n > p")
    if p <= n:
        A = Fc.T @ Fc / n + lam * np.eye(p)
        w = np.linalg.solve(A, Fc.T @ yc / n)
    else:
        K = Fc @ Fc.T / n + lam * np.eye(n)
        w = Fc.T @ np.linalg.solve(K, yc) / n
    return w, ym - Fm @ w


def _logistic_obj(params, F, y, lam):
    w, b = params[:-1], params[-1]
    t = y * (F @ w + b)
    n = len(y)
    val = np.logaddexp(0.0, -t).sum() / n + 0.5 * lam * (w @ w)
    g = -y * expit(-t) / n
    grad = np.empty_like(params)
    grad[:-1] = F.T @ g + lam * w
    grad[-1] = g.sum()
    return val, grad


def fit_erm(F: np.ndarray, y: np.ndarray, lam: float, loss: Loss, *, gtol: float = 1e-9,
            max_iter: int = 20000) -> Fit:
    """Ridge ERM with unpenalised bias."""
    loss = Loss.of(loss)
    if loss.closed_form_erm:
        w, b = _square_fit(F, y, lam)
        r = F @ w + b - y
        g = np.concatenate([F.T @ r / len(y) + lam * w, [r.mean()]])
        return Fit(w, float(b), True, float(np.max(np.abs(g))), 1)
    try:
        w0, b0 = _square_fit(F, y, max(lam, 1e-3))
    except np.linalg.LinAlgError:  # pragma: no cover
        w0, b0 = np.zeros(F.shape[1]), 0.0
    x0 = np.concatenate([w0, [b0]])
    res = minimize(_logistic_obj, x0, args=(F, y, lam), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, "maxcor": 30, "gtol": gtol, "ftol": 0.0})
    gnorm = float(np.max(np.abs(res.jac)))
    return Fit(res.x[:-1], float(res.x[-1]), gnorm <= gtol * 10, gnorm, int(res.nit))


def stratified_sample(model: SparseTokenModel, rng: np.random.Generator, n: int, xi: np.ndarray):
    """(X, y) with exactly round(pi n) positives in random order."""
    k = int(round(model.pi * n))
    y = np.where(rng.permutation(n) < k, 1.0, -1.0)
    v = model.positions(rng, n) * (y > 0)[:, None]
    X = rng.standard_normal((n, model.L, model.d))
    X += model.theta * v[:, :, None] * xi[None, None, :]
    return X, y


def pooled_sample(model: SparseTokenModel, rng: np.random.Generator, n: int, xi: np.ndarray, labels: str):
    """Pooled features X^T 1_L / L drawn directly: the noise mean of L i.i.d. N(0, I_d) rows is
    N(0, I_d / L), and every positive has exactly R signal tokens."""
    if labels == "stratified":
        k = int(round(model.pi * n))
        y = np.where(rng.permutation(n) < k, 1.0, -1.0)
    else:
        y = np.where(rng.random(n) < model.pi, 1.0, -1.0)
    F = rng.standard_normal((n, model.d)) / np.sqrt(model.L)
    F += (y > 0)[:, None] * (model.theta * model.R / model.L) * xi[None, :]
    return F, y


def train_loss(F, y, w, b, loss):
    return float(np.mean(loss_value(loss, F @ w + b, y)))


@dataclass
class Step4Result:
    test_error: float
    train_loss: float
    train_error: float
    fit: Fit
    n_train: int
    n_test: int


def step4_trial(model: SparseTokenModel, kind: str, alpha1: float, lam: float, loss: Loss,
                rng: np.random.Generator, *, q: np.ndarray | None = None, beta: float = 1.0,
                xi: np.ndarray | None = None, n_test: int = 20000, gtol: float = 1e-9,
                exact_test: bool = True, labels: str = "iid", pooled_direct: bool = False) -> Step4Result:
    """One trial: draw D_1 (n = alpha1 d), fit, test on ``n_test`` fresh samples (by default
    drawn exactly in law through :func:`fresh_margins`; ``exact_test=False`` forms the full
    fresh X).  ``labels="stratified"``: D_1 has exactly round(pi n) positives (in random order);
    given its label each sample has the model's law (docs/conventions.md; the n, d -> infinity
    limits are the same, the O(n^-1/2) class-count fluctuation is removed).
    ``pooled_direct`` (pooled model only): draw X^T 1/L = theta_y (R/L) xi + (mean of the L noise
    rows) with the mean drawn as N(0, I_d / L) — the same law, L times cheaper."""
    if xi is None:
        xi = model.signal_direction(rng)
    n = int(round(alpha1 * model.d))
    if labels not in ("iid", "stratified"):
        raise ValueError(f"labels must be iid|stratified, got {labels!r}")
    kind = Model.of(kind)
    if pooled_direct and not (kind.needs_query or kind.keeps_positions):
        F, y = pooled_sample(model, rng, n, xi, labels)
    else:
        if labels == "iid":
            X, y, _ = model.sample(rng, n, xi)
        else:
            X, y = stratified_sample(model, rng, n, xi)
        F = features(kind, X, q, beta)
        del X
    fit = fit_erm(F, y, lam, loss, gtol=gtol)
    tl = train_loss(F, y, fit.w, fit.b, loss)
    te = float(np.mean(y * (F @ fit.w + fit.b) < 0))
    del F
    if exact_test:
        yt, ht = fresh_margins(kind, model, fit.w, fit.b, xi, rng, n_test, q, beta)
        wrong = int(np.sum(yt * ht < 0))
    else:
        wrong = 0
        for Xt, yt, _ in model.iter_batches(rng, n_test, xi, batch_bytes=64 * 2**20):
            Ft = features(kind, Xt, q, beta)
            wrong += int(np.sum(yt * (Ft @ fit.w + fit.b) < 0))
    return Step4Result(wrong / n_test, tl, te, fit, n, n_test)


def fresh_margins(kind: str, model: SparseTokenModel, w: np.ndarray, b: float, xi: np.ndarray,
                  rng: np.random.Generator, n: int, q: np.ndarray | None = None, beta: float = 1.0):
    """Exact-in-law draws of (y, w^T f(X) + b) on n fresh samples, without forming X.

    For fixed vectors, the token-wise projections of the noise Z (L x d, i.i.d. N(0,1)) on
    (q, w) are i.i.d. over tokens with the 2x2 Gram covariance of (q, w); so
    X w = theta_y <xi, w> v + Z w and X q = theta_y <xi, q> v + Z q can be sampled in O(L) per
    sample.  Pooled: w^T X^T 1/L; vectorised (w of shape L d): sum_l <W_l, X_l>; attention:
    (Xw)^T softmax(beta X q).  Elementary Gaussian facts, no theory of step 4."""
    L = model.L
    y = np.where(rng.random(n) < model.pi, 1.0, -1.0)
    v = model.positions(rng, n) * (y > 0)[:, None]
    th = model.theta * v  # (n, L): theta_y v
    kind = Model.of(kind)
    if kind.keeps_positions:
        W = w.reshape(L, -1)
        mean = th @ (W @ xi)
        return y, mean + np.linalg.norm(W) * rng.standard_normal(n) + b
    if not kind.needs_query:  # pooled
        g = th * (xi @ w) + np.linalg.norm(w) * rng.standard_normal((n, L))
        return y, g.mean(axis=1) + b
    G = np.array([[q @ q, q @ w], [q @ w, w @ w]])
    C = np.linalg.cholesky(G + 1e-300 * np.eye(2)) if G[0, 0] > 0 else None
    e = rng.standard_normal((n, L, 2))
    if C is None:
        zq = np.zeros((n, L))
        zw = np.linalg.norm(w) * e[:, :, 1]
    else:
        zz = e @ C.T
        zq, zw = zz[:, :, 0], zz[:, :, 1]
    xq = th * (xi @ q) + zq
    xw = th * (xi @ w) + zw
    s = np.exp(beta * xq - np.max(beta * xq, axis=1, keepdims=True))
    s /= s.sum(axis=1, keepdims=True)
    return y, np.einsum("nl,nl->n", s, xw) + b


def query_with_alignment(xi: np.ndarray, q_norm: float, s_q: float, rng: np.random.Generator) -> np.ndarray:
    """A query q with ||q|| = q_norm and cos(q, xi) = s_q (random orthogonal part)."""
    u = rng.standard_normal(xi.shape)
    u -= (u @ xi) * xi
    u /= np.linalg.norm(u)
    return q_norm * (s_q * xi + np.sqrt(max(0.0, 1 - s_q**2)) * u)
