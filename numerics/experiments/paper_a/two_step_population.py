"""The d -> inf limit of steps 1-3 of Paper A's protocol, computed sample by sample (the
experiment of A.cor1.alignment_rate).

An independent computation: it uses only the model's ingredients (the label law, the signal
positions ``SparseTokenModel.positions``, Gaussian noise, the loss derivative of the step 1-3
simulator) and the protocol, and never imports ``derivations`` or ``numerics.theory``.  It
averages over Monte Carlo draws of one D0 sample where the derivation uses Wick calculus and
closed-form algebra.

The d -> inf reduction, read off the protocol (docs/conventions.md):

* step 1: w^(1) = (eta_w / n0) sum_j g_j X_j^T 1 / L with g = -l'(0; y).  By the law of large
  numbers its xi-component is omega = eta_w E[g theta_y 1^T v] / L; the noise part
  (eta_w / (n0 L)) sum_j g_j Z_j^T 1 is a sum of n0 independent N(0, g_j^2 L I_d) vectors, of
  squared norm nu^2 = eta_w^2 E[g^2] L d / (n0 L^2); b^(1) = eta_b E[g];
* one D0 sample X_i = theta_y v xi^T + Z_i: X_i w^(1) = omega (theta_y v + a) + nu e + (own
  term), with a = Z_i xi and e = Z_i w_n / nu independent N(0, I_L) (w_n without sample i is
  independent of Z_i), and the own term X_i (eta_w g_i / (n0 L)) X_i^T 1 = (eta_w g_i d /
  (n0 L)) 1 + O(d^-1/2) because Z_i Z_i^T = d I_L + O(d^1/2);
* step 3: q^(2) = -(eta_q beta / (n0 L)) sum_i h_i X_i^T P u_i, P = I - 1 1^T / L,
  u_i = X_i w^(1), h_i = l'(1^T u_i / L + b^(1); y_i).  Its xi- and w_n-components are sample
  means of h (theta_y v + a)^T P u and h e^T P u; the rest of X_i^T P u_i (the d - 2 other
  directions of Z_i, independent of a, e) is an N(0, |P u_i|^2 I) vector, so the remainder of
  |q^(2)|^2 is (d / n0^2) sum_i h_i^2 |P u_i|^2.  The common prefactor eta_q beta / L cancels
  in the cosine.

The Monte Carlo draws are symmetrised over the reflections of a and e that preserve their law
(e -> -e, and for a and e the reflection of the part orthogonal to 1, which leaves 1^T a, 1^T e
and hence y_hat unchanged): every average is then an even function of nu, so with common
random numbers the cosine is an analytic function of 1/alpha0 and Richardson extrapolation in
1/alpha0 works on it.  Label classes are sampled separately and weighted exactly (pi, 1 - pi).
"""
from __future__ import annotations

import numpy as np

from numerics.core.seeding import children
from numerics.experiments.paper_a.sparse_token import SparseTokenModel
from numerics.experiments.paper_a.models import Loss, loss_derivative

LABELS = (1.0, -1.0)


def _reflect(x: np.ndarray) -> np.ndarray:
    """Reflect the part of each row orthogonal to the all-ones vector."""
    return 2 * x.mean(axis=1, keepdims=True) - x


def _symmetrised(rng: np.random.Generator, L: int, n: int):
    """(a, e) of shape (8 n, L): n Gaussian pairs and their 8 images under the reflections."""
    a = rng.standard_normal((n, L))
    e = rng.standard_normal((n, L))
    images = [(ai, ei) for ai in (a, _reflect(a)) for ei in (e, -e, _reflect(e), -_reflect(e))]
    return np.concatenate([p[0] for p in images]), np.concatenate([p[1] for p in images])


def readout(model: SparseTokenModel, loss: Loss, eta_w: float, eta_b: float) -> dict:
    """Step-1 limits: g(y), omega, alpha0 nu^2 (nu^2 = this / alpha0), b^(1)."""
    g = {y: float(-loss_derivative(loss, np.zeros(1), np.array([y]))[0]) for y in LABELS}
    weight = {1.0: model.pi, -1.0: 1 - model.pi}
    omega = eta_w * weight[1.0] * g[1.0] * model.theta * model.R / model.L  # E[g theta_y 1^T v] / L
    Eg = sum(weight[y] * g[y] for y in LABELS)
    Eg2 = sum(weight[y] * g[y] ** 2 for y in LABELS)
    return {"g": g, "weight": weight, "omega": omega, "alpha0_nu2": eta_w**2 * Eg2 / model.L, "b1": eta_b * Eg}


def moment_sums(model: SparseTokenModel, loss: Loss, alphas, *, eta_w: float, eta_b: float, n: int,
                seed: np.random.SeedSequence) -> np.ndarray:
    """Label-weighted means of h x^T P u, h e^T P u and h^2 |P u|^2 (x = theta_y v + a) over
    ``n`` symmetrised draws per class: shape (len(alphas), 3)."""
    ro = readout(model, loss, eta_w, eta_b)
    out = np.zeros((len(alphas), 3))
    for y, ss in zip(LABELS, children(seed, 2)):
        rng = np.random.default_rng(ss)
        a, e = _symmetrised(rng, model.L, n)
        v = np.tile(model.positions(rng, n), (8, 1)) if y > 0 else np.zeros_like(a)
        x = model.theta * v + a  # X_i xi
        for k, alpha0 in enumerate(alphas):
            nu = np.sqrt(ro["alpha0_nu2"] / alpha0)
            own = eta_w * ro["g"][y] / (alpha0 * model.L)  # the sample's own term, along 1
            u = ro["omega"] * x + nu * e + own
            h = loss_derivative(loss, u.mean(axis=1) + ro["b1"], np.full(len(u), y))
            pu = u - u.mean(axis=1, keepdims=True)
            m = np.array([(h * (x * pu).sum(1)).mean(), (h * (e * pu).sum(1)).mean(),
                          (h**2 * (pu * pu).sum(1)).mean()])
            out[k] += ro["weight"][y] * m
    return out


def one_minus_cosine(sums: np.ndarray, alphas) -> np.ndarray:
    """1 - |cos(q^(2), xi)| from the moment sums: |q|^2 / <q, xi>^2 = 1 + Q,
    Q = (B^2 + D / alpha0) / A^2, and 1 - (1 + Q)^(-1/2) computed without cancellation."""
    A, B, D = sums[:, 0], sums[:, 1], sums[:, 2]
    Q = (B**2 + D / np.asarray(alphas, dtype=float)) / A**2
    root = np.sqrt(1 + Q)
    return Q / (root * (1 + root))


def alignment_curves(model: SparseTokenModel, loss: Loss, alphas, *, eta_w: float, eta_b: float,
                     n: int, batches: int, seed: np.random.SeedSequence) -> dict:
    """1 - |cos(q^(2), xi)| and 1 - cos(w^(1), xi) in the d -> inf limit at each alpha0, with
    delete-one-batch jackknife replicates of the former (``batches`` independent batches of
    ``n`` draws per class, common to every alpha0)."""
    per = np.array([moment_sums(model, loss, alphas, eta_w=eta_w, eta_b=eta_b, n=n, seed=ss)
                    for ss in children(seed, batches)])
    total = per.mean(axis=0)
    jack = [(per.sum(axis=0) - per[b]) / (batches - 1) for b in range(batches)]
    ro = readout(model, loss, eta_w, eta_b)
    ratio = ro["alpha0_nu2"] / (ro["omega"] ** 2 * np.asarray(alphas, dtype=float))  # nu^2 / omega^2
    root = np.sqrt(1 + ratio)
    return {
        "alphas": list(alphas),
        "q": one_minus_cosine(total, alphas),
        "q_jackknife": np.array([one_minus_cosine(j, alphas) for j in jack]),
        "w": ratio / (root * (1 + root)),  # 1 - omega / sqrt(omega^2 + nu^2)
    }
