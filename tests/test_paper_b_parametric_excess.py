"""The price of learning A (derivations/paper_b/parametric_excess.py): the symbolic block
structure, the closed form V_A, its quadrature inputs, and an independent Monte Carlo of
tr(G Sigma^-1) over the numerical tangent basis."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import dblquad, quad

from derivations.paper_b import coercivity as CO
from derivations.paper_b import parametric_excess as PE
from numerics.theory.paper_b.rates import link_integrals, v_a
from numerics.experiments.paper_b.parametric_excess import parametric_prediction
from numerics.experiments.paper_b.rates import RateSetup, make_problem


def test_direction_trace_comes_from_the_coercivity_identity():
    N, g, c = PE.N, PE.g, PE.c
    cm, cc = CO.coefficients()
    assert sp.simplify(PE.direction_trace() - g / (cm * g + cc * c)) == 0
    assert sp.simplify(PE.direction_trace(g, 0) - (N - 1)) == 0  # zero conditional mean


def test_block_structure_for_a_coordinate_A():
    G, C = PE.gram_blocks()
    names = list(PE.features())
    for a in names:
        for b in names:
            if a != b:
                assert G[a, b] == 0 and C[a, b] == 0, (a, b)
    x0, y0 = PE.X[0], PE.Y[0]
    for k in (1, 2):
        assert C[f"col{k}", f"col{k}"] == 0  # column moves: E[f | X_1] = 0
        assert C[f"row{k}", f"row{k}"] != 0
        # (x0, y0) is an i.i.d. pair, so the two families have the same Gram entry g
        swapped = G[f"col{k}", f"col{k}"].subs({x0: y0, y0: x0}, simultaneous=True)
        assert sp.simplify(swapped - G[f"row{k}", f"row{k}"]) == 0


def test_v_a_closed_form_and_limits():
    two, zero_c, big_c = PE.v_a_limits()
    assert sp.simplify(two - 2 * (PE.d - 1)) == 0  # N = 2: the tangent dimension
    assert sp.simplify(zero_c - 2 * (PE.N - 1) * (PE.d - 1)) == 0
    assert sp.simplify(big_c - (PE.N - 1) * (PE.d - 1)) == 0
    assert PE.v_a().subs(PE.d, 1) == 0  # d = 1: nothing to learn on the sphere


def _problem():
    from numerics.core.seeding import seed_sequence

    return make_problem(RateSetup(P=3, d=5), seed_sequence(20260429, "B.rate", "P3", "problem"))


def test_link_integrands_are_the_gram_entries():
    """g and c integrands (with densities) are the row-move Gram entries of gram_blocks."""
    g_int, inner, outer, (x0, y0, m) = PE.link_integrands()
    G, C = PE.gram_blocks()
    s2 = PE.uniform_second_moment()
    assert s2 == sp.Rational(1, 3)
    assert sp.simplify(g_int - G["row1", "row1"].subs(PE.s2, s2) / 4) == 0
    # c = s2 E_x0 (E_y0 phi'(x0 y0) y0)^2: C's entry is s2 phi'(x0 y0) y0 phi'(x0 y0b) y0b
    y0b = sp.Symbol("y0b", real=True)
    assert sp.simplify(C["row1", "row1"].subs(PE.s2, s2) - 2 * outer.subs(m, 1)
                       * (2 * inner) * (2 * inner).subs(y0, y0b)) == 0


def test_link_integrals_against_scipy():
    dp = _problem().phi.derivative()
    g, c = link_integrals(_problem().phi)
    g_ref = dblquad(lambda y, x: dp(x * y) ** 2 * y**2 / 4, -1, 1, -1, 1, epsabs=1e-11)[0] / 3
    inner = lambda x: quad(lambda y: dp(x * y) * y / 2, -1, 1, epsabs=1e-12, limit=200)[0]
    c_ref = quad(lambda x: inner(x) ** 2 / 2, -1, 1, epsabs=1e-11, limit=200)[0] / 3
    assert g == pytest.approx(g_ref, rel=1e-8)
    assert c == pytest.approx(c_ref, rel=1e-7)


@pytest.mark.parametrize("d", [5, 30])
def test_closed_form_matches_monte_carlo_trace(d):
    """V_full - V_oracle of parametric_excess.parametric_prediction (numerical tangent basis,
    populations of simulated tokens, no use of the closed form) agrees with V_A to within its
    Monte Carlo error (2 populations; 4 se, plus 2 % for the test-pair vs population Gram)."""
    setup = RateSetup(P=3, d=d, N=4, n_values=(14,), c=3.0, seeds=2)
    from numerics.core.seeding import seed_sequence

    pred = parametric_prediction(setup, np.random.SeedSequence(3), M_pop=12_000, halves=2,
                                 problem=seed_sequence(20260429, "B.rate", "P3", "problem"))
    theory = v_a(_problem().phi, 4, d)
    assert pred.p == 2 * d - 2
    assert abs(pred.excess[0] - theory) <= 4 * pred.excess_se[0] + 0.02 * theory, (pred.excess, theory)
    assert abs(pred.excess_pooled[0] - theory) <= 4 * pred.excess_se[0] + 0.02 * theory, (pred.excess_pooled, theory)
    # ... and rejects the naive parameter count and the zero-conditional-mean value
    assert abs(pred.p - theory) > 0.2 * theory and abs(3 * pred.p - theory) > 0.1 * theory
