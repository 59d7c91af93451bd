"""Finite-d empirical risk minimisation of tied rank-1 dot-product attention on two tokens
(Paper C's model; numpy and scipy only, independent of the derivation).

Data: x_l = p_l + z_l (l = 1, 2), p_1 = -p_2 = (1, ..., 1)/sqrt(d), z_l ~ N(0, sigma^2 I_d);
teacher y = T z, T = (1 - omega) softmax(h* h*^T) + omega A, h*_l = z_l . Q*/sqrt(d),
Q* ~ N(0, I_d), A = [[0.6, 0.4], [0.4, 0.6]].  Student yhat = S x, S = softmax(h h^T),
h_l = x_l . Q/sqrt(d).  Risk: sum_i |yhat_i - y_i|^2/(2d) + (lambda/2)|Q|^2, minimised by
L-BFGS with the exact gradient (backpropagated by hand below) from

* the semantic initialisation Q = Q*, and
* the positional initialisation Q = c 1 (c = 0.25: m = c, no overlap with Q*).

Reported per run: the test error mean |yhat - y|^2 / d on fresh samples, m = 1.Q/d,
theta = sigma^2 Q*.Q/d, q = sigma^2 |Q|^2/d, the training risk per sample (without the
penalty), the minimised objective per dimension (with the penalty; the theory's -Phi) and the linear positional baseline yhat = B x fitted in closed form (least squares
over the n d token columns) with its test error.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from numerics.papers.paper_c.vocabulary import BRANCHES

A_MIX = np.array([[0.6, 0.4], [0.4, 0.6]])
POSITIONAL_C = 0.25


def _softmax_rows(a):
    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def sample(rng, n, d, sigma, omega, Qs):
    z = sigma * rng.standard_normal((n, 2, d))
    p = np.stack([np.ones(d), -np.ones(d)]) / np.sqrt(d)
    x = z + p
    hs = z @ Qs / np.sqrt(d)
    T = (1 - omega) * _softmax_rows(hs[:, :, None] * hs[:, None, :]) + omega * A_MIX
    y = T @ z
    return x, y


def predict(Q, x):
    d = x.shape[-1]
    h = x @ Q / np.sqrt(d)
    S = _softmax_rows(h[:, :, None] * h[:, None, :])
    return S @ x, S, h


def token_stats(x, y):
    """The data enter the risk only through the per-sample 2 x 2 matrices x x^T/d and
    y x^T/d and the constant sum |y|^2/d (yhat = S x is linear in x): computed once per data
    set, they make a risk evaluation two passes over x (h = x Q and the gradient) instead of
    six."""
    d = x.shape[-1]
    xt = np.swapaxes(x, 1, 2)
    return x @ xt / d, y @ xt / d, float(np.sum(y * y)) / d


def risk_and_grad(Q, x, y, lam, stats=None):
    """The risk sum_i |S_i x_i - y_i|^2/(2d) + (lambda/2)|Q|^2 and its gradient in Q, through
    ``stats`` = :func:`token_stats` (computed here if not given)."""
    d = x.shape[-1]
    XX, YX, yy = token_stats(x, y) if stats is None else stats
    flat = x.reshape(-1, d)  # (2n, d): one matrix-vector product each way
    h = (flat @ Q).reshape(-1, 2) / np.sqrt(d)
    S = _softmax_rows(h[:, :, None] * h[:, None, :])
    SXX = S @ XX
    # sum_i |R_i|^2/d = sum_i tr(S XX S^T) - 2 tr(S YX^T) + |y_i|^2/d, with R = S x - y
    loss = 0.5 * (np.sum(SXX * S) - 2 * np.sum(S * YX) + yy) + 0.5 * lam * Q @ Q
    G = SXX - YX  # dL/dS = R x^T / d (n, 2, 2)
    dA = S * (G - np.sum(S * G, axis=-1, keepdims=True))  # through the row softmax
    dh = dA @ h[:, :, None] + np.swapaxes(dA, 1, 2) @ h[:, :, None]  # a_{ll'} = h_l h_l'
    grad = dh[:, :, 0].reshape(-1) @ flat / np.sqrt(d) + lam * Q
    return loss, grad




def run(rng, d, alpha, *, sigma=0.5, omega=0.3, lam=0.01, n_test=4000, tol=1e-10, branches=BRANCHES,
        linear=True, teacher="gaussian"):
    """One instance: the initialisations ``branches`` (default both) and, if ``linear``, the
    linear baseline, all on the same data.  ``teacher``: "gaussian" draws Q* ~ N(0, I_d) (the
    model); "sphere" rescales that draw to |Q*|^2 = d exactly, which has the same d -> inf limit
    (|Q*|^2/d -> 1) and removes the O(d^-1/2) instance-to-instance fluctuation of |Q*|^2/d."""
    if teacher not in ("gaussian", "sphere"):
        raise ValueError(f"teacher must be 'gaussian' or 'sphere', got {teacher!r}")
    # the products of one risk evaluation are matrix-vector sized: a second BLAS thread costs
    # more than it brings (measured: 2-4x slower minimisations at d = 400 with two threads)
    with threadpool_limits(1):
        return _run(rng, d, alpha, sigma, omega, lam, n_test, tol, branches, linear, teacher)


def _run(rng, d, alpha, sigma, omega, lam, n_test, tol, branches, linear, teacher):
    n = max(1, int(round(alpha * d)))
    Qs = rng.standard_normal(d)
    if teacher == "sphere":
        Qs *= np.sqrt(d) / np.linalg.norm(Qs)
    x, y = sample(rng, n, d, sigma, omega, Qs)
    xt, yt = sample(rng, n_test, d, sigma, omega, Qs)
    out = {}
    starts = {"semantic": Qs.copy(), "positional": POSITIONAL_C * np.ones(d)}
    stats = token_stats(x, y) if branches else None
    for name in branches:
        Q0 = starts[name]
        res = minimize(risk_and_grad, Q0, args=(x, y, lam, stats), jac=True, method="L-BFGS-B",
                       options={"maxiter": 5000, "gtol": tol, "ftol": 1e-15})
        Q = res.x
        yhat, _, _ = predict(Q, xt)
        out[name] = {
            "mse": float(np.sum((yhat - yt) ** 2) / (n_test * d)),
            "m": float(np.sum(Q) / d), "theta": float(sigma**2 * Qs @ Q / d), "q": float(sigma**2 * Q @ Q / d),
            "train": float((res.fun - 0.5 * lam * Q @ Q) / n), "objective": float(res.fun / d),
            "converged": bool(res.success),
        }
    if not linear:
        return out
    # linear baseline: B minimises sum |B x_i - y_i|^2 over the n d columns (x_i as 2 x d)
    X = np.concatenate(list(x), axis=1)  # (2, n d)
    Y = np.concatenate(list(y), axis=1)
    B = np.linalg.solve(X @ X.T, X @ Y.T).T
    out["linear"] = {"mse": float(np.sum((B @ xt - yt) ** 2) / (n_test * d))}
    return out
