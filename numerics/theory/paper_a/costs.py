"""Memory and time of the attention computations of Paper A, from their sizes (for
``numerics.core.resources``): imported without SymPy, so that a request is refused at once.

The constants are calibrated on this project's code (logistic loss, L = 10, one core):

* the attention law (``laws.attention_law``): the SymPy reduction has L^2 softmax terms, its
  build and compilation take ~16 s (L/60)^2.4; each point costs ~1.6e-8 s L^2; the point set
  of one class and scrambling ~8 (4 L + 50) bytes a point; the law keeps ~96 bytes a point;
* the step-4 equations (``erm_equations.Equations``): ~400 bytes per element (point x zeta
  node); a law of more than ``CHUNK_ELEMENTS`` elements is processed in row blocks, so the
  working memory is bounded; ~2e-3 s a point for ``solve_with_error`` (Newton x zeta
  refinement x the re-solve on every scrambling), 2.5 times that in blocks (the proximal
  points are then not kept between Newton steps);
* the attention capacity (``capacity.attention_capacity``): ~400 bytes and ~5e-5 s a point.
"""
from __future__ import annotations

from numerics.core.resources import BASE_BYTES, SOBOL_MAX_DIM, Estimate, within

#: points x zeta nodes evaluated at once by the step-4 equations
CHUNK_ELEMENTS = 2**22
BYTES_PER_ELEMENT = 400
#: zeta nodes the refinement typically ends with for the logistic loss (step 1/16 on [-8.6, 8.6])
TYPICAL_NODES = 277


def check_L(L) -> None:
    within("L", int(L), 2, SOBOL_MAX_DIM, "the dimension limit of the Sobol sequence: one dimension per token")


def attention_law_cost(L: int, log2_points: int, n_scrambles: int) -> Estimate:
    """Memory and time of ``laws.attention_law``; raises ResourceError when L is beyond the
    Sobol dimension limit."""
    check_L(L)
    n = 2.0**log2_points
    points = 2 * n * n_scrambles
    return Estimate(bytes=8 * (4 * L + 50) * n + 96 * points,
                    seconds=0.5 + 16.0 * (L / 60.0) ** 2.4 + 1.6e-8 * L * L * points,
                    knobs=("L", "log2_points", "n_scrambles"), what="attention law",
                    parts={"qmc_points": points, "L": L})


def equations_cost(points: float, n_scrambles: int) -> Estimate:
    """Memory and time of ``erm_equations.solve_with_error`` on a law of ``points`` points (the
    scrambling subsets add ~96 bytes a point / n_scrambles)."""
    elements = points * TYPICAL_NODES
    work = min(elements, CHUNK_ELEMENTS) * BYTES_PER_ELEMENT
    seconds = 2e-3 * points * (2.5 if elements > CHUNK_ELEMENTS else 1.0)
    return Estimate(bytes=work + 96 * points / max(1, n_scrambles), seconds=seconds,
                    knobs=("log2_points", "n_scrambles"), what="step-4 equations")


def attention_solve_cost(L: int, log2_points: int, n_scrambles: int, what: str) -> Estimate:
    """The law and the equations on it, alive together."""
    law = attention_law_cost(L, log2_points, n_scrambles)
    eqs = equations_cost(law.parts["qmc_points"], n_scrambles)
    knobs = ("L", "log2_points", "n_scrambles") if law.seconds > eqs.seconds else ("log2_points", "n_scrambles", "L")
    return Estimate(BASE_BYTES + law.bytes + eqs.bytes, law.seconds + eqs.seconds, knobs, what, law.parts)


def attention_capacity_cost(L: int, log2_points: int, n_rep: int, knobs=("L",)) -> Estimate:
    law = attention_law_cost(L, log2_points, n_rep)
    P = law.parts["qmc_points"]
    return Estimate(BASE_BYTES + law.bytes + 400 * P, law.seconds + 5e-5 * P, knobs, "attention capacity",
                    law.parts)
