"""Oracle classifiers of Paper A's representation results, evaluated on sampled data.

This is the *experiment* side of the representation claims (docs/paper_a_representation.md);
it imports nothing from ``derivations``.

Why the L-vector of projections is enough (docs/paper_a_representation.md, "Reduction"):
every oracle score of these claims is a function of u = X xi in R^L only.  Pooled with w = xi:
xi^T X^T 1/L = mean(u).  Vectorised with W = a xi^T: a^T u.  Attention with q = kappa xi
and readout w = xi: X q = kappa u, and xi^T X^T s = u^T s.  The Bayes rule also only needs u
(the part of X orthogonal to xi is independent of (y, v)).  And u = theta v 1{y=+1} + g with
g = Z xi ~ N(0, I_L) exactly, for any unit xi.  So sampling u directly is exact, not an
approximation; ``full_d_scores`` does the same with the d-dimensional tokens of
:mod:`numerics.experiments.paper_a.sparse_token` to show it.

Thresholds are *fitted*: the experiment learns the best threshold on a training half by
minimising the empirical error (no formula), and reports the error of that threshold on
the independent test half, with its binomial standard error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import logsumexp, softmax

from numerics.experiments.paper_a.models import Model
from numerics.experiments.paper_a.sparse_token import SparseTokenModel, attention_features, pooled_features
from numerics.papers.paper_a.vocabulary import UNIFORM_POSITIONS, PositionLaw

CHUNK_ELEMENTS = 4_000_000   # floats per sampled block (32 MB)


def sample_projections(rng: np.random.Generator, n: int, L: int, R: int, pi: float, theta: float,
                       law: PositionLaw = UNIFORM_POSITIONS):
    """(y, u): y in {-1, +1}^n with P(+1) = pi; u of shape (n, L), u = theta v 1{y=+1} + g.

    ``law``: where the signal tokens sit (``PositionLaw``: a random R-subset of all tokens or
    of a block of the first m, or tokens 0..R-1)."""
    y = np.where(rng.random(n) < pi, 1.0, -1.0)
    u = rng.standard_normal((n, L))
    pos = np.flatnonzero(y > 0)
    if pos.size:
        idx = law.indices(rng, pos.size, L, R, one_by_integer=True)
        rows = np.repeat(pos, R)
        u[rows, idx.reshape(-1)] += theta
    return y, u


# --- statistics (functions of the projection vector u, shape (n, L)) -----------------------

def stat_pooled(u):
    """mean pooling with w = xi, normalised by sqrt(L): N(0,1) vs N(theta R/sqrt(L), 1)."""
    return u.sum(axis=1) / np.sqrt(u.shape[1])


def stat_vec_ksparse(k: int):
    """vectorised rule a = 1_K/sqrt(k) with K = the first k tokens (WLOG under the uniform law)."""
    def f(u):
        return u[:, :k].sum(axis=1) / np.sqrt(k)
    return f


def stat_hardmax(u):
    """attention with beta*||q|| -> infinity: the score tends to max_l u_l."""
    return u.max(axis=1)


def stat_softmax(gamma: float):
    """attention with q = kappa xi, w = xi, gamma = beta kappa: S = sum softmax(gamma u) u."""
    def f(u):
        return (softmax(gamma * u, axis=1) * u).sum(axis=1)
    return f


def stat_bayes(theta: float, R: int):
    """log-likelihood ratio for R = 1: log mean_l exp(theta u_l - theta^2/2) (the Bayes score)."""
    if R != 1:
        raise ValueError("stat_bayes is implemented for R = 1")

    def f(u):
        return logsumexp(theta * u - theta**2 / 2, axis=1) - np.log(u.shape[1])
    return f


# --- fitting and evaluating a threshold ------------------------------------------------

def fit_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The threshold c minimising the empirical error of 'predict +1 iff score >= c'.

    Exact empirical minimiser: sort, cumulate errors at every cut, take the midpoint of the
    best gap.  c = +inf (always -1) and -inf (always +1) are allowed."""
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    pos = (y[order] > 0).astype(np.int64)
    n = s.size
    # cut before index j (j = 0..n): predict -1 for s[:j], +1 for s[j:]
    miss = np.concatenate(([0], np.cumsum(pos)))                 # positives below the cut
    false_alarm = (n - pos.sum()) - np.concatenate(([0], np.cumsum(1 - pos)))
    err = miss + false_alarm
    j = int(np.argmin(err))
    if j == 0:
        return -np.inf
    if j == n:
        return np.inf
    return 0.5 * (s[j - 1] + s[j])


@dataclass(frozen=True)
class OracleEstimate:
    error: float
    se: float
    threshold: float
    n_train: int
    n_test: int


def oracle_error(rng: np.random.Generator, stat: Callable, n: int, L: int, R: int, pi: float,
                 theta: float, law: PositionLaw = UNIFORM_POSITIONS, n_train: int | None = None) -> OracleEstimate:
    """Fit the threshold of ``stat`` on n_train samples, estimate its error on n fresh ones.

    Sampling is done in blocks of at most CHUNK_ELEMENTS floats, so L = 10^4 is cheap in
    memory."""
    n_train = n if n_train is None else n_train

    def scores(count):
        block = max(1, CHUNK_ELEMENTS // L)
        ys, ss = [], []
        done = 0
        while done < count:
            mm = min(block, count - done)
            y, u = sample_projections(rng, mm, L, R, pi, theta, law)
            ys.append(y)
            ss.append(stat(u))
            done += mm
        return np.concatenate(ys), np.concatenate(ss)

    y_tr, s_tr = scores(n_train)
    c = fit_threshold(s_tr, y_tr)
    y_te, s_te = scores(n)
    wrong = np.where(y_te > 0, s_te < c, s_te >= c)
    e = float(wrong.mean())
    se = float(np.sqrt(max(e * (1 - e), 1.0 / n) / n))
    return OracleEstimate(e, se, float(c), n_train, n)


def full_d_scores(rng: np.random.Generator, model: SparseTokenModel, n: int, kind: str,
                  gamma: float = 1.0, beta: float = 1.0):
    """Scores computed from the d-dimensional tokens (no projection shortcut).

    kind "pool": sqrt(L) xi^T (X^T 1/L); kind "attention": q = (gamma/beta) xi, w = xi,
    score xi^T X^T softmax(beta X q).  Returns (y, scores)."""
    kind = Model.of(kind)
    if kind.keeps_positions:
        raise ValueError(f"kind must be pool|attention, got {kind}")
    xi = model.signal_direction(rng)
    ys, ss = [], []
    for X, y, _v in model.iter_batches(rng, n, xi, batch_bytes=32 * 2**20):
        if kind.needs_query:
            s = attention_features(X, (gamma / beta) * xi, beta) @ xi
        else:
            s = np.sqrt(model.L) * pooled_features(X) @ xi
        ys.append(y)
        ss.append(s)
    return np.concatenate(ys), np.concatenate(ss)


def full_d_oracle_error(rng, model: SparseTokenModel, n: int, kind: str, gamma: float = 1.0,
                        n_train: int | None = None) -> OracleEstimate:
    n_train = n if n_train is None else n_train
    y_tr, s_tr = full_d_scores(rng, model, n_train, kind, gamma)
    c = fit_threshold(s_tr, y_tr)
    y_te, s_te = full_d_scores(rng, model, n, kind, gamma)
    wrong = np.where(y_te > 0, s_te < c, s_te >= c)
    e = float(wrong.mean())
    return OracleEstimate(e, float(np.sqrt(max(e * (1 - e), 1.0 / n) / n)), float(c), n_train, n)
