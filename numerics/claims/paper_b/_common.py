"""What the Paper B claims share: lazy access to the derivations, the theory and the
simulator, and the estimators and allowances every row uses."""
from __future__ import annotations

from importlib import import_module

import numpy as np

from numerics.core.stats import mean_se


PAPER = "B"


def _sim():
    return import_module("numerics.experiments.paper_b.interacting_particles")


def _deriv(name: str):
    return import_module(f"derivations.paper_b.{name}")


def _theory_module(name: str):
    """``numerics.theory.paper_b.<name>``, imported on first use (it imports the derivations;
    ``attncheck list`` should not pay for them).  The one lazy accessor of the Paper B claims."""
    return import_module(f"numerics.theory.paper_b.{name}")


def _th():
    return _theory_module("identities")


def _equations(module: str):
    """A zero-argument callable returning the equations of a derivation module (imported on
    first use; see Claim.get_equations)."""
    return lambda: _deriv(module).equations()


def _mean_se(values: np.ndarray) -> tuple[float, float, int]:
    v = np.asarray(values, dtype=float).ravel()
    m, se = mean_se(v)
    return float(m), float(se), int(v.size)


def _rounding_allowance(*terms: np.ndarray) -> float:
    """Float64 rounding bound for a sum of products evaluated two ways: 1e-12 times the sum
    of absolute values of the terms (>> N eps per term, << any 5% mutation)."""
    return 1e-12 * float(sum(np.abs(t).sum() for t in terms))


def _precision(settings, value: float) -> float:
    """What evaluating a theory value at ``settings.dps`` digits may change it by, scaled by the
    experiment's value (never the theory's): 10^(1 - dps) |value|.  Below float64 rounding
    for dps >= 17; it keeps a deterministic row meaningful at a low ``--dps``."""
    return 10.0 ** (1 - settings.dps) * abs(float(value))


def _h(name: str):
    """A test function of ``coercivity`` as a vectorised pair function (d = 1)."""
    co = _deriv("coercivity")
    return _th().pair_function(getattr(co, name), (co.x1, co.x2))
