"""Paper A's two losses, each one object: its SymPy form (defined here and nowhere else), its
derivatives and its proximal step.

Conventions (docs/conventions.md): ell(yhat; y), y in {-1, +1},

* logistic: ell = log(1 + e^{-y yhat}), written ``softplus(-y yhat)`` so that numerics can
  evaluate it stably; ``elementary`` rewrites it as log(1 + exp(.)) for derivations that
  simplify or integrate it in elementary functions (the same expression);
* square:   ell = (yhat - y)^2 / 2.

The proximal step of the step-4 equations is h + s ell'(h; y) = omega (s = sigma^2 V > 0).
It is linear in h exactly when ell'' is constant (the square loss), and then ``prox`` returns
h in closed form; ``polynomial`` says whether Gaussian expectations of ell' are exact moments.

Every consumer looks a loss up by object (``LOSSES``, ``by_name``), never by comparing names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import sympy as sp

from derivations.core import ByName, Named


class softplus(sp.Function):
    """softplus(x) = log(1 + e^x); numerics evaluate it stably (``numerics.core.special``)."""

    @classmethod
    def eval(cls, x):
        if x == 0:
            return sp.log(2)

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return sp.log(1 + sp.exp(x))


class sigmoid(sp.Function):
    """sigmoid(x) = 1 / (1 + e^-x), with sigmoid' = sigmoid(x) sigmoid(-x) (no cancellation)."""

    @classmethod
    def eval(cls, x):
        if x == 0:
            return sp.Rational(1, 2)

    def fdiff(self, argindex=1):
        x = self.args[0]
        return sigmoid(x) * sigmoid(-x)

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return 1 / (1 + sp.exp(-x))


@dataclass(frozen=True)
class Loss(ByName):
    """One loss: ``name`` (the user's spelling), ``aliases``, and ``form(yhat, y)``, the SymPy
    ell(yhat; y)."""

    name: str
    form: Callable = field(repr=False, compare=False)
    title: str
    aliases: tuple = ()

    def ell(self, yhat, y, *, elementary: bool = False) -> sp.Expr:
        """ell(yhat; y); ``elementary``: in exp/log only (no softplus)."""
        e = self.form(yhat, y)
        return e.rewrite(sp.exp) if elementary else e

    def derivative(self, yhat, y, order: int = 1, *, elementary: bool = False) -> sp.Expr:
        """d^order ell / d yhat^order at (yhat, y) (``yhat`` a symbol or an expression)."""
        t = sp.Dummy("t", real=True)
        return sp.diff(self.ell(t, y, elementary=elementary), t, order).subs(t, yhat)

    def prox_equation(self, h, omega, scale, y, dl=None) -> sp.Expr:
        """G(h) = h + scale ell'(h; y) - omega (zero at the proximal point); ``dl`` the
        derivative ell'(h; y) as a derivation step has it (default: this loss's)."""
        return h + scale * (self.derivative(h, y) if dl is None else dl) - omega

    def prox(self, omega, scale, y):
        """The proximal point h(omega) in closed form when the prox is linear in h, else None."""
        t = sp.Dummy("t", real=True)
        G = self.prox_equation(t, omega, scale, y)
        if sp.simplify(sp.diff(G, t, 2)) != 0:
            return None
        return sp.solve(G, t)[0]

    @cached_property
    def polynomial(self) -> bool:
        """ell' is a polynomial in yhat: its Gaussian expectations are exact moments."""
        t, y = sp.Symbol("t", real=True), sp.Symbol("y", real=True)
        return self.derivative(t, y).is_polynomial(t)

    def __str__(self):
        return self.name


LOGISTIC = Loss("logistic", lambda yh, y: softplus(-y * yh), "logistic loss log(1 + e^{-y yhat})")
SQUARE = Loss("square", lambda yh, y: (yh - y) ** 2 / 2, "square loss (yhat - y)^2 / 2")
#: every loss, in the order the CLI and the tables list them
LOSSES = (LOGISTIC, SQUARE)
#: the loss called ``name`` (a Loss is returned as is); ValueError naming the choices
by_name = Named("loss", Loss, LOSSES)
