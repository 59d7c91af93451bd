"""Finite-d simulator of Paper A's data model and its three feature maps.

Data (paper A; docs/conventions.md): y = +1 with probability pi, else -1.
Negative: X = Z.  Positive: X = theta * v xi^T + Z, with Z i.i.d. N(0, 1) of shape (L, d),
xi a fixed unit vector and v in {0,1}^L marking R signal tokens.

Position laws: ``"uniform"`` — a uniformly random R-subset per sample (the paper's default,
no privileged token); ``"fixed"`` — always tokens 0..R-1 (a privileged law that violates the
paper's ||p|| <= C R / sqrt(L); useful to show what position information can add).

Feature maps (no 1/sqrt(d) anywhere; see docs/conventions.md):
  pooled      X^T 1_L / L                               in R^d
  vectorised  vec(X)                                     in R^{L d}
  attention   f_q(X) = X^T softmax(beta X q)             in R^d

This module deliberately imports nothing from ``derivations``: it is the experiment.
Memory: samples are produced in batches (``iter_batches``) so that d = 2000, n = 10 d, L = 10
(3.2 GB if held at once) is processed in slices of ``batch_bytes`` (default 256 MB).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
from scipy.special import softmax

from numerics.experiments.paper_a.models import Model
from numerics.papers.paper_a.vocabulary import MODEL_SPACE, UNIFORM_POSITIONS, PositionLaw

DEFAULT_BATCH_BYTES = 256 * 2**20


@dataclass(frozen=True)
class SparseTokenModel:
    L: int
    R: int
    pi: float
    theta: float
    d: int
    position_law: PositionLaw = UNIFORM_POSITIONS

    def __post_init__(self):
        MODEL_SPACE.validate(
            {"L": self.L, "R": self.R, "pi": self.pi, "theta": self.theta, "d": self.d}
        )

    def signal_direction(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random unit vector xi (drawn once per experiment)."""
        xi = rng.standard_normal(self.d)
        return xi / np.linalg.norm(xi)

    def positions(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """v of shape (n, L), R ones per row."""
        v = np.zeros((n, self.L))
        np.put_along_axis(v, self.position_law.indices(rng, n, self.L, self.R), 1.0, axis=1)
        return v

    def sample(self, rng: np.random.Generator, n: int, xi: np.ndarray):
        """(X, y, v): X of shape (n, L, d), y in {-1, +1}^n, v the positions (zero rows for
        negatives)."""
        y = np.where(rng.random(n) < self.pi, 1.0, -1.0)
        v = self.positions(rng, n) * (y > 0)[:, None]
        X = rng.standard_normal((n, self.L, self.d))
        add_signal(X, v, self.theta, xi)
        return X, y, v

    def batch_size(self, batch_bytes: int = DEFAULT_BATCH_BYTES) -> int:
        return max(1, int(batch_bytes // (8 * self.L * self.d)))

    def iter_batches(self, rng: np.random.Generator, n: int, xi: np.ndarray,
                     batch_bytes: int = DEFAULT_BATCH_BYTES) -> Iterator[tuple]:
        """Yield (X, y, v) in slices whose X takes at most ``batch_bytes``."""
        size = self.batch_size(batch_bytes)
        done = 0
        while done < n:
            m = min(size, n - done)
            yield self.sample(rng, m, xi)
            done += m


def add_signal(X: np.ndarray, v: np.ndarray, theta: float, xi: np.ndarray) -> None:
    """X += theta v xi^T in place, sample by sample, touching only the signal tokens (v = 1;
    v is 0/1): the same numbers as the dense broadcast, without its (n, L, d) temporary."""
    i, l = np.nonzero(v)
    X[i, l] += theta * xi


def pooled_features(X: np.ndarray) -> np.ndarray:
    return X.mean(axis=1)


def vectorised_features(X: np.ndarray) -> np.ndarray:
    return X.reshape(X.shape[0], -1)


def attention_weights(X: np.ndarray, q: np.ndarray, beta: float) -> np.ndarray:
    """softmax(beta X q) per sample, shape (n, L); computed stably by scipy."""
    return softmax(beta * (X @ q), axis=1)


def attention_features(X: np.ndarray, q: np.ndarray, beta: float) -> np.ndarray:
    """f_q(X) = X^T softmax(beta X q), shape (n, d)."""
    s = attention_weights(X, q, beta)
    return np.einsum("nl,nld->nd", s, X)


def features(kind, X: np.ndarray, q: np.ndarray | None = None, beta: float = 1.0) -> np.ndarray:
    """The features of ``kind`` (a ``numerics.experiments.paper_a.models.Model`` or its name)."""
    kind = Model.of(kind)
    if kind.needs_query:
        if q is None:
            raise ValueError("attention features need q")
        return attention_features(X, q, beta)
    return vectorised_features(X) if kind.keeps_positions else pooled_features(X)
