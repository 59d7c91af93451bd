"""The simulators' own names for Paper A's losses and models: two enums, selected once.

The experiments implement the models and never see the derivation (tests/test_architecture.py),
so the numeric loss functions here are an independent definition: l(y_hat; y) and its
derivative in numpy, stable for large margins.  A simulator turns whatever it is given (a
user's spelling, an enum member, or a derivation object with a ``name``) into a member with
``Loss.of`` / ``Model.of`` at its entry and then asks the member; no simulator compares names.
The member values are the user's spellings, the same as the derivation objects' names
(tests/test_paper_a_equations.py checks that the two vocabularies agree).

* ``Loss.LOGISTIC``: l = log(1 + exp(-y y_hat)), l' = -y expit(-y y_hat);
* ``Loss.SQUARE``:   l = (y_hat - y)^2 / 2,      l' = y_hat - y (the ERM has a closed form).
* ``Model.ATTENTION`` (features X^T softmax(beta X q): needs q), ``Model.POOL`` (X^T 1 / L),
  ``Model.VEC`` (vec X, dimension L d).
"""
from __future__ import annotations

import enum

import numpy as np


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
    LOGISTIC = "logistic"
    SQUARE = "square"

    def value_at(self, yhat: np.ndarray, y: np.ndarray) -> np.ndarray:
        """l(y_hat; y), vectorised."""
        return _VALUE[self](np.asarray(yhat, dtype=float), np.asarray(y, dtype=float))

    def derivative(self, yhat: np.ndarray, y: np.ndarray) -> np.ndarray:
        """d l(y_hat; y) / d y_hat, vectorised."""
        return _DERIVATIVE[self](np.asarray(yhat, dtype=float), np.asarray(y, dtype=float))

    @property
    def closed_form_erm(self) -> bool:
        """The ridge ERM is a linear solve (the square loss)."""
        return self is Loss.SQUARE


def _logistic_derivative(yh, y):
    from scipy.special import expit  # not at import: the CLI lists the models without scipy

    return -y * expit(-y * yh)


_VALUE = {Loss.LOGISTIC: lambda yh, y: np.logaddexp(0.0, -y * yh), Loss.SQUARE: lambda yh, y: 0.5 * (yh - y) ** 2}
_DERIVATIVE = {Loss.LOGISTIC: _logistic_derivative, Loss.SQUARE: lambda yh, y: yh - y}


class Model(_Named):
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
