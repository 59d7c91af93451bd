"""The one place where a user's name for a loss or a model of Paper A becomes an object.

``loss(x)`` and ``model(x)`` take a name or alias (the CLI's and the API's spelling), a
derivation object (``derivations.paper_a.models``) or an enum member of the simulators
(``numerics.experiments.paper_a.models``: its value is the same name) and return the derivation
object; a bad name is a ParameterError naming the choices.  Theory, claims, figures and
problems ask the object (``sees_q``, ``latent_law``, ``dim``, ``polynomial``) and never
compare names.
"""
from __future__ import annotations

from derivations.paper_a import models as DM
from numerics.core.params import ParameterError

Loss, Model = DM.Loss, DM.Model
LOSSES, MODELS = DM.LOSSES, DM.MODELS
LOGISTIC, SQUARE = DM.LOGISTIC, DM.SQUARE
ATTENTION, POOLED, VECTORISED = DM.ATTENTION, DM.POOLED, DM.VECTORISED
#: the names the CLI and the API accept (aliases are accepted too)
LOSS_NAMES = tuple(lo.name for lo in LOSSES)
MODEL_NAMES = tuple(mo.name for mo in MODELS)
#: the models whose step-4 law does not see the trained query (the linear baselines)
LINEAR = DM.LINEAR


def _value(x):
    """An enum member of the simulators stands for its value (the name)."""
    return x.value if hasattr(x, "value") and not isinstance(x, (Loss, Model)) else x


def loss(x) -> Loss:
    try:
        return DM.loss_by_name(_value(x))
    except ValueError:
        raise ParameterError(f"parameter loss: must be one of {', '.join(LOSS_NAMES)}, got {x!r}") from None


def model(x) -> Model:
    try:
        return DM.by_name(_value(x))
    except ValueError:
        raise ParameterError(f"parameter model: must be one of {', '.join(MODEL_NAMES)}, got {x!r}") from None
