"""Steps 1-3 of Paper A's training protocol at finite d (the experiment for A.thm3.*).

Conventions (docs/conventions.md): model y_hat = w^T X^T softmax(beta X q) + b, zero
initialisation q = w = 0, b^(0) = 0, mean-normalised empirical loss (1/n0) sum_i l(y_hat_i; y_i)
on D0 with n0 = alpha0 d samples, plain gradient steps:

  steps 1-2 (D0): one simultaneous step on (w, b, q) from zero.  Since grad_q y_hat is
             proportional to w = 0, q^(1) = 0; w^(1) = -eta_w grad_w, b^(1) = -eta_b grad_b.
  step 3    (D0 reused): q^(2) = q^(1) - eta_q grad_q of the same mean loss at (w^(1), b^(1), 0).

Losses: ``numerics.experiments.paper_a.models.Loss`` (logistic l = log(1 + exp(-y y_hat)), square
l = (y_hat - y)^2 / 2), given by member or name.

The gradient of y_hat in q is taken by the chain rule written out here independently
(at q = 0 the softmax Jacobian is (I - 11^T/L)/L); the alignment formulas under test are
NOT used.  This module must not import ``derivations``.

Memory: D0 is drawn in batches of ``batch_bytes``; if it fits in one batch it is kept for
step 3, otherwise it is drawn again from the same seed (pass 1 for w^(1), b^(1); pass 2 for
q^(2), which needs w^(1)), so d = 2000, n0 = 10 d (3.2 GB if held at once) runs in a few
hundred MB.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from numerics.core.seeding import children
from numerics.experiments.paper_a.models import Loss, loss_derivative
from numerics.experiments.paper_a.sparse_token import DEFAULT_BATCH_BYTES, SparseTokenModel, add_signal

LOSSES = tuple(m.value for m in Loss)
LABEL_LAWS = ("iid", "stratified")


def stratified_batches(model: SparseTokenModel, rng: np.random.Generator, n: int, xi: np.ndarray,
                       batch_bytes: int = DEFAULT_BATCH_BYTES):
    """Like ``SparseTokenModel.iter_batches`` but with exactly round(pi n) positives, in random
    order (label-stratified sampling).  Each sample is still X = theta v xi^T + Z given its
    label, so every n, d -> inf limit is the one of i.i.d. labels; what is removed is the
    O(n^-1/2) fluctuation of the empirical class fraction, which dominates the trial-to-trial
    variance of <q^(2), xi> and |q^(2)| at moderate n.  See docs/conventions.md."""
    k = int(round(model.pi * n))
    y_all = np.concatenate([np.ones(k), -np.ones(n - k)])
    rng.shuffle(y_all)
    size = model.batch_size(batch_bytes)
    for start in range(0, n, size):
        y = y_all[start:start + size]
        v = model.positions(rng, len(y)) * (y > 0)[:, None]
        X = rng.standard_normal((len(y), model.L, model.d))
        add_signal(X, v, model.theta, xi)
        yield X, y, v


@dataclass
class TwoStepResult:
    """w^(1), b^(1), q^(2) and the signal direction xi of one run, plus scalar summaries."""

    w1: np.ndarray
    b1: float
    q2: np.ndarray
    xi: np.ndarray
    n0: int
    d: int
    loss: Loss
    summary: dict = field(default_factory=dict)

    def __post_init__(self):
        wn = float(np.linalg.norm(self.w1))
        qn = float(np.linalg.norm(self.q2))
        wo = float(self.w1 @ self.xi)
        qo = float(self.q2 @ self.xi)
        self.summary = {
            "w1_norm": wn,
            "w1_overlap": wo,
            "w1_cosine": wo / wn,
            "b1": float(self.b1),
            "q2_overlap": qo,
            "q2_norm": qn,
            "q2_norm_sq": qn * qn,
            "q2_cosine": qo / qn,
        }


def run_two_steps(
    model: SparseTokenModel,
    n0: int,
    loss,
    *,
    eta_w: float,
    eta_b: float,
    eta_q: float,
    beta: float,
    seed: np.random.SeedSequence,
    b0: float = 0.0,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    labels: str = "iid",
    xi: np.ndarray | None = None,
):
    """Run steps 1-3 on a fresh D0 of ``n0`` samples drawn from ``model``.

    ``loss`` is one loss (returns a TwoStepResult) or a tuple of losses (returns a dict
    loss -> TwoStepResult, all trained on the *same* D0: the data are generated once per
    pass and shared, which halves the cost of comparing losses).  ``labels``: ``"iid"`` (the
    paper's model, P(y = +1) = pi per sample) or ``"stratified"`` (``stratified_batches``).
    ``xi``: the signal direction (a unit vector; default: drawn from ``seed``), so that several
    runs and a later step 4 can share one."""
    if labels not in LABEL_LAWS:
        raise ValueError(f"labels must be one of {LABEL_LAWS}, got {labels!r}")

    def batches():
        rng = np.random.default_rng(data_seed)
        if labels == "iid":
            return model.iter_batches(rng, n0, xi, batch_bytes)
        return stratified_batches(model, rng, n0, xi, batch_bytes)

    single = not isinstance(loss, (tuple, list))
    losses = (loss,) if single else tuple(loss)
    for each in losses:
        Loss.of(each)  # ValueError naming the choices
    if n0 < 1:
        raise ValueError(f"n0 must be >= 1, got {n0}")
    xi_seed, data_seed = children(seed, 2)
    if xi is None:
        xi = model.signal_direction(np.random.default_rng(xi_seed))
    L = model.L

    # Every product below is one BLAS matrix-vector product over X viewed as (n L, d): the
    # work is bounded by reading X once per product (docs/benchmarks.md, sim.two_steps).
    # steps 1-2: gradient at w = 0, q = 0, b = b0 (y_hat = b0 for every sample).
    kept = [] if n0 <= model.batch_size(batch_bytes) else None  # one batch: pass 2 reuses it
    sum_gx = {k: np.zeros(model.d) for k in losses}
    sum_g = dict.fromkeys(losses, 0.0)
    for X, y, _ in batches():
        X2 = X.reshape(-1, model.d)
        for k in losses:
            g = -loss_derivative(k, np.full_like(y, b0), y)  # -dl/dy_hat at y_hat = b0
            sum_gx[k] += np.repeat(g / L, L) @ X2  # g @ (X^T 1 / L): grad_w y_hat = X^T softmax(0)
            sum_g[k] += g.sum()
        if kept is not None:
            kept.append((X, y))
    w1 = {k: eta_w * sum_gx[k] / n0 for k in losses}
    b1 = {k: b0 + eta_b * sum_g[k] / n0 for k in losses}
    # q^(1) = 0 because grad_q y_hat = beta X^T (diag s - s s^T) X w vanishes at w = 0.

    # step 3: same D0 (kept, or replayed from the same seed), gradient in q at (w1, b1, q = 0).
    acc = {k: np.zeros(model.d) for k in losses}
    for X, y in (kept if kept is not None else ((X, y) for X, y, _ in batches())):
        X2 = X.reshape(-1, model.d)
        for k in losses:
            u = (X2 @ w1[k]).reshape(len(y), L)  # (n, L): token scores X_i w
            yhat = u.mean(axis=1) + b1[k]  # w^T X^T 1/L + b
            h = loss_derivative(k, yhat, y)
            pu = (u - u.mean(axis=1, keepdims=True)) * h[:, None]  # h_i (I - 11^T/L) X_i w
            acc[k] += pu.reshape(-1) @ X2  # sum_i h_i X_i^T P X_i w
    out = {
        k: TwoStepResult(w1=w1[k], b1=float(b1[k]), q2=-(eta_q * beta / (n0 * L)) * acc[k], xi=xi,
                         n0=n0, d=model.d, loss=k)
        for k in losses
    }
    return out[loss] if single else out
