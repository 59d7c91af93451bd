"""One result type and one iterate/terminate driver for every solver.

Every numerical solve in attncheck (the step-4 equations in float64 and their mpmath polish, the
capacity maximisation, the hard-max oracle search, the ERM fits) returns a :class:`Solution`:
the value, a :class:`RESULTS` code, the iteration count, the residual, and free-form stats.
A non-converged iterate is never handed back as a value: ``Solution.value`` raises unless the
result is ``successful``, and ``throw=True`` (the default of :func:`iterate`) raises
:class:`SolveError` at once.

A solver is a small object with three methods over an immutable state (the optimistix shape):

    init(x0)         -> state
    step(state)      -> state
    terminate(state) -> (done: bool, result: RESULTS)
    residual(state)  -> float   (what ``Solution.residual`` reports)
    value(state)     -> the solution value

:func:`iterate` owns the loop, the iteration limit and the typed outcome, so no solver writes
its own "keep the last iterate" loop.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Protocol


class RESULTS(enum.Enum):
    successful = "converged"
    max_steps_reached = "not converged: iteration limit reached"
    nonfinite = "not converged: non-finite iterate"
    singular = "not converged: singular Jacobian"
    no_bracket = "not converged: no sign change in the search interval"
    suspect = "suspect: converged, but an independent check disagrees"
    failed = "not converged"

    @property
    def ok(self) -> bool:
        return self is RESULTS.successful


class SolveError(RuntimeError):
    """A solve that did not produce a trustworthy value (``throw=True``)."""

    def __init__(self, solution: "Solution"):
        self.solution = solution
        super().__init__(f"{solution.result.value}{': ' + solution.message if solution.message else ''} "
                         f"(iterations {solution.iterations}, residual {solution.residual:.3g})")


@dataclass
class Solution:
    """What every solver returns."""

    result: RESULTS
    iterations: int
    residual: float
    raw: Any = None  # the final iterate, whatever the outcome (for diagnostics only)
    message: str = ""
    stats: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.result.ok

    @property
    def value(self):
        if not self.ok:
            raise SolveError(self)
        return self.raw

    def check(self, throw: bool = True) -> "Solution":
        if throw and not self.ok:
            raise SolveError(self)
        return self

    def downgrade(self, result: RESULTS, message: str) -> "Solution":
        """The same iterate with a worse status (e.g. ``suspect`` after a failed cross-check)."""
        return Solution(result, self.iterations, self.residual, self.raw,
                        "; ".join(x for x in (self.message, message) if x), dict(self.stats))


class Solver(Protocol):
    def init(self, x0) -> Any: ...
    def step(self, state) -> Any: ...
    def terminate(self, state) -> tuple[bool, RESULTS]: ...
    def residual(self, state) -> float: ...
    def value(self, state) -> Any: ...


def iterate(solver: Solver, x0, *, max_steps: int = 1000, throw: bool = True, message: str = "") -> Solution:
    """Run ``solver`` from ``x0`` until it terminates or ``max_steps`` steps were taken."""
    state = solver.init(x0)
    steps = 0
    while True:
        done, result = solver.terminate(state)
        if done:
            break
        if steps >= max_steps:
            result = RESULTS.max_steps_reached
            break
        state = solver.step(state)
        steps += 1
    res = float(solver.residual(state))
    if result.ok and not math.isfinite(res):
        result = RESULTS.nonfinite
    sol = Solution(result, steps, res, solver.value(state), message if not result.ok else "")
    return sol.check(throw)
