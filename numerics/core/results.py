"""The one result type of every solver (the driver and the solvers: :mod:`numerics.core.solve`).

Every numerical solve in attncheck (the step-4 equations in float64 and their mpmath polish, the
capacity maximisation, the hard-max oracle search, the ERM fits) returns a :class:`Solution`:
the value, a :class:`RESULTS` code, the iteration count, the residual, and free-form stats.
A non-converged iterate is never handed back as a value: ``Solution.value`` raises unless the
result is ``successful``, and ``throw=True`` (the default of
:func:`numerics.core.solve.iterate`) raises :class:`SolveError` at once.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


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
    def status(self) -> str:
        """The result and the solver's message, as one line: ``converged (float64: ...)``."""
        return self.result.value + (f" ({self.message})" if self.message else "")

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
