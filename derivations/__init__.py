"""Pure SymPy derivations of the results of Paper A and Paper B.

Nothing in this package imports NumPy or anything from :mod:`numerics`: it is the
mathematics only.  Every derived result is an :class:`~derivations.core.Equation` that
knows its paper reference, its LaTeX and its free parameters.
"""
from derivations.core import Equation, Mutant, derivation, mutant, mutated, step

__all__ = ["Equation", "Mutant", "derivation", "mutant", "mutated", "step"]
