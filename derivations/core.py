"""The :class:`Equation` object: one named, referenced, exact statement."""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp


@dataclass(frozen=True)
class Equation:
    """``lhs = rhs``, exact, with where it comes from.

    ``name``       stable id (usually the claim id or a sub-step of it).
    ``lhs``        a SymPy expression or symbol naming the quantity.
    ``rhs``        the exact SymPy expression (constants stay exact).
    ``reference``  the paper item it encodes, or our docs page for [derived] results.
    ``params``     the free parameters, in the order evaluators take them.
    ``note``       one line: what it is, and whether it is the paper's or ours.
    """

    name: str
    lhs: sp.Basic
    rhs: sp.Basic
    reference: str
    params: tuple[sp.Symbol, ...] = ()
    note: str = ""
    status: str = "derived"  # "paper" | "derived" | "erratum"
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        if self.status not in ("paper", "derived", "erratum"):
            raise ValueError(f"Equation.status must be paper|derived|erratum, got {self.status!r}")
        missing = self.rhs.free_symbols - set(self.params) if self.params else set()
        if missing:
            raise ValueError(
                f"{self.name}: rhs has free symbols {sorted(map(str, missing))} not listed in params"
            )

    def latex(self) -> str:
        return f"{sp.latex(self.lhs)} = {sp.latex(self.rhs)}"

    def as_eq(self) -> sp.Eq:
        return sp.Eq(self.lhs, self.rhs, evaluate=False)

    def subs(self, values: dict) -> sp.Basic:
        """The right-hand side with (some) parameters substituted exactly."""
        return self.rhs.subs(values)
