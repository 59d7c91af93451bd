"""A solvable problem for ``attncheck solve NAME``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class ProblemSpec:
    """``solve(options, params, dps) -> dict``.  The result dict must contain ``converged``
    (bool), ``status`` (str), ``iterations`` (int) and ``residual`` (float); the CLI exits 1 and
    says so when ``converged`` is False — a non-converged iterate is never shown as a result."""

    name: str
    doc: str
    param_space: object
    solve: Callable
    options: dict = field(default_factory=dict)  # option name -> tuple of choices
    #: ``cost(options, params) -> numerics.core.resources.Estimate`` (optional): memory and time
    #: of a solve, from its sizes, checked before it runs
    cost: Callable | None = None
