"""The driver of every solver: :func:`iterate` owns the loop, the iteration limit and the
typed outcome; :func:`finite` and :func:`inside` are the checks the solvers share."""
from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from numerics.core.results import RESULTS, Solution


class Solver(Protocol):
    def init(self, x0) -> Any: ...
    def step(self, state) -> Any: ...
    def terminate(self, state) -> tuple[bool, RESULTS]: ...
    def residual(self, state) -> float: ...
    def value(self, state) -> Any: ...


def iterate(solver: Solver, x0, *, max_steps: int = 1000, throw: bool = True, message: str = "") -> Solution:
    """Run ``solver`` from ``x0`` until it terminates or ``max_steps`` steps were taken.  A
    solver that does its work in one library call reports its own count (``iterations(state)``)
    and may say why it failed (``explain(state)``, appended to ``message``).  Each step is
    reported to the command's progress reporter (``numerics.core.tasks.progress``)."""
    from numerics.core.tasks import progress

    state = solver.init(x0)
    steps, label = 0, f"solver {type(solver).__name__}"
    while True:
        done, result = solver.terminate(state)
        if done:
            break
        if steps >= max_steps:
            result = RESULTS.max_steps_reached
            break
        state = solver.step(state)
        steps += 1
        progress(label, steps)  # the command's progress reporter, if one is installed (no end known)
    res = float(solver.residual(state))
    if result.ok and not math.isfinite(res):
        result = RESULTS.nonfinite
    count, explain = getattr(solver, "iterations", None), getattr(solver, "explain", None)
    steps = count(state) if callable(count) else steps
    if result.ok:
        message = ""
    elif callable(explain) and explain(state):
        message = "; ".join(m for m in (message, explain(state)) if m)
    sol = Solution(result, steps, res, solver.value(state), message)
    return sol.check(throw)


def finite(v) -> bool:
    """Every entry of ``v`` (a number, mpf or array; None counts as not finite) is finite."""
    if v is None:
        return False
    if isinstance(v, (list, tuple)):
        return all(finite(x) for x in v)
    if type(v).__module__.startswith("mpmath"):
        import mpmath

        return bool(mpmath.isfinite(v))
    return bool(np.all(np.isfinite(v)))


def inside(x, bounds, margin: float = 0.0) -> bool:
    """x lies in the open box ``bounds`` ((lo, hi), None = unbounded), ``margin`` from its faces."""
    for xi, (lo, hi) in zip(x, bounds):
        if (lo is not None and not xi > lo + margin) or (hi is not None and not xi < hi - margin):
            return False
    return True
