"""Capacity (Paper A Eq. (18), Conjecture 1): derivation identities, solver, LP separability.

The claims themselves run once in tests/test_claims_catalogue.py; here: the pieces."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st

from derivations.paper_a import attention_reduction as red
from derivations.paper_a import capacity as dcap
from numerics.theory.paper_a import capacity as ncap
from numerics.core.params import ParameterError
from numerics.experiments.paper_a.separability import (
    AttentionQuery, critical_n, critical_n_incremental, is_separable, simulate_crossing,
)
from numerics.experiments.paper_a.sparse_token import SparseTokenModel

FIG1 = dict(L=10, R=1, pi=0.5, theta=5.0)


# ---- symbolic derivation -----------------------------------------------------------------------
def test_F_closed_form_is_the_integral():
    F0, F1, F2 = dcap.F_derivatives()
    assert sp.simplify(dcap.F_by_integration() - F0) == 0
    assert sp.simplify(F1 - dcap.F_prime_expected) == 0
    assert sp.simplify(F2 - dcap.F_second_expected) == 0
    assert F0.subs(dcap.t, 0) == sp.Rational(1, 2)


def test_stable_forms_are_the_same_functions():
    """The float64 (erfcx) forms of F, F', F'' are rewrites, not approximations."""
    for e in dcap.F_derivatives():
        assert dcap.stable_residual(e) == 0
    assert sp.simplify(dcap.erfcx(dcap.t).rewrite(sp.erfc) - sp.exp(dcap.t**2) * sp.erfc(dcap.t)) == 0
    assert sp.simplify(sp.diff(dcap.erfcx(dcap.t), dcap.t).rewrite(sp.erfc)
                       - sp.diff(sp.exp(dcap.t**2) * sp.erfc(dcap.t), dcap.t)) == 0


def test_gardner_steps_and_identities():
    assert dcap.scaling_lemma_residual() == 0      # E[(k - s zeta)_+^2] = s^2 F(-k/s)
    assert dcap.step3_pointwise() == 0             # eps_2 integrated out
    assert dcap.cover_symmetry_residual() == 0     # F(b) + F(-b) = 1 + b^2
    assert dcap.vec_equals_L_pool_residual() == 0  # alpha_vec(rho, b sqrt L) = L alpha_pool(rho, b)


def test_summand_derivatives_are_the_derivatives_of_F_of_T():
    """The chain-rule gradient / Hessian of F(T) (float64 forms) equal SymPy's direct
    derivatives of the closed form, at random points (both signs of T)."""
    V = dcap.VARIABLES
    h, grad, hess = dcap.summand(V)
    direct = dcap.F_of(dcap.T().subs(dcap.sigma, sp.sqrt(dcap.s2)))
    rng = np.random.default_rng(0)
    for _ in range(4):
        draw = (rng.choice([-1, 1]), *rng.normal(size=2), rng.uniform(0.1, 1), 0.7 * rng.uniform(-1, 1),
                *rng.normal(size=2))
        vals = {k: sp.Rational(v).limit_denominator(1000) for k, v in
                zip((dcap.y, dcap.a_sym, dcap.c_sym, dcap.s2, *V), draw)}
        ev = lambda e: complex(sp.N(e.subs(vals).rewrite(sp.erfc), 30)).real
        assert ev(h) == pytest.approx(ev(direct), rel=1e-20, abs=1e-25)
        for i, vi in enumerate(V):
            assert ev(grad[i]) == pytest.approx(ev(sp.diff(direct, vi)), rel=1e-20, abs=1e-25)
            for j, vj in enumerate(V):
                assert ev(hess[i][j]) == pytest.approx(ev(sp.diff(direct, vi, vj)), rel=1e-20, abs=1e-25)


def test_latex_equations_are_the_solved_objectives():
    for disp, model in ((dcap.POOL_DISPLAY, dcap.POOL), (dcap.VEC_DISPLAY, dcap.VEC)):
        assert sp.simplify(disp.replace(dcap._F, dcap.F_of) - dcap.closed_form_objective(model)) == 0
    eqs = dcap.equations()
    assert [e.name for e in eqs] == ["A.capacity.F", "A.capacity.gardner", "A.capacity.pool", "A.capacity.vec"]
    assert all("F" in e.latex() for e in eqs)


def test_model_latents_are_the_reduction():
    """pooled (a, c, sigma^2) = the q -> 0 limit of the attention reduction: the signal
    theta_y (R/L) xi split into (a - mean z, c) has norm theta_y R/L, sigma^2 = 1/L; and the
    attention map at gamma = 0 is the pooled feature (rotated)."""
    Lv, Rv = 4, 2
    a, c, sig = red.pooled_limit(Lv, Rv)
    z = sp.symbols(f"z_1:{Lv + 1}", real=True)
    lat = dcap.model_latents(dcap.POOL)
    th = red.theta
    for yp in (0, 1):
        signal = sp.simplify((a - sum(z) / Lv) ** 2 + c**2).subs(red.y_plus, yp)
        cp = (lat["pos"] if yp else lat["neg"])[1].subs({dcap.theta: th, dcap.R: Rv, dcap.L: Lv})
        assert sp.simplify(signal - cp**2) == 0
    assert sp.simplify(sig - lat["pos"][2].subs(dcap.L, Lv)) == 0
    # the attention law at beta ||q|| = 0 (uniform softmax) is the pooled feature, rotated: the
    # same signal norm theta_y R/L and noise variance 1/L
    from numerics.theory.paper_a.laws import attention_law

    law = attention_law(Lv, Rv, 0.5, 5.0, 0.0, 1.0, 0.9, log2_points=4, n_scrambles=2, seed=1)
    signal = np.where(law.y > 0, 5.0 * Rv / Lv, 0.0)
    assert np.allclose(law.c, signal * np.sqrt(1 - 0.81)) and np.allclose(law.s2, 1 / Lv)


def test_cover_value_two():
    # pure noise, balanced labels: 2 / (1 + b^2), maximal 2 at b = 0 (with or without bias)
    obj = dcap.pure_noise_objective().subs(dcap.pi_, sp.Rational(1, 2))
    assert sp.simplify(obj - 2 / (1 + dcap.b**2)) == 0
    assert obj.subs(dcap.b, 0) == dcap.COVER_VALUE
    assert float(ncap.pool_capacity(10, 1, 0.5, 0.0, dps=20).alpha) == pytest.approx(2.0, abs=1e-15)
    # unbalanced labels + bias: capacity grows (the bias exploits the label imbalance)
    assert float(ncap.pool_capacity(10, 1, 0.2, 0.0, dps=20).alpha) == pytest.approx(2.6676, abs=1e-4)


def test_capacity_is_symmetric_in_the_label_prior():
    """pi <-> 1 - pi with b -> -b - rho c_+ maps the two-atom objective onto itself: the pooled
    capacity at pi = 0.2 and 0.8 agree (and a swapped-prior error is undetectable here)."""
    a = ncap.pool_capacity(10, 1, 0.2, 5.0, dps=20)
    b = ncap.pool_capacity(10, 1, 0.8, 5.0, dps=20)
    with mpmath.workdps(30):
        assert abs(a.alpha - b.alpha) < mpmath.mpf(10) ** -18 * a.alpha
        assert abs(b.argmax["b"] + a.argmax["b"] + a.argmax["rho"] * 5 / 10) < 1e-15


# ---- F in float64 --------------------------------------------------------------------------------
F_NP = ncap.compiled_F()


def _F_ref(t):
    with mpmath.workdps(50):
        tt = mpmath.mpf(t)
        return (float((1 + tt**2) * mpmath.erfc(tt / mpmath.sqrt(2)) / 2 - tt * mpmath.npdf(tt)),
                float(-2 * (mpmath.npdf(tt) - tt * mpmath.erfc(tt / mpmath.sqrt(2)) / 2)),
                float(mpmath.erfc(tt / mpmath.sqrt(2))))


@pytest.mark.parametrize("t", [-8.0, -1.3, 0.0, 0.7, 3.0, 9.5, 12.0, 15.0, 25.0, 37.0])
def test_F_numpy_matches_mpmath(t):
    """float64 F, F', F'' (erfcx form for t > 0) to ~1e-16 t^4 relative: 1e-10 up to t = 37,
    where F ~ 1e-302 (at t >= 38 F is below the float64 normal range)."""
    with np.errstate(over="ignore", invalid="ignore"):
        got = [float(f(np.array([t]))[0]) for f in F_NP]
    for g, r in zip(got, _F_ref(t)):
        assert g == pytest.approx(r, rel=1e-10)


def test_F_is_second_moment_by_quadrature():
    # independent of the closed form: mpmath.quad of (zeta - t)^2 phi(zeta) on the half line
    for t in (-2.0, 0.3, 2.5):
        q = mpmath.quad(lambda z: (z - t) ** 2 * mpmath.npdf(z), [t, t + 5, mpmath.inf])
        assert float(F_NP[0](np.array([t]))[0]) == pytest.approx(float(q), rel=1e-10)


@given(st.floats(-30, 30))
def test_F_properties(t):
    with np.errstate(over="ignore", invalid="ignore"):
        f = F_NP[0](np.array([t, -t]))
        f1, f2 = F_NP[1](np.array([t]))[0], F_NP[2](np.array([t]))[0]
    assert f[0] > 0
    assert f[0] + f[1] == pytest.approx(1 + t * t, rel=1e-12)  # F(t) + F(-t) = 1 + t^2
    assert f1 <= 0 and f2 >= 0                                  # decreasing, convex


# ---- closed-form capacities --------------------------------------------------------------------
def test_pool_and_vec_to_many_digits():
    pool = ncap.closed_form_capacity(dcap.POOL, 10, 1, 0.5, 5.0, dps=40)
    vec = ncap.closed_form_capacity(dcap.VEC, 10, 1, 0.5, 5.0, dps=40)
    pool60 = ncap.closed_form_capacity(dcap.POOL, 10, 1, 0.5, 5.0, dps=60)
    assert pool.residual < 1e-40
    vals = {dcap.rho: sp.Float(mpmath.nstr(pool.argmax["rho"], 55), 55), dcap.b: sp.Float(mpmath.nstr(pool.argmax["b"], 55), 55),
            dcap.theta: 5, dcap.R: 1, dcap.L: 10, dcap.pi_: sp.Rational(1, 2)}
    ref = sp.N(dcap.POOL_DISPLAY.replace(dcap._F, dcap.F_of).subs(vals), 45)
    with mpmath.workdps(50):
        tol = mpmath.mpf(10) ** -38 * pool.alpha
        # vec and pool solved independently: the exact identity alpha_vec = L alpha_pool
        assert abs(vec.alpha - 10 * pool.alpha) < 10 * tol
        # the mpmath value agrees with SymPy's evalf of the paper-form objective at the argmax
        assert abs(mpmath.mpf(mpmath.mpmathify(str(ref))) - pool.alpha) < tol
        # a 60-digit solve agrees to the 40 digits asked for
        assert abs(pool60.alpha - pool.alpha) < tol
    # the float64 maximiser of the two-atom law (stable summand, chain rule) agrees
    assert pool.details["float64"] == pytest.approx(float(pool.alpha), rel=1e-12)
    assert 2.9 < float(pool.alpha) < 3.0


def test_theta_zero_is_cover_and_monotone_in_theta():
    vals = [float(ncap.closed_form_capacity(dcap.POOL, 10, 1, 0.5, th, dps=20).alpha) for th in (0.0, 1.0, 3.0, 6.0)]
    assert vals[0] == pytest.approx(2.0, rel=1e-12)
    assert vals[0] < vals[1] < vals[2] < vals[3]


def test_vec_symmetric_reduction_is_optimal():
    """For uniform positions the best signal coordinates m are proportional to 1_L (Jensen):
    a general m found by a local search never beats the symmetric formula; for fixed positions
    it does (alpha_vec > L alpha_pool)."""
    from scipy.optimize import minimize

    L, R, pi, th = 4, 2, 0.5, 2.0
    sym = float(ncap.closed_form_capacity(dcap.VEC, L, R, pi, th, dps=20).alpha)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x0 = np.r_[0.3 * rng.standard_normal(L), 0.0]
        f = lambda x: -ncap.vec_general_m_objective(x[:L], x[L], L, R, pi, th) if x[:L] @ x[:L] < 1 else 1e9
        res = minimize(f, x0, method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 20000})
        assert -res.fun <= sym * (1 + 1e-7)
        assert -res.fun == pytest.approx(sym, rel=1e-4)
    fixed = float(ncap.closed_form_capacity(dcap.VEC_FIXED, L, R, pi, th, dps=20).alpha)
    assert fixed > sym * 1.05
    m = np.r_[np.full(R, 0.5), np.zeros(L - R)]
    assert ncap.vec_general_m_objective(m, -0.3, L, R, pi, th, exchangeable=False) == pytest.approx(
        float(dcap.closed_form_objective(dcap.VEC_FIXED).subs({dcap.rho: 0.5 * math.sqrt(R), dcap.b: -0.3, dcap.theta: th,
                                                            dcap.R: R, dcap.L: L, dcap.pi_: pi}).evalf()), rel=1e-10)


def test_attention_gamma_zero_is_pooling():
    pool = float(ncap.pool_capacity(**FIG1).alpha)
    att = ncap.attention_capacity(**FIG1, s_q=0.7, gamma=0.0, log2_points=10, n_rep=8, ss=np.random.SeedSequence(1))
    assert abs(att.alpha - pool) < 4 * att.se + 1e-9
    assert att.se < 0.005 * pool


def test_attention_at_zero_signal_is_cover():
    # theta = 0: no signal, pure noise in every direction: Cover's 2 (balanced labels)
    att = ncap.attention_capacity(10, 1, 0.5, 0.0, 0.9, 2.0, log2_points=9, n_rep=8, ss=np.random.SeedSequence(2))
    assert att.alpha == pytest.approx(2.0, abs=5 * att.se + 1e-6)


def test_attention_solution_is_a_converged_maximum():
    att = ncap.attention_capacity(**FIG1, s_q=0.9, gamma=1.0, log2_points=10, n_rep=8, ss=np.random.SeedSequence(3))
    assert att.residual < 1e-10 and max(att.details["hessian_eigenvalues"]) < 0
    assert len(att.details["rep_values"]) == 8
    assert 19 < att.alpha < 24 and 0 < att.se < 0.05 * att.alpha


# ---- parameters --------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [{"L": 1}, {"R": 11}, {"pi": 1.0}, {"pi": 0.0}, {"theta": -1.0}])
def test_invalid_params_raise(bad):
    with pytest.raises(ParameterError) as e:
        ncap.BASE_SPACE.validate({**FIG1, **bad})
    assert str(e.value).count("\n") == 0


@pytest.mark.parametrize("bad", [{"s_q": 1.5}, {"gamma": -0.1}])
def test_invalid_attention_params_raise(bad):
    with pytest.raises(ParameterError):
        ncap.ATTENTION_SPACE.validate({**FIG1, "s_q": 0.5, "gamma": 1.0, **bad})


def test_claim_evaluate_and_param_errors():
    from numerics.claims.paper_a.capacity import CLAIMS

    c = {cl.id: cl for cl in CLAIMS}["A.capacity.pool_vec_ratio"]
    out = c.evaluate(c.param_space.validate({"theta": "5"}), 30)
    with mpmath.workdps(40):
        assert mpmath.almosteq(out["alpha_vec/alpha_pool"], 10, rel_eps=mpmath.mpf(10) ** -28)
    with pytest.raises(ParameterError):
        c.param_space.validate({"R": "20"})


# ---- LP separability ---------------------------------------------------------------------------
def test_lp_known_cases():
    # XOR in 2-D is not linearly separable; AND is
    F = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=float)
    assert not is_separable(F, np.array([1, 1, -1, -1.0]))
    assert is_separable(F, np.array([-1, 1, -1, -1.0]))
    # D + 1 points in general position in R^D: always separable (with bias)
    rng = np.random.default_rng(0)
    for _ in range(5):
        assert is_separable(rng.standard_normal((6, 5)), rng.choice([-1.0, 1.0], 6))
    # one class: the bias alone
    assert is_separable(rng.standard_normal((50, 2)), np.ones(50))
    # bias matters: two points on a line with the same sign pattern away from 0
    assert is_separable(np.array([[1.0], [2.0]]), np.array([-1.0, 1.0]))


def test_incremental_equals_bisection():
    rng = np.random.default_rng(1)
    model = SparseTokenModel(4, 1, 0.5, 3.0, 8)
    for kind in ("pool", "vec", "attention"):
        for _ in range(3):
            xi = model.signal_direction(rng)
            X, y, _ = model.sample(rng, 200, xi)
            from numerics.experiments.paper_a.sparse_token import features

            q, beta = AttentionQuery(0.8, 1.5).build(xi, rng)
            Fm = features(kind, X, q, beta)
            a, _ = critical_n(Fm, y, 20)
            b, _, _ = critical_n_incremental(Fm, y, 10)
            assert a == b


def test_cover_mean_critical_size():
    """Pure noise, balanced labels, with bias: n_c is the (D+1)-th success time of fair coins,
    E n_c = 2 (D + 1), Var n_c = 2 (D + 1) (Cover's count); the LP reproduces both."""
    rng = np.random.default_rng(3)
    D, trials = 8, 300
    ncs = []
    for _ in range(trials):
        F = rng.standard_normal((80, D))
        y = rng.choice([-1.0, 1.0], 80)
        ncs.append(critical_n_incremental(F, y, 5)[0])
    ncs = np.array(ncs, dtype=float)
    se = math.sqrt(2 * (D + 1) / trials)
    assert abs(ncs.mean() - 2 * (D + 1)) < 4 * se
    assert ncs.var(ddof=1) == pytest.approx(2 * (D + 1), rel=0.35)


def test_simulate_crossing_small():
    rng = np.random.default_rng(4)
    r = simulate_crossing("pool", SparseTokenModel(10, 1, 0.5, 5.0, 10), 30, rng, 2.95)
    assert r.n_c.size == 30 and r.D == 10
    frac = r.fraction_separable([1.0, 10.0])
    assert frac[0] == 1.0 and frac[1] == 0.0
    assert 2.0 < r.mean < 4.5
    with pytest.raises(ValueError):
        simulate_crossing("attention", SparseTokenModel(10, 1, 0.5, 5.0, 10), 1, rng, 3.0)


# ---- Conjecture 1 fails for a strong signal (docs §7) ------------------------------------------
def test_conjecture1_upper_ordering_fails_at_theta_6_theory():
    """theta = 6 (else the Figure-1 setting), q with s_q = 0.9, gamma = 1: alpha*_A ~ 88 exceeds
    alpha*_vec = 34.85; the lower ordering fails for a misaligned q (s_q = 0, gamma = 2)."""
    vec = float(ncap.vec_capacity(10, 1, 0.5, 6.0, dps=15).alpha)
    pool = float(ncap.pool_capacity(10, 1, 0.5, 6.0, dps=15).alpha)
    att = ncap.attention_capacity(10, 1, 0.5, 6.0, 0.9, 1.0, log2_points=10, n_rep=8, ss=np.random.SeedSequence(3))
    assert att.alpha - 5 * att.se > vec  # 5 RQMC standard errors above the vectorised threshold
    low = ncap.attention_capacity(10, 1, 0.5, 5.0, 0.0, 2.0, log2_points=10, n_rep=8, ss=np.random.SeedSequence(4))
    assert low.alpha + 5 * low.se < float(ncap.pool_capacity(10, 1, 0.5, 5.0, dps=15).alpha)
    assert pool < vec


@pytest.mark.slow
def test_conjecture1_upper_ordering_fails_at_theta_6_simulation():
    """Finite-d LP crossings confirm it: the attention data (s_q = 0.9, gamma = 1) stay separable
    far beyond the vectorised threshold."""
    rng = np.random.default_rng(20260429)
    vec = simulate_crossing("vec", SparseTokenModel(10, 1, 0.5, 6.0, 6), 60, rng, 34.8)
    att = simulate_crossing("attention", SparseTokenModel(10, 1, 0.5, 6.0, 20), 40, rng, 87.6,
                            AttentionQuery(0.9, 1.0))
    assert att.mean - 4 * att.se > vec.mean + 4 * vec.se


def test_finite_size_fit_recovers_a_known_law():
    from numerics.experiments.paper_a.capacity_finite_size import fit_finite_size

    D = np.array([12, 25, 50, 100])
    means = 3.0 * (1 + 0.4 / (D + 1))
    a, a_se, dl, dl_se, chi2 = fit_finite_size(D, means, np.full(4, 0.01))
    assert a == pytest.approx(3.0, abs=1e-8) and dl == pytest.approx(0.4, abs=1e-6) and chi2 < 1e-12
    assert a_se > 0 and dl_se > 0


@pytest.mark.slow
def test_finite_size_study_pool_extrapolates_to_theory():
    """docs §5: the theory-free extrapolation of the pooled crossing lands on alpha*_pool."""
    from numerics.experiments.paper_a.capacity_finite_size import finite_size_study

    fit = finite_size_study("pool", [12, 25, 50], [1500, 1000, 400], hint=2.95, seed=7)
    theory = float(ncap.pool_capacity(10, 1, 0.5, 5.0, dps=15).alpha)
    assert abs(fit.alpha_inf - theory) < 4 * fit.alpha_inf_se


def test_strong_signal_gives_a_one_line_error_not_a_domain_error():
    """theta = 14: E F(T) underflows for the aligned query (the classes are almost separable in
    one projection); ``attncheck eval`` reports a one-line parameter error, not a traceback."""
    from click.testing import CliRunner

    from numerics.cli import main

    r = CliRunner().invoke(main, ["eval", "A.capacity.ordering", "--param", "theta=14"])
    assert r.exit_code == 2 and "domain" not in r.output and len(r.output.strip().splitlines()) == 1
