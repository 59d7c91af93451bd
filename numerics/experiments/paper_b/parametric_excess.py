"""Learnt A: the parametric excess of Paper B's ERM over the oracle (A = A*), predicted from the
estimator's own tangent space (docs/paper_b.md "Parametric excess").

``tangent_directions`` spans the directions in which the estimator can move A on the sphere
||A||_F = ||A*||_F; ``parametric_prediction`` adds them to the oracle's linear least squares
(the first-order expansion, as in :func:`numerics.experiments.paper_b.rates.first_order_prediction`)
and measures V_full - V_oracle on pooled populations.  Nothing here comes from a derivation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from numerics.core.seeding import children
from numerics.experiments.paper_b.interacting_particles import InteractingParticleModel, pair_values
from numerics.experiments.paper_b.pairwise_erm import PairwiseERM
from numerics.experiments.paper_b.rates import RateSetup, make_problem


def tangent_directions(A) -> np.ndarray:
    """Orthonormal (Frobenius) basis E_1..E_p of the directions in which the estimator can move
    A away from A*: the tangent space of the rank-r matrices at A*, T = {Qu X + Y Qv^T}
    (Qu, Qv orthonormal bases of span U, span V), minus the direction of A* itself (the sphere
    ||A||_F = a_bar of the estimator removes the scale, which phi absorbs).
    p = r (2d - r) - 1; shape (p, d, d).  Built from the 2 r d spanning matrices
    Qu[:, a] e_j^T and e_i Qv[:, b]^T (SVD of a (2rd) x d^2 matrix, not a d^2 x d^2 one)."""
    U, V = np.asarray(A.U, dtype=float), np.asarray(A.V, dtype=float)
    d = U.shape[0]
    Qu, Qv = np.linalg.qr(U)[0], np.linalg.qr(V)[0]
    I = np.eye(d)
    span = np.concatenate([np.einsum("ia,jk->ajik", Qu, I).reshape(-1, d * d),
                           np.einsum("ik,jb->bkij", I, Qv).reshape(-1, d * d)])
    a = (U @ V.T).ravel()
    a = a / np.linalg.norm(a)
    span = span - np.outer(span @ a, a)
    _, sv, vt = np.linalg.svd(span, full_matrices=False)
    return vt[sv > 1e-8 * max(sv[0], 1.0)].reshape(-1, d, d)


def _parametric_features(dphi, A, E: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """f_k(x, y) = phi*'(x^T A* y) x^T E_k y, the derivative of g = phi(x^T A y) along E_k;
    x, y of shape (n, d), result (n, p)."""
    return dphi(A.form(x, y))[:, None] * np.einsum("na,kab,nb->nk", x, E, y, optimize=True)


def _pair_parametric_features(dphi, A, E: np.ndarray, X: np.ndarray) -> np.ndarray:
    """f_k(X_i, X_j) for every token pair of every sample, shape (M, N, N, p), by batched
    matmuls (X_i^T E_k X_j for all i, j, k at once)."""
    M, N, d = X.shape
    p = len(E)
    XE = (X.reshape(M * N, d) @ E.transpose(1, 0, 2).reshape(d, p * d)).reshape(M, N * p, d)
    Q = np.matmul(XE, np.swapaxes(X, 1, 2)).reshape(M, N, p, N)  # X_i^T E_k X_j
    return np.swapaxes(Q, 2, 3) * dphi(pair_values(X, A))[..., None]


def _averaged_parametric_features(dphi, A, E: np.ndarray, X: np.ndarray) -> np.ndarray:
    """R_f[X]_i = (1/(N-1)) sum_{j != i} f_k(X_i, X_j), shape (M N, p)."""
    N = X.shape[1]
    F = _pair_parametric_features(dphi, A, E, X)
    F[:, np.arange(N), np.arange(N)] = 0.0
    return F.sum(axis=2).reshape(-1, len(E)) / (N - 1)


@dataclass(frozen=True)
class ParametricPrediction:
    """First-order (in 1/M) error of the learnt-A ERM: E err = bias(K) + sigma^2 V_full / (M N),
    V_full = tr(G Sigma^{-1}) over the joint features (K + s spline functions and the p
    tangent directions of A); ``excess`` = V_full - V_oracle, the parametric part (for
    features with E[f(X_1, X_2) | X_1] = 0, Sigma = G / (N - 1) and each contributes N - 1),
    averaged over the populations; ``excess_pooled`` the same trace from the Gram sums of all
    populations together (a finite-population bias O(1/M_pop) is smaller by the number of
    populations there, so the two differ by about (1 - 1/halves) times the bias of one)."""

    p: int
    V_oracle: list
    V_full: list
    excess: list
    excess_se: list
    excess_pooled: list = field(default_factory=list)  # from the pooled populations' Gram sums


def parametric_prediction(setup: RateSetup, seed_seq: np.random.SeedSequence, M_pop: int,
                          halves: int = 2, problem: np.random.SeedSequence | None = None,
                          chunk: int = 1000) -> ParametricPrediction:
    """V_oracle and V_full = tr(G Sigma^{-1}) for every K of the setup, on ``halves``
    noise-free populations of ``M_pop`` samples (a stream of ``seed_seq`` independent of the
    experiment's seeds, like :func:`first_order_prediction`); Sigma from the averaged rows,
    G from the same population's token pairs (so its error is in the spread over halves).
    This is the classical asymptotic excess risk of least squares in a (locally) parametric
    model, here the joint model (spline coefficients, A on the sphere) linearised at
    (phi_K, A*); the A-features use phi*' (equal to phi_K' up to the approximation error, a
    higher-order effect)."""
    problem_ss, *_ = children(seed_seq, 3 + setup.seeds)
    pop_ss = np.random.SeedSequence(seed_seq.entropy, spawn_key=seed_seq.spawn_key + (10**6 + 1,))
    model = make_problem(setup, problem_ss if problem is None else problem)
    A, N = model.A, setup.N
    E = tangent_directions(A)
    dphi = model.phi.derivative()
    ests = [PairwiseERM(setup.P, K, setup.r) for K in setup.pieces()]
    quiet = InteractingParticleModel(model.law, A, model.phi, 0.0, N)
    off = ~np.eye(N, dtype=bool)
    V_or, V_full = [], []
    dims = [e.basis.n + len(E) for e in ests]
    Sigma_all = [np.zeros((n, n)) for n in dims]
    G_all = [np.zeros((n, n)) for n in dims]

    def excess_of(S, Gk, n):
        return (float(np.trace(np.linalg.solve(S, Gk))), float(np.trace(np.linalg.solve(S[:n, :n], Gk[:n, :n]))))

    for h_ss in children(pop_ss, halves):
        X, _ = quiet.simulate(np.random.default_rng(h_ss), M_pop)
        Sigma = [np.zeros((n, n)) for n in dims]
        G = [np.zeros((n, n)) for n in dims]
        for a in range(0, M_pop, chunk):
            Xc = X[a:a + chunk]
            Fp = _pair_parametric_features(dphi, A, E, Xc)  # (m, N, N, p)
            F_off = Fp[:, off]  # (m, N(N-1), p), rows ~ rho
            RA = F_off.reshape(len(Xc), N, N - 1, -1).sum(axis=2).reshape(-1, len(E)) / (N - 1)
            F_off = F_off.reshape(-1, len(E))
            Upair = pair_values(Xc, A)
            u_off = Upair[:, off].ravel()
            for k, est in enumerate(ests):
                D = np.hstack([est.basis.averaged_design(Upair), RA])
                Dp = np.hstack([est.basis.design(u_off), F_off])
                Sigma[k] += D.T @ D
                G[k] += Dp.T @ Dp
        vo, vf = [], []
        for k, est in enumerate(ests):
            full, orc = excess_of(Sigma[k] / (M_pop * N), G[k] / (M_pop * N * (N - 1)), est.basis.n)
            vf.append(full)
            vo.append(orc)
            Sigma_all[k] += Sigma[k]
            G_all[k] += G[k]
        V_or.append(vo)
        V_full.append(vf)
    V_or, V_full = np.asarray(V_or), np.asarray(V_full)
    exc = V_full - V_or
    se = exc.std(axis=0, ddof=1) / np.sqrt(halves) if halves > 1 else np.zeros(exc.shape[1])
    m_all = M_pop * halves
    pooled = [float(np.subtract(*excess_of(Sigma_all[k] / (m_all * N), G_all[k] / (m_all * N * (N - 1)),
                                           est.basis.n))) for k, est in enumerate(ests)]
    return ParametricPrediction(len(E), list(V_or.mean(0)), list(V_full.mean(0)), list(exc.mean(0)), list(se),
                                pooled)
