"""The token laws of Paper B's identity claims, each one object (``numerics.claims.paper_b.
identities``): how the simulator draws it, its exact pair moments from the derivation, and how
the Monte Carlo averages R_h².  The claims look a law up by its name (Paper B's vocabulary,
``TOKEN_LAWS``) and never branch on it."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from numerics.claims.paper_b._common import _deriv, _sim

SHIFT = "1/2"  # weight c of the shared component of the conditional law (simulator's ``c``)
PERM_VALUES = ("-1", "-1/3", "1/2", "1")  # the permutation law of the identity claim (N = 4)


@dataclass(frozen=True)
class TokenLaw:
    """A token law of the identity claims, as one object: how the simulator draws it, its exact
    pair moments (the derivation) for a test function h, and how the Monte Carlo averages R_h²."""

    name: str
    #: N -> the simulator's law (d = 1)
    simulator: Callable
    #: h -> exact (m2, c) as SymPy numbers
    moments: Callable
    #: every sample's token average of R_h² is the same (a permutation of fixed values): the
    #: Monte Carlo uses the first token, to keep a genuine standard error
    first_token: bool = False

    def __str__(self):
        return self.name


def _pair_moments(name: str):
    """h -> exact (m2, c) under the derivation's law called ``name``."""
    import sympy as sp

    def moments(h):
        co = _deriv("coercivity")
        return co.pair_moments(h, co.law_by_name(name), sp.Rational(SHIFT))
    return moments


def _permutation(N: int):
    vals = np.array([float(Fraction(v)) for v in PERM_VALUES])
    if N != len(vals):
        raise ValueError("the permutation law of this claim has N = 4")
    return _sim().Permutation(vals)


def _permutation_moments(h):
    import sympy as sp

    return _deriv("coercivity").pair_moments_finite(h, tuple(sp.Rational(v) for v in PERM_VALUES))


#: the token laws of the identity claims (the simulator's laws, ``TOKEN_LAWS`` of Paper B's vocabulary)
UNIFORM = TokenLaw("uniform", lambda N: _sim().UniformCube(), _pair_moments("uniform"))
GAUSSIAN = TokenLaw("gaussian", lambda N: _sim().Gaussian(variance="unit"), _pair_moments("gaussian"))
CONDITIONAL = TokenLaw("conditional", lambda N: _sim().Conditional(c=float(Fraction(SHIFT))),
                       _pair_moments("conditional"))
PERMUTATION = TokenLaw("permutation", _permutation, _permutation_moments, first_token=True)
LAWS = {law.name: law for law in (UNIFORM, GAUSSIAN, CONDITIONAL, PERMUTATION)}
#: the simulator's laws of the d > 1 cases
VECTOR_LAWS = {"gaussian": lambda: _sim().Gaussian(), "uniform": lambda: _sim().UniformCube()}
