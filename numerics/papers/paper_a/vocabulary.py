"""Paper A's parameters and names, declared once.

The parameters of the data model (L, R, pi, theta, d), of the training protocol (the sample
ratios, the learning rates, beta, lambda) and of the fixed queries the theory evaluates at
(s_q, ||q||, gamma = beta ||q||); and the names of the losses and models a user chooses from.  The
experiments attach their own numeric losses to these names (``numerics.experiments.paper_a.
models``), the theory its derivation objects (``numerics.theory.paper_a.models``); both read the
names here, so the two vocabularies cannot drift apart.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from numerics.core.params import Param, ParamSpace

# --- the data model ---------------------------------------------------------------------------
L = Param("L", int, 2, None, doc="sequence length (number of tokens)", typical=(2, 12))
R = Param("R", int, 1, "L", doc="number of signal tokens in a positive sample, 1 <= R <= L")
PI = Param("pi", float, 0.0, 1.0, True, True, doc="prior P(y = +1) (rarity)", typical=(0.1, 0.9))
THETA = Param("theta", float, 0.0, None, doc="signal strength theta >= 0", typical=(0.0, 8.0))
D = Param("d", int, 1, None, doc="token dimension")
MODEL_SPACE = ParamSpace((L, R, PI, THETA, D))


@dataclass(frozen=True)
class PositionLaw:
    """Where the R signal tokens of a positive sample sit: a uniformly random R-subset of the
    first ``block`` tokens (None: of all L, the paper's default), or, ``fixed``, always the
    first R tokens (a privileged law outside the paper's ||p|| <= C R / sqrt(L)).  A block of
    m tokens has marginal p = R/m on the block, ||p|| = R/sqrt(m): the paper's C = sqrt(L/m)."""

    name: str
    fixed: bool = False
    block: int | None = None

    @classmethod
    def of(cls, x) -> "PositionLaw":
        """The law for ``x``: a law, ``"uniform"``, ``"fixed"`` or ``"block:m"``."""
        if isinstance(x, cls):
            return x
        named = {law.name: law for law in POSITION_LAWS}
        if x in named:
            return named[x]
        head, _, m = str(x).partition(":")
        if head == "block" and m.isdigit():
            return cls.of_block(int(m))
        raise ValueError(f"law must be uniform|fixed|block:m, got {x!r}")

    @classmethod
    def of_block(cls, m: int) -> "PositionLaw":
        return cls(f"block:{m}", block=int(m))

    def span(self, L: int, R: int) -> int:
        """m: the R signal tokens are a subset of the first m tokens (fixed: m = R)."""
        if self.fixed:
            return R
        m = L if self.block is None else self.block
        if not R <= m <= L:
            raise ValueError(f"block size must be in [R, L] = [{R}, {L}], got {m}")
        return m

    def indices(self, rng, n: int, L: int, R: int, *, one_by_integer: bool = False):
        """(n, R) token indices of the signal tokens of n samples.  A random subset is the first
        R of a random order of the m tokens (m uniforms per sample); ``one_by_integer``: one
        signal token (R = 1) is one uniform integer per sample instead (the same law, fewer
        draws)."""
        import numpy as np

        m = self.span(L, R)
        if self.fixed:
            return np.broadcast_to(np.arange(R), (n, R))
        if one_by_integer and R == 1:
            return rng.integers(0, m, size=(n, 1))
        return np.argsort(rng.random((n, m)), axis=1)[:, :R]

    def __str__(self):
        return self.name


#: the laws of the signal positions a simulator takes by name
UNIFORM_POSITIONS = PositionLaw("uniform")
FIXED_POSITIONS = PositionLaw("fixed", fixed=True)
POSITION_LAWS = (UNIFORM_POSITIONS, FIXED_POSITIONS)


# --- the training protocol --------------------------------------------------------------------
ALPHA0 = Param("alpha0", float, 0.0, None, lo_open=True, doc="sample ratio n0/d of D0, > 0", typical=(0.5, 8.0))
ALPHA1 = Param("alpha1", float, 0.0, None, lo_open=True, doc="sample ratio n1/d of D1, > 0", typical=(0.5, 8.0))
ETA_W = Param("eta_w", float, 0.0, None, lo_open=True, doc="learning rate of w in step 1-2", typical=(0.1, 2.0))
ETA_B = Param("eta_b", float, 0.0, None, doc="learning rate of b in step 1-2 (>= 0)", typical=(0.0, 2.0))
ETA_Q = Param("eta_q", float, 0.0, None, lo_open=True, doc="learning rate of q in step 3", typical=(0.1, 2.0))
BETA = Param("beta", float, 0.0, None, lo_open=True, doc="softmax inverse temperature, > 0", typical=(0.2, 4.0))
LAMBDA = Param("lam", float, 0.0, None, doc="ridge penalty lambda >= 0 on w", typical=(0.0, 4.0))

# --- a fixed query ----------------------------------------------------------------------------
S_Q = Param("s_q", float, -1.0, 1.0, doc="alignment cos(q, xi) of the fixed query, in [-1, 1]")
Q_NORM = Param("q_norm", float, 0.0, None, doc="||q|| of the fixed query (attention)")
#: beta ||q||, the softmax scale of a fixed query; 0 is pooling
GAMMA = Param("gamma", float, 0.0, None, doc="beta * ||q||, the softmax scale of the fixed query (gamma = 0: pooling)")


# --- the names a user chooses from ------------------------------------------------------------
class _Named(enum.Enum):
    @classmethod
    def of(cls, x):
        """The member for ``x``: a member, its value or alias, or an object with that ``name``."""
        if isinstance(x, cls):
            return x
        key = getattr(x, "name", x) if not isinstance(x, str) else x
        try:
            return cls(cls._ALIASES_.get(key, key) if hasattr(cls, "_ALIASES_") else key)
        except (ValueError, TypeError):
            names = ", ".join(m.value for m in cls)
            raise ValueError(f"{cls.__name__.lower()} must be one of {names}, got {x!r}") from None

    def __str__(self):
        return self.value


class Loss(_Named):
    """The training loss: logistic or square (whose ridge ERM is a linear solve)."""
    LOGISTIC = "logistic"
    SQUARE = "square"

    @property
    def closed_form_erm(self) -> bool:
        """The ridge ERM is a linear solve (the square loss)."""
        return self is Loss.SQUARE


class Model(_Named):
    """The feature map: attention X^T softmax(beta X q) (needs q), pooling X^T 1 / L, or vec X."""
    ATTENTION = "attention"
    POOL = "pool"
    VEC = "vec"

    @property
    def needs_query(self) -> bool:
        """The features depend on a query q (attention)."""
        return self is Model.ATTENTION

    @property
    def keeps_positions(self) -> bool:
        """The features keep every token (vectorised: dimension L d)."""
        return self is Model.VEC

    def feature_dim(self, L: int, d: int) -> int:
        return L * d if self.keeps_positions else d


Model._ALIASES_ = {"pooled": "pool", "vectorised": "vec", "vectorized": "vec", "att": "attention"}
LOSSES = tuple(Loss)
MODELS = tuple(Model)
