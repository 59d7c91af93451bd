"""The rate under explicit schedules (derivations/paper_b/holder_edge.py,
rate_schedule.variance_slope_schedule, numerics/experiments/paper_b/schedules.py): the
derivation's exponents, the kink remark, the grids, and the claim's "other schedules are
slower" (reusing the claim's memoised experiment)."""
import numpy as np
import pytest
import sympy as sp

from derivations.paper_b import holder_edge as H
from derivations.paper_b import rate_schedule as RS
from numerics.core.params import ParameterError
from numerics.experiments.paper_b.schedules import ScheduleSetup, link_model, run_schedule


def test_bias_exponent_is_twice_the_hoelder_index():
    assert sp.simplify(H.bias_exponent() - 2 * H.beta) == 0
    assert sp.simplify(H.bias_slope() + 2 * H.beta) == 0
    assert sp.simplify(H.schedule_exponent() - 1 / (2 * H.beta + 1)) == 0
    assert sp.simplify(H.exponent() + 2 * H.beta / (2 * H.beta + 1)) == 0


def test_bias_bound_is_a_power_of_K_up_to_a_vanishing_term():
    """bias^2(j) b^{2 beta j} -> a constant (the geometric sums, at exact numbers)."""
    vals = {H.b: 2, H.beta: sp.Rational(3, 4), H.s: 2}
    scaled = [sp.N((H.bias() * H.b ** (2 * H.beta * H.j)).subs(vals).subs(H.j, j)) for j in (4, 8, 16)]
    assert abs(scaled[2] - scaled[1]) < abs(scaled[1] - scaled[0]) and abs(scaled[2] - scaled[1]) < 1e-3


def test_other_schedules_are_slower_asymptotically():
    f = sp.lambdify(H.a, H.schedule_slope().subs(H.beta, sp.Rational(3, 4)))
    best = float(H.exponent().subs(H.beta, sp.Rational(3, 4)))
    assert f(0.4) == pytest.approx(best)
    for a in (0.0, 0.2, 0.3, 0.5, 0.7):
        assert f(a) > best + 1e-9
    assert f(0.0) == 0.0 and f(0.5) == -0.5


def test_kink_cell_error_matches_quadrature():
    """e_s(beta) = min over degree-s p of int_{-1}^{1} (|t|^beta - p)^2, checked by a numerical
    least-squares fit; the kink's squared error is then (h/2)^{2 beta + 1} e_s: K^{-(2 beta + 1)}."""
    for s, beta in ((2, 0.75), (1, 1.5), (3, 0.5)):
        e = float(H.kink_cell_error(s).subs(H.beta, beta))
        t, w = np.polynomial.legendre.leggauss(400)
        # |t|^beta is not smooth at 0: split the rule at 0
        t = np.concatenate([(t - 1) / 2, (t + 1) / 2]); w = np.concatenate([w, w]) / 2
        V = np.vander(t, s + 1)
        c = np.linalg.lstsq(V * np.sqrt(w)[:, None], np.abs(t) ** beta * np.sqrt(w), rcond=None)[0]
        num = float(np.sum(w * (np.abs(t) ** beta - V @ c) ** 2))
        assert e == pytest.approx(num, rel=1e-6, abs=1e-12)


def test_legendre_moment_is_the_integral():
    """The product form of the moment against SymPy's integral of the expanded P_n."""
    t = sp.Symbol("t", positive=True)
    for n in range(0, 9, 2):
        direct = 2 * sp.integrate(t ** H.beta * sp.legendre(n, t), (t, 0, 1))
        assert sp.cancel(direct - H.legendre_moment(n)) == 0, n


def test_kink_bias_exponent():
    assert sp.simplify(H.kink_bias_exponent() - (2 * H.beta + 1)) == 0


def test_variance_slope_of_a_schedule():
    assert sp.simplify(RS.variance_slope_schedule() - (RS.a - 1)) == 0


def test_schedule_setup_checks():
    with pytest.raises(ParameterError):
        ScheduleSetup(P=2, K_values=(8, 16), M_values=(100,)).check()
    with pytest.raises(ParameterError):
        ScheduleSetup(P=2, K_values=(0, 16), M_values=(100, 200)).check()
    s = ScheduleSetup(P=2, K_values=(8, 16), M_values=(100, 200))
    s.check()
    assert s.n_values == [10, 18] and s.pieces() == [8, 16] and s.Ms == [100, 200]


@pytest.mark.parametrize("field", ["d", "N", "sigma"])
def test_a_schedule_refuses_a_setup_that_is_not_its_model(field):
    """The setup's d, N and sigma are what the run reports: they must be the model's."""
    model = link_model(np.cos, 5, 4, 0.5, np.random.SeedSequence(0))
    fields = {"d": 5, "N": 4, "sigma": 0.5}
    run_schedule(ScheduleSetup(P=2, K_values=(1, 2), M_values=(8, 16), seeds=2, n_test=50, g_pairs=200, **fields),
                 np.random.SeedSequence(1), model, M_pop=50, halves=2)
    fields[field] = {"d": 1, "N": 3, "sigma": 0.25}[field]
    with pytest.raises(ValueError, match=r"the setup's \(d, N, sigma\)"):
        run_schedule(ScheduleSetup(P=2, K_values=(1, 2), M_values=(8, 16), **fields), np.random.SeedSequence(1),
                     model, M_pop=50)


def test_claim_other_schedules_are_slower_than_the_optimal_one(quick_evidence):
    """At quick size: the measured slopes of K fixed and K ∝ M^{1/2} lie above (are slower
    than) the optimal schedule's bootstrap CI (the session's one quick collection of the claim,
    tests/conftest.py)."""
    from numerics import registry

    ev = quick_evidence(registry.claims()["B.rate.holder_edge"])
    opt = ev.details["optimal K ∝ M^(1/(2beta+1))"]
    for label in ("K fixed = 16", "K ∝ M^(1/2)"):
        other = ev.details[label]
        assert other["slope_ci95"][0] > opt["slope_ci95"][1], (label, other["slope_ci95"], opt["slope_ci95"])


@pytest.mark.parametrize("beta, s, refused", [(1.0, 0, True), (0.999, 0, False), (2.0, 1, True), (1.5, 1, False),
                                              (2.999, 2, False), (3.0, 2, True)])
def test_the_hoelder_edge_evaluates_where_the_pieces_are_smoother_than_phi_only(beta, s, refused):
    """The bias exponent 2 beta needs pieces of degree s with s + 1 > beta: at s + 1 = beta the
    evaluation is refused with the parameter and the condition, just below it is evaluated."""
    import attncheck

    if refused:
        with pytest.raises(ParameterError, match=rf"parameter s: need s \+ 1 > beta = {beta}, got s = {s}"):
            attncheck.evaluate("B.rate.holder_edge", beta=beta, s=s)
    else:
        assert attncheck.evaluate("B.rate.holder_edge", beta=beta, s=s)
