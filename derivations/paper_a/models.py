"""Paper A's three models and two losses as objects, one interface (docs/paper_a_after_training.md).

A model carries its latent law (the law of (y, a, c, sigma^2) that the step-4 equations
average over) and its dimension factor (alpha = alpha_1 / dim).  The class weights and the
class-conditional shift of every law are the steps of ``erm_equations.class_law``:

* attention at fixed q (Theorem 4): the two classes of ``class_law`` and, per class, the
  compiled reduction ``attention_reduction.explicit_softmax(L, R)`` of (z_1..z_L) at the
  class's signal indicator; the trained query enters (``sees_q``);
* pooled and vectorised linear models (Theorem 5): the two atoms of
  ``erm_equations.linear_law`` (the same classes, with the model's mean and variance).

A loss is a :class:`derivations.paper_a.losses.Loss`.  Consumers ask the object (``sees_q``,
``latent_law``, ``dim``, ``polynomial``) and never compare names; ``by_name`` is the one map
from a user's spelling to an object.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from derivations.core import ByName, Named, derivation, step
from derivations.paper_a import attention_reduction as AR
from derivations.paper_a import erm_equations as EQ
from derivations.paper_a.losses import LOGISTIC, LOSSES, SQUARE, Loss  # noqa: F401 (one interface)
from derivations.paper_a.losses import by_name as loss_by_name  # noqa: F401


@dataclass(frozen=True)
class Model(ByName):
    """One model of Paper A: ``name`` (the user's spelling), ``title``, ``aliases`` and whether
    the trained query q enters its step-4 law (``sees_q``: the latent a along q-hat is nonzero)."""

    name: str
    title: str
    sees_q: bool
    aliases: tuple = ()

    def latent_law(self, L: int | None = None, R: int | None = None) -> dict:
        """The latent law as SymPy: ``classes`` (``erm_equations.class_law``) and ``dim``;
        see the subclasses for the rest."""
        raise NotImplementedError

    def dim(self) -> sp.Expr:
        """The dimension factor: alpha = alpha_1 / dim (an expression of L)."""
        return self.latent_law()["dim"]

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class AttentionModel(Model):
    """Attention at fixed q: per class, the compiled reduction of (z_1..z_L)."""

    def latent_law(self, L: int | None = None, R: int | None = None) -> dict:
        """``classes``, ``dim`` (1), ``signal`` (the indicator symbol each class sets) and, at an
        explicit (L, R), ``z`` and ``points`` = (a, c, sigma2) as expressions of
        (z, 1_{y=+1}, theta, beta, q_norm, s_q)."""
        return _attention_law(L, R)


@dataclass(frozen=True)
class LinearModel(Model):
    """A linear model on (pooled or vectorised) tokens: two exact atoms.  Its latent law, as
    expressions of (theta, R, L): ``mu``, the mean the positive class's signal tokens give the
    one latent coordinate, ``sigma2``, that coordinate's noise variance, and ``dim_factor``,
    the dimension the sample ratio is taken over (alpha = alpha_1 / dim_factor)."""

    mu: sp.Expr = field(kw_only=True)
    sigma2: sp.Expr = field(kw_only=True)
    dim_factor: sp.Expr = field(kw_only=True)

    def latent_law(self, L: int | None = None, R: int | None = None) -> dict:
        """``classes``, ``dim``, ``atoms`` (weight, {y, a, c, sigma2}), ``mu`` and ``sigma2`` as
        expressions of (theta, R, L, pi) (``erm_equations.linear_law``)."""
        return {"classes": EQ.class_law(), **EQ.linear_law(self)}


@derivation
def _attention_law(L, R) -> dict:
    out = {"classes": EQ.class_law(), "dim": step("A.law.attention.dim", sp.Integer(1)), "signal": AR.y_plus}
    if L is not None:
        z, _, a, c, sigma2 = AR.explicit_softmax(int(L), int(R))
        out.update(z=z, points=(a, c, sigma2))
    return out


ATTENTION = AttentionModel("attention", "attention", True, ("att",))
#: the two linear baselines and their latent laws (the pooled model: the mean of the L tokens, R of
#: them shifted by theta v; the vectorised model: the tokens side by side, alpha = alpha_1 / L)
POOLED = LinearModel("pool", "pooled", False, ("pooled",),
                     mu=EQ.theta * EQ.R / EQ.L, sigma2=1 / EQ.L, dim_factor=sp.Integer(1))
VECTORISED = LinearModel("vec", "vectorised", False, ("vectorised", "vectorized"),
                         mu=EQ.theta * EQ.R / sp.sqrt(EQ.L), sigma2=sp.Integer(1), dim_factor=EQ.L)
#: every model, in the order the CLI and the tables list them
MODELS = (ATTENTION, POOLED, VECTORISED)
#: the models whose step-4 law does not see the trained query (the linear baselines)
LINEAR = tuple(mo for mo in MODELS if not mo.sees_q)
#: the model called ``name`` (a Model is returned as is); ValueError naming the choices
by_name = Named("model", Model, MODELS)
