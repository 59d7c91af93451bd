"""Paper A's whole four-step protocol at finite d (the experiment of ``A.protocol.end_to_end``).

One trial, under the conventions of docs/conventions.md:

  steps 1-3 (D0, n0 = alpha0 d samples): ``sparse_token_training.run_two_steps`` gives w^(1),
            b^(1) and q^(2) at every step-3 point (alpha0, eta_q) — one D0 per point, shared by
            the losses (each loss trains its own q^(2)), the same signal direction xi for all;
  step 4    (D1, n1 = alpha1 d samples, independent of every D0): ridge ERM with unpenalised
            bias (``sparse_token_erm.fit_erm``) on the features of every model — attention at
            each point's q^(2), pooled and vectorised (which do not see q) — with the loss of
            steps 1-3; one D1 is shared by the points, models and losses (paired comparisons);
  test      the test error of every trained (w, b) on fresh samples drawn exactly in law
            (``sparse_token_erm.fresh_margins``), and the training loss on D1 (data term only).

Nothing here comes from a derivation: the two simulators and elementary sampling.  This module
must not import ``derivations``, ``numerics.theory`` or ``numerics.claims``.
"""
from __future__ import annotations

import numpy as np

from numerics.core.seeding import child, children
from numerics.experiments.paper_a.models import Model
from numerics.experiments.paper_a.sparse_token import SparseTokenModel, features
from numerics.experiments.paper_a.sparse_token_erm import fit_erm, fresh_margins, stratified_sample, train_loss
from numerics.experiments.paper_a.sparse_token_training import run_two_steps

ATTENTION = Model.ATTENTION.value
LINEAR = tuple(m.value for m in Model if not m.needs_query)
QUANTITIES = ("test_error", "train_loss")


def _fit(kind, F, y, lam, loss, model, xi, q, beta, seed, n_test, gtol) -> dict:
    fit = fit_erm(F, y, lam, loss, gtol=gtol)
    if not fit.converged:
        raise RuntimeError(f"{kind}, {loss}: ERM did not converge (gradient {fit.grad_norm:.2e})")
    yt, ht = fresh_margins(kind, model, fit.w, fit.b, xi, np.random.default_rng(seed), n_test, q, beta)
    return {"test_error": float(np.mean(yt * ht < 0)), "train_loss": train_loss(F, y, fit.w, fit.b, loss)}


def protocol_trial(model: SparseTokenModel, points, alpha1: float, lam: float, losses, *, eta_w: float,
                   eta_b: float, beta: float, seed: np.random.SeedSequence, linear=LINEAR, labels: str = "iid",
                   n_test: int = 200_000, gtol: float = 1e-9) -> dict:
    """One run of the protocol at the step-3 points ``points`` = ((alpha0, eta_q), ...).

    Returns {("attention", loss, point): {"test_error", "train_loss", "q2_norm", "q2_cosine"},
    (model, loss): {"test_error", "train_loss"} for the linear models}.  The step-4 loss is the
    loss of steps 1-3."""
    losses = tuple(losses)
    d = model.d
    s_xi, s_d1 = child(seed, "xi"), child(seed, "D1")
    xi = model.signal_direction(np.random.default_rng(s_xi))
    out = {}
    for ip, (alpha0, eta_q) in enumerate(points):
        s_d0 = child(seed, f"D0.{ip}")
        two = run_two_steps(model, int(round(alpha0 * d)), losses, eta_w=eta_w, eta_b=eta_b, eta_q=eta_q,
                            beta=beta, seed=s_d0, labels=labels, xi=xi)
        out[("q2", ip)] = two
    rng = np.random.default_rng(s_d1)
    n1 = int(round(alpha1 * d))
    X, y = stratified_sample(model, rng, n1, xi) if labels == "stratified" else model.sample(rng, n1, xi)[:2]
    test = child(seed, "test")
    res = {}
    for ip in range(len(points)):
        two = out.pop(("q2", ip))
        for k in losses:
            q = two[k].q2
            F = features(Model.ATTENTION, X, q, beta)
            r = _fit(Model.ATTENTION, F, y, lam, k, model, xi, q, beta, child(test, f"att.{ip}.{k}"), n_test,
                     gtol)
            r.update(q2_norm=two[k].summary["q2_norm"], q2_cosine=two[k].summary["q2_cosine"])
            res[(ATTENTION, k, ip)] = r
    for kind in linear:
        F = features(kind, X)
        for k in losses:
            res[(kind, k)] = _fit(kind, F, y, lam, k, model, xi, None, beta, child(test, f"{kind}.{k}"),
                                  n_test, gtol)
    return res


def protocol_trials(L: int, R: int, pi: float, theta: float, d: int, points, alpha1: float, lam: float, losses,
                    trials: int, seed: np.random.SeedSequence, **kw) -> dict:
    """``trials`` independent runs (seeds ``children(seed, trials)``).  Returns
    {key of :func:`protocol_trial`: {quantity: np.array over trials}}."""
    model = SparseTokenModel(L, R, pi, theta, d)
    runs = [protocol_trial(model, points, alpha1, lam, losses, seed=s, **kw) for s in children(seed, trials)]
    return {key: {q: np.array([r[key][q] for r in runs]) for q in runs[0][key]} for key in runs[0]}
