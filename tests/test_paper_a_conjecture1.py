"""A.capacity.conjecture1_fails: the pieces (the claim itself runs once, at quick size, in
tests/test_claims_catalogue.py; the original theory/simulation checks of the counterexample
stay in tests/test_paper_a_capacity.py::test_conjecture1_*)."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

from numerics.theory.paper_a import capacity as ncap
from numerics.experiments.paper_a.capacity_finite_size import fit_finite_size
from numerics.claims.paper_a import capacity as cap
from numerics.claims.paper_a import conjecture1 as c1
from numerics.core.params import ParameterError

CLAIM = c1.CLAIMS[0]


def test_claim_metadata():
    assert CLAIM.id == "A.capacity.conjecture1_fails" and CLAIM.status == "beyond"
    assert CLAIM.param_space.defaults() == {"L": 10, "R": 1, "pi": 0.5, "theta": 6.0, "s_q": 0.9,
                                            "gamma": 1.0}
    assert "delta" in CLAIM.allowance_note and CLAIM.get_equations()


@pytest.mark.parametrize("bad", [{"s_q": "1.5"}, {"gamma": "-1"}, {"theta": "-2"}, {"R": "11"},
                                 {"pi": "1"}, {"L": "1"}, {"s_q": "abc"}, {"foo": "1"}])
def test_bad_params_one_line(bad):
    with pytest.raises(ParameterError) as e:
        CLAIM.param_space.validate(bad)
    msg = str(e.value)
    assert "\n" not in msg and next(iter(bad)) in msg


def test_evaluate_upper_counterexample_digits():
    """Defaults (theta = 6, s_q = 0.9, gamma = 1): closed forms to the requested digits (a
    30-digit evaluation agrees with a 50-digit one; alpha_vec = L alpha_pool exactly), and the
    RQMC alpha*_A exceeds alpha*_vec by many standard errors."""
    p = CLAIM.param_space.validate({})
    out = CLAIM.evaluate(p, 30)
    hi = ncap.closed_form_capacity(ncap.VEC, 10, 1, 0.5, 6.0, 50).alpha
    with mpmath.workdps(60):
        assert abs(out["alpha_vec"] - hi) < mpmath.mpf(10) ** -28 * hi
        assert abs(out["alpha_vec"] - 10 * out["alpha_pool"]) < mpmath.mpf(10) ** -27 * hi
    assert abs(float(out["alpha_vec"]) - 34.845) < 1e-3
    assert out["alpha_A - alpha_vec"] > 10 * out["alpha_A_rqmc_se"] > 0
    assert out["upper_fails (alpha_A > alpha_vec + 3 se)"] == 1
    assert out["lower_fails (alpha_A < alpha_pool - 3 se)"] == 0


def test_evaluate_lower_counterexample():
    p = CLAIM.param_space.validate({"theta": "5", "s_q": "0", "gamma": "2"})
    out = CLAIM.evaluate(p, 20)
    assert out["alpha_pool - alpha_A"] > 10 * out["alpha_A_rqmc_se"] > 0
    assert out["lower_fails (alpha_A < alpha_pool - 3 se)"] == 1
    assert out["upper_fails (alpha_A > alpha_vec + 3 se)"] == 0


def test_finite_size_constants_come_from_the_recorded_fits():
    """FINITE_SIZE (delta, u) of every setting = the theory-free fit of the recorded study
    points (cap.FINITE_SIZE_STUDY), u = 2 se(delta) rounded up; and the allowance shrinks like
    1/(D + 1 + delta)."""
    assert set(cap.FINITE_SIZE) == set(cap.FINITE_SIZE_STUDY)
    for key, study in cap.FINITE_SIZE_STUDY.items():
        pts = np.array([p[:4] for p in study["points"]], dtype=float)
        a, a_se, dl, dl_se, chi2 = fit_finite_size(pts[:, 1], pts[:, 2], pts[:, 3])
        delta, u = cap._fs(*key)
        assert delta == pytest.approx(dl, abs=0.01), key
        assert 2 * dl_se <= u <= 2 * dl_se + 0.05, key
        assert chi2 == pytest.approx(study["chi2"], abs=0.01)
        assert (a, a_se) == pytest.approx(study["alpha_inf"], rel=3e-3)
        assert (dl, dl_se) == pytest.approx(study["delta"], abs=2e-3)
        al = [cap._relative_allowance(key[0], D, *key[1:]) * (D + 1 + delta) for D in (10, 40, 160)]
        assert np.allclose(al, u)


def test_allowance_does_not_depend_on_the_theory_value():
    """A row's tolerance is the same whatever theory value it judges (the allowance is
    alpha_hat u/(D + 1 + delta) with the experiment's alpha_hat)."""
    from types import SimpleNamespace

    cross = SimpleNamespace(n_c=np.array([70.0, 80.0, 75.0, 72.0]), D=25, d=25)
    r1, r2 = cap.row("x", "pool", 2.95, cross), cap.row("x", "pool", 3.5, cross)
    assert (r1.mean, r1.se, r1.allowance) == (r2.mean, r2.se, r2.allowance)


def test_difference_row_combines_rows():
    from numerics.claims.base import Comparison

    a = Comparison("a", 80.0, 82.0, 3.0, 4.0, 100)
    b = Comparison("b", 30.0, 31.0, 4.0, 1.0, 50)
    r = c1._diff_row("a-b", a, b)
    assert (r.theory, r.mean, r.se, r.allowance, r.n) == (50.0, 51.0, 5.0, 5.0, 50)


@pytest.mark.slow
def test_finite_size_delta_low_setting():
    """Re-measure delta of the lower-inequality attention setting (smaller, other seed): it
    agrees with the documented constant within the combined uncertainty."""
    from numerics.experiments.paper_a.capacity_finite_size import finite_size_study
    from numerics.experiments.paper_a.separability import AttentionQuery

    fit = finite_size_study("attention", [12, 50], [1500, 400], hint=2.14, theta=5.0,
                            query=AttentionQuery(0.0, 2.0), seed=909)
    delta, u = cap._fs("attention", (0.0, 2.0))
    assert abs(fit.delta - delta) < 4 * fit.delta_se + u


def test_evaluate_beyond_rqmc_is_a_parameter_error():
    """theta = 14 with an aligned query: E F(T) underflows / rho -> 1 inside the attention
    solver; evaluate reports a one-line ParameterError naming the parameters, not a crash."""
    p = CLAIM.param_space.validate({"theta": "14"})
    with pytest.raises(ParameterError) as e:
        CLAIM.evaluate(p, 15)
    assert "theta=14.0" in str(e.value) and "\n" not in str(e.value)
    assert "(SolveError: not converged: non-finite iterate" in str(e.value)  # the cause, named


def test_the_failure_is_the_difference_rows_without_the_theory_rqmc_se(quick_evidence):
    """What ``A.capacity.conjecture1_fails`` reports as the simulated failure is its own
    difference rows, experiment only: the same difference and allowance, the standard error without
    the theory's RQMC se, z and the margin above the Bonferroni tolerance of its six rows."""
    import math

    from numerics import registry
    from numerics.core.stats import z_critical

    ev = quick_evidence(registry.claims()["A.capacity.conjecture1_fails"])
    rows = {c.label: c for c in ev.comparisons}
    failures = ev.details["simulated failure (difference > z_crit se + allowance)"]
    rqmc = {"upper": ev.details["theory"]["alpha_A upper"]["rqmc_se"],
            "lower": ev.details["theory"]["alpha_A lower"]["rqmc_se"]}
    assert len(failures) == 2 and len(ev.comparisons) == 6
    for label, f in failures.items():
        row = rows[label]
        assert f["simulated"] == pytest.approx(row.mean, rel=1e-12) and f["simulated"] > 0
        assert f["allowance"] == pytest.approx(row.allowance, rel=1e-12)
        assert f["se"] ** 2 + rqmc[label.split(":")[0]] ** 2 == pytest.approx(row.se ** 2, rel=1e-9)
        assert f["z (simulated / se)"] == pytest.approx(f["simulated"] / f["se"], rel=1e-12)
        tol = z_critical(6) * f["se"] + f["allowance"]
        assert f["margin above tolerance"] == pytest.approx(f["simulated"] - tol, rel=1e-9, abs=1e-12)
        assert math.isfinite(f["margin above tolerance"]) and f["margin above tolerance"] > 0
