"""A solvable problem for ``attncheck solve NAME``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class ProblemSpec:
    """``solve(options, params, dps) -> Solution`` (``numerics.core.results``): its ``result``
    (converged, suspect or failed), ``iterations``, ``residual`` and ``message``; ``raw`` the
    outputs as ``{name: Value}`` (each with the error it carries: a QMC standard error, or the
    digits of a polish), empty unless the solve converged; ``stats`` the descriptive fields
    (text).  Nothing is formatted here: the printers show the Values.  The CLI exits 1 and says so
    when the result is not ``converged`` — a non-converged iterate is never shown as a result."""

    name: str
    doc: str
    param_space: object
    solve: Callable
    options: dict = field(default_factory=dict)  # option name -> tuple of choices
    #: ``cost(options, params) -> numerics.core.resources.Estimate`` (optional): memory and time
    #: of a solve, from its sizes, checked before it runs
    cost: Callable | None = None
