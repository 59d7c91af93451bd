"""A claim whose rows cannot see one term of its derivation (for tests/test_automutants.py).

The derivation is f = x^2 + eps x (one named step); the rows compare it with x^2 at eps = 0
only, so every change of the term eps x is invisible to them, while the claim's parameter
domain (eps in [0, 1]) is where the term lives."""
from __future__ import annotations

import sympy as sp

from derivations.core import derivation, step
from numerics.claims.base import Claim, Comparison
from numerics.core.backends import mp_eval
from numerics.core.params import Param, ParamSpace

x, eps = sp.symbols("x epsilon", positive=True)


@derivation
def value() -> sp.Expr:
    return step("T.blind.f", x**2 + eps * x)


def _theory(point: dict, dps: int = 30):
    return mp_eval(value(), {x: point["x"], eps: point["eps"]}, dps)


def _experiment(settings, claim):
    rows = [Comparison(f"x={v:g}, eps=0", float(_theory({"x": v, "eps": 0.0})), float(v * v), 0.0, 1e-9)
            for v in (1.5, 2.0, 3.0)]
    return rows, {}, {}


SPACE = ParamSpace((Param("x", float, 1.0, 3.0, default=2.0), Param("eps", float, 0.0, 1.0, default=0.5)))

CLAIMS = [Claim(id="T.blind", paper="T", reference="a test", statement="f(x, eps) = x^2 at eps = 0",
                experiment=_experiment, evaluate=lambda p, dps: {"f": _theory(p, dps)}, param_space=SPACE,
                design_only="a test claim")]
