"""Paper C's registration: its claims, figure, solvable problem and benchmark."""
from __future__ import annotations

from numerics.paper import Paper, gather


def _claims():
    from numerics.claims.paper_c import baseline, branches, reference, simulation

    return gather("CLAIMS", baseline, branches, reference, simulation)


def _figures():
    from numerics.figures.paper_c import phase

    return gather("FIGURES", phase)


def _problems():
    from numerics.problems.paper_c import positional_semantic

    return gather("PROBLEMS", positional_semantic)


def _benchmarks():
    from numerics.benchmarks.paper_c import solver

    return gather("BENCHMARKS", solver)


PAPER = Paper(prefix="C", title="A phase transition between positional and semantic learning in a solvable model "
                                "of dot-product attention (Cui, Behrens, Krzakala, Zdeborová; arXiv 2402.03902)",
              claims=_claims, figures=_figures, problems=_problems, benchmarks=_benchmarks)
