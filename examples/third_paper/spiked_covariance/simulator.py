"""The finite-size experiment: sample covariances of a spiked Gaussian design.

numpy only; nothing here imports the derivation or its compiled theory, so a wrong derivation
cannot make the experiment agree with it.

Model.  n samples x_i ~ N(0, Sigma) in R^p with Sigma = I + ell v v^T (|v| = 1), gamma = p/n.
The sample covariance S = X^T X / n has its top eigenvalue lambda_1 and top eigenvector u_1; we
record lambda_1 and the squared overlap <u_1, v>^2 of each trial.  The Gaussian law is
rotation invariant, so v = e_1 loses no generality: x = z + (sqrt(1 + ell) - 1) z_1 e_1 with
z ~ N(0, I_p).
"""
from __future__ import annotations

import numpy as np


def sizes(d: int, gamma: float) -> tuple[int, int]:
    """(p, n) with min(p, n) = d and p/n = gamma (rounded): the cost of a trial is that of an
    eigendecomposition of a d x d matrix."""
    d = int(d)
    return (d, max(2, int(round(d / gamma)))) if gamma <= 1 else (max(2, int(round(d * gamma))), d)


def spiked_top(rng: np.random.Generator, d: int, gamma: float, ell: float, trials: int) -> dict:
    """Per trial: the top eigenvalue of S and the squared overlap of its eigenvector with the
    spike direction.  When p > n the nonzero spectrum is read from the n x n Gram matrix
    X X^T / n (same nonzero eigenvalues; u_1 = X^T a_1, normalised)."""
    p, n = sizes(d, gamma)
    top = np.empty(trials)
    overlap = np.empty(trials)
    scale = np.sqrt(1.0 + ell)
    for t in range(trials):
        X = rng.standard_normal((n, p))
        X[:, 0] *= scale
        if p <= n:
            w, V = np.linalg.eigh(X.T @ X / n)
            u = V[:, -1]
        else:
            w, A = np.linalg.eigh(X @ X.T / n)
            u = X.T @ A[:, -1]
            u /= np.linalg.norm(u)
        top[t] = w[-1]
        overlap[t] = u[0] ** 2
    return {"top": top, "overlap": overlap, "p": p, "n": n}
