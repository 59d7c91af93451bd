"""The simulators' own numeric losses, attached to Paper A's names.

The names (``Loss``, ``Model``) are Paper A's vocabulary (``numerics.papers.paper_a.vocabulary``),
re-exported here for the simulators.  The experiments implement the models and never see the
derivation (tests/test_architecture.py), so the numeric loss functions here are an independent
definition: l(y_hat; y) and its derivative in numpy, stable for large margins.  A simulator turns
whatever it is given (a user's spelling, a member, or a derivation object with a ``name``) into a
member with ``Loss.of`` / ``Model.of`` at its entry; no simulator compares names.

* ``Loss.LOGISTIC``: l = log(1 + exp(-y y_hat)), l' = -y expit(-y y_hat);
* ``Loss.SQUARE``:   l = (y_hat - y)^2 / 2,      l' = y_hat - y (the ERM has a closed form).
"""
from __future__ import annotations

import numpy as np

from numerics.papers.paper_a.vocabulary import LOSSES, MODELS, Loss, Model  # noqa: F401  (re-exported)


def loss_value(loss, yhat: np.ndarray, y: np.ndarray) -> np.ndarray:
    """l(y_hat; y) of the loss named ``loss``, vectorised."""
    return _VALUE[Loss.of(loss)](np.asarray(yhat, dtype=float), np.asarray(y, dtype=float))


def loss_derivative(loss, yhat: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d l(y_hat; y) / d y_hat of the loss named ``loss``, vectorised."""
    return _DERIVATIVE[Loss.of(loss)](np.asarray(yhat, dtype=float), np.asarray(y, dtype=float))


def _logistic_derivative(yh, y):
    from scipy.special import expit  # not at import: the CLI lists the models without scipy

    return -y * expit(-y * yh)


_VALUE = {Loss.LOGISTIC: lambda yh, y: np.logaddexp(0.0, -y * yh), Loss.SQUARE: lambda yh, y: 0.5 * (yh - y) ** 2}
_DERIVATIVE = {Loss.LOGISTIC: _logistic_derivative, Loss.SQUARE: lambda yh, y: yh - y}
