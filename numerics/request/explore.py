"""``explore`` and ``mutate`` requests: the chosen claims and a bounded budget."""
from __future__ import annotations

import math
import numbers
from typing import Callable, Mapping

from numerics.core.params import ParameterError
from numerics.request.find import select
from numerics.request.validate import integer, python_name, settings, workers


def explore_request(ids, examples, max_shrinks, spell: Callable = python_name, within: Mapping | None = None):
    """``explore``: the chosen claims (all for none; a claim without a ``point_space`` runs its
    design), and the budget is bounded; returns the claims.  ``within`` (parameters pinned,
    ``explore --param``): each chosen claim must take every one of them; returns ``(claims,
    pinned values)`` then."""
    chosen = select(ids)
    integer("examples", examples, 1, 1000, spell)
    integer("shrinks", max_shrinks, 0, 1000, spell)
    if within is None:
        return chosen
    pinned = {}
    for c in chosen:
        space = c.point_space
        if space is None:
            raise ParameterError(f"claim {c.id} runs at its built-in design only and takes no {spell('param')}")
        unknown = sorted(set(within) - set(space.names))
        if unknown:
            raise ParameterError(f"claim {c.id}: unknown parameter(s) {', '.join(unknown)}; valid: "
                                 f"{', '.join(space.names)}")
        values = {n: space[n].parse(v) for n, v in within.items()}
        space.validate(values)  # with the defaults for the others: dependent endpoints, constraints
        pinned = pinned or values
    return chosen, pinned


def automatic_mutants(ids, mode_: str = "quick", seed_=None, *, sample=100, sample_seed=0, workers_=1,
                      budget=30.0, spell: Callable = python_name) -> tuple:
    """A validated ``mutate`` request: ``(claims, settings, sample, sample seed, workers, budget)``
    (``budget``: seconds per mutant, > 0, or None for no limit)."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, numbers.Real)
                               or not math.isfinite(budget) or budget <= 0):
        raise ParameterError(f"{spell('budget')} must be a number of seconds > 0, got {budget!r}")
    return (select(ids), settings(mode_, seed_), integer("sample", sample, 1, None, spell),
            integer("sample_seed", sample_seed, 0, None, spell), workers(workers_, spell), budget)
