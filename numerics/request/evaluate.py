"""``eval`` and ``eval --certify``: a claim's closed forms at the user's parameters, priced
before they are computed, returned as Values or as certified balls."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from numerics.core import resources
from numerics.core.params import ParameterError
from numerics.core.precision import DPS
from numerics.request.find import claim, evaluable
from numerics.request.validate import MAX_POINTS, dps, python_name


class EvaluationError(ArithmeticError):
    """A closed form that could not be evaluated at valid parameters (a numerical failure, not
    bad input), or that gave a non-finite value: never returned as a result."""


@dataclass
class Evaluation:
    """A claim's closed forms at the user's parameters: ``values`` ({name: Value}, or {name:
    object array of Values} when parameters were arrays), ``raw`` (the evaluator's own dict, for
    a single point), the validated ``params`` and ``dps``."""

    claim_id: str
    params: dict
    dps: int
    values: dict
    raw: dict | None = None
    shape: tuple | None = None

    def __getitem__(self, key):
        return self.values[key]


def _one(c, values: dict, digits: int) -> dict:
    import mpmath

    try:
        out = c.evaluate(values, digits)
    except ParameterError:
        raise
    except (ArithmeticError, ValueError) as e:  # numerical failure, not bad input
        raise EvaluationError(f"{c.id} could not be evaluated at these parameters: {e}") from None
    bad = [k for k, v in out.items() if not isinstance(v, (bool, int)) and not mpmath.isfinite(v)]
    if bad:  # a non-finite value is never returned as a result
        raise EvaluationError(f"{c.id}: non-finite value for {', '.join(bad)} at these parameters")
    return out


def evaluate(claim_id, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name, announce=None,
             max_memory=None, max_time=None) -> Evaluation:
    """Validate and evaluate.  A parameter given as a numpy array (or several, broadcast
    together) evaluates the claim elementwise through its mpmath evaluator: every point is
    validated and priced before any is computed, and each output is an object array of Values
    of the broadcast shape (``np.asarray(a, dtype=float)`` gives the floats)."""
    import numpy as np

    from numerics.core import value as V

    c = evaluable(claim_id)
    digits = dps(dps_, c, spell)
    arrays = {k: v for k, v in params.items() if isinstance(v, np.ndarray)}
    if not arrays:
        values = c.param_space.validate(params)
        resources.check_cost(resources.priced(c.cost, values, what=f"evaluate of {c.id}"), announce=announce,
                   max_memory=max_memory, max_time=max_time)
        raw = _one(c, values, digits)
        return Evaluation(c.id, values, digits, V.values(raw, digits), raw)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        raise ParameterError(f"array parameters {', '.join(arrays)} do not broadcast together: "
                             f"shapes {', '.join(str(a.shape) for a in arrays.values())}") from None
    if math.prod(shape) == 0:
        raise ParameterError(f"array parameters {', '.join(arrays)}: no points (an empty array)")
    if math.prod(shape) > MAX_POINTS:
        raise ParameterError(f"array parameters {', '.join(arrays)}: {math.prod(shape)} points requested; "
                             f"at most {MAX_POINTS} per request")
    grids = {k: np.broadcast_to(a, shape) for k, a in arrays.items()}
    points = []
    for idx in np.ndindex(shape):
        point = {**params, **{k: g[idx].item() for k, g in grids.items()}}
        points.append(c.param_space.validate(point))
    if c.cost is not None:
        resources.check_cost(resources.many([c.cost(p) for p in points], what=f"evaluation at {len(points)} points"),
                   announce=announce, max_memory=max_memory, max_time=max_time)
    results = [V.values(_one(c, p, digits), digits) for p in points]
    out = {}
    for key in results[0]:
        arr = np.empty(len(results), dtype=object)
        arr[:] = [r[key] for r in results]
        out[key] = arr.reshape(shape)
    validated = {**points[0], **{k: np.broadcast_to(a, shape).copy() for k, a in arrays.items()}}
    return Evaluation(c.id, validated, digits, out, None, shape)


def certify(claim_id, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name,
            timings: dict | None = None) -> tuple[dict, dict]:
    """``(validated params, {name: Ball})``: rigorous enclosures, each narrower than
    10^-(dps-3) (``numerics.theory.certify``); raises ParameterError for a claim without a
    certifier (the one place that refuses it: the theory's ``certify`` takes a certifiable
    claim), EvaluationError when no certificate is found."""
    from numerics.theory import certify as cert

    c = claim(claim_id)
    if not cert.certifiable(c):  # the claim itself: its evaluator runs under the arb context
        raise ParameterError(f"claim {c.id} cannot be certified; certifiable claims: {', '.join(cert.certifiable_ids())}")
    digits = dps(dps_, None, spell)
    values = c.param_space.validate(params)
    from numerics.core.arb import ArbPrintError, CertifyError

    try:
        return values, cert.certify(c.id, values, digits, timings=timings)
    except ParameterError:
        raise
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        raise EvaluationError(f"{c.id} could not be certified at these parameters: {e}") from None
