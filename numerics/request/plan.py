"""``sweep``: a grid of a claim's closed forms or of a problem's solve, every point validated
and the whole priced before any is computed."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from numerics import registry
from numerics.core import resources
from numerics.core.params import ParameterError
from numerics.core.precision import DPS
from numerics.request.find import evaluable
from numerics.request.validate import MAX_POINTS, dps, options, python_name, workers


@dataclass
class SweepPlan:
    target: object  # numerics.sweep.Target
    grid: dict  # name -> list of raw values (fixed parameters as one-element lists)
    points: int
    cost: object  # numerics.core.resources.Estimate


def plan_sweep(target: str, grid: Mapping, fixed: Mapping, given_options: Mapping, dps_=DPS.default, *,
               workers_: int = 1, spell: Callable = python_name) -> SweepPlan:
    """A sweep of a claim's closed forms or of a problem's solve over the Cartesian product of
    ``grid`` ({name: list of values}) with ``fixed`` parameters: every point validated and the
    whole priced before any is computed."""
    from numerics import sweep as SW

    try:  # a target that is neither a claim (read from the index) nor a problem: refused before the claims load
        registry.check_ids([target] if isinstance(target, str) and target else [])
    except KeyError:
        if target not in registry.problems():
            raise ParameterError(f"unknown sweep target {target!r}: a claim id with 'eval' in `attncheck list`, or "
                                 f"a problem ({', '.join(registry.problems())})") from None
    claims, problems = registry.claims(), registry.problems()
    digits = dps(dps_, None, spell)
    n_workers = workers(workers_, spell)
    if target in claims:
        c = evaluable(target)
        if any(v is not None for v in given_options.values()):
            raise ParameterError(f"{spell('model')}/{spell('loss')} are options of a problem, not of a claim")
        dps(digits, c, spell)
        space, opts, price = c.param_space, {}, c.cost
    elif target in problems:
        spec = problems[target]
        opts = options(spec, given_options, spell)
        space = spec.param_space
        price = (lambda v: spec.cost(opts, v)) if spec.cost is not None else None
    else:
        raise ParameterError(f"unknown sweep target {target!r}: a claim id with 'eval' in `attncheck list`, or a "
                             f"problem ({', '.join(problems)})")
    if not grid:
        raise ParameterError("sweep needs at least one grid parameter")
    clash = sorted(set(fixed) & set(grid))
    if clash:
        raise ParameterError(f"parameter {clash[0]} is both fixed and swept")
    grid = {k: [str(x) if not isinstance(x, str) else x for x in v] for k, v in grid.items()}
    n = math.prod(len(v) for v in grid.values())
    if n > MAX_POINTS:
        raise ParameterError(f"grid: {n} points requested; at most {MAX_POINTS} per sweep")
    pts = [{**fixed, **p} for p in SW.points(grid)]
    checked = [space.validate(p) for p in pts]
    cost = resources.many([price(v) for v in checked] if price else [], n_workers, what=f"sweep of {len(pts)} points")
    tgt = SW.Target("claim" if target in claims else "problem", target, tuple(sorted(opts.items())))
    return SweepPlan(tgt, {**{k: [str(v)] for k, v in fixed.items()}, **grid}, len(pts), cost)
