"""Paper A's registration: its claims, figures, solvable problem and benchmark."""
from __future__ import annotations

from numerics.paper import Paper, gather


def _claims():
    from numerics.claims.paper_a import (after_training, alignment, capacity, conjecture1, fig1_trained, gradient,
                                         protocol, representation)

    return gather("CLAIMS", after_training, alignment, capacity, conjecture1, fig1_trained, gradient, protocol,
                  representation)


def _figures():
    from numerics.figures.paper_a import alignment, fig1, representation

    return gather("FIGURES", alignment, fig1, representation)


def _problems():
    from numerics.problems.paper_a import sparse_token

    return gather("PROBLEMS", sparse_token)


def _benchmarks():
    from numerics.benchmarks.paper_a import equations

    return gather("BENCHMARKS", equations)


PAPER = Paper(prefix="A", title="High-Dimensional Analysis of Single-Layer Attention for Sparse-Token "
                                "Classification (Barnfield, Cui, Lu; arXiv 2509.25153)",
              claims=_claims, figures=_figures, problems=_problems, benchmarks=_benchmarks)
