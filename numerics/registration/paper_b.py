"""Paper B's registration: its claims, figure and benchmark (no solvable problem)."""
from __future__ import annotations

from numerics.paper import Paper, gather


def _claims():
    from numerics.claims.paper_b import identities, lemmas, rates, schedules

    return gather("CLAIMS", identities, lemmas, rates, schedules)


def _figures():
    from numerics.figures.paper_b import fig1

    return gather("FIGURES", fig1)


def _benchmarks():
    from numerics.benchmarks.paper_b import erm

    return gather("BENCHMARKS", erm)


PAPER = Paper(prefix="B", title="Minimax Rates for Learning Pairwise Interactions in Attention-Style Models "
                                "(Zucker, Wang, Lu, Seroussi; arXiv 2510.11789)",
              claims=_claims, figures=_figures, benchmarks=_benchmarks)
