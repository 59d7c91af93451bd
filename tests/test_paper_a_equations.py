"""Step-4 equations of Paper A (docs/paper_a_after_training.md): symbolic identities, the
compiled equations against their closed forms, the generic machinery (prox root, Newton,
quadrature), the typed results, that every equation reaches ``attncheck solve``, the
simulator's exact-in-law test samplers, invalid parameters.  Whole claims are run by
test_claims_catalogue.py and test_mutation_catalogue.py."""
import json
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner
from hypothesis import given, strategies as st

from derivations.core import all_mutants, mutated
from derivations.paper_a import attention_reduction as AR
from derivations.paper_a import erm_equations as EQ
from numerics.cli import main
from numerics.core.params import ParameterError
from numerics.core.results import SolveError
from numerics.core.solve import increasing_root
from numerics.core.value import Value
from numerics.experiments.paper_a.sparse_token import (SparseTokenModel, attention_features, pooled_features,
                                                          vectorised_features)
from numerics.experiments.paper_a.sparse_token_erm import fit_erm, fresh_margins, query_with_alignment
from numerics.theory.paper_a import erm_equations as erm_theory
from numerics.theory.paper_a import models as M

MUTANTS = all_mutants()


# --- symbolic ------------------------------------------------------------------------------
def test_reduction_is_a_rotation_of_the_signal():
    assert AR.signal_norm_identity() == 0


def test_reduction_q_zero_is_pooling():
    a, c, sigma2 = AR.pooled_limit(4, 1)
    assert sp.simplify(sigma2 - sp.Rational(1, 4)) == 0
    assert sp.simplify(c - AR.theta * AR.y_plus * sp.Rational(1, 4) * sp.sqrt(1 - AR.s_q**2)) == 0


def test_ols_sanity_V():
    assert sp.simplify(EQ.ols_sanity_solution() - 1 / (EQ.alpha - 1)) == 0


def test_square_prox_and_moments():
    ex = EQ.exact_channel(M.SQUARE, True)
    mu, omega = EQ.field()
    # prox of the square loss, and E_zeta[l'] = kappa (mu - y)
    assert sp.simplify(ex["prox"] - (omega + EQ.s2 * EQ.V * EQ.y) / (1 + EQ.s2 * EQ.V)) == 0
    assert sp.simplify(ex["integrands"][0] - (mu - EQ.y) / (1 + EQ.s2 * EQ.V)) == 0
    z = EQ.zeta
    expr = (3 * z**4 - z + 2) * sp.Symbol("k", positive=True)
    direct = sp.integrate(expr * sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, sp.oo))
    assert sp.simplify(EQ.gaussian_expectation(expr) - direct) == 0


def test_implicit_function_jacobian_is_the_exact_one_for_the_square_loss():
    """The generic Jacobian dr/dx = r_x + r_h dh/dx (dh/dx = -G_x/G_h), integrated over zeta,
    equals the x-derivative of the exactly integrated square-loss integrands."""
    ex = EQ.exact_channel(M.SQUARE, True)
    sy = ex["system"]
    for i, r_exact in enumerate(ex["integrands"]):
        for j, x in enumerate(sy["unknowns"]):
            generic = EQ.gaussian_expectation(sp.simplify(sy["dr_dx"][i][j].subs(EQ.h, ex["prox"])))
            assert sp.simplify(generic - sp.diff(r_exact, x)) == 0, (i, j)


def test_ridgeless_identities():
    r = EQ.ridgeless_expansion()
    assert sp.simplify(r["alpha_V_kappa"] - 1 / EQ.s2) == 0  # m, b do not depend on alpha
    assert sp.simplify(r["Q0"] - EQ.m**2) == 0


def test_ridgeless_limit_matches_the_population_least_squares_closed_form():
    """Population least squares on the two-point law: k = 2 pi(1-pi) mu/(1/L + pi(1-pi) mu^2),
    b = (2pi-1) - k pi mu, E_pool = pi Phi(-(k mu + b) sqrt(L)/k) + (1-pi) Phi(b sqrt(L)/k)."""
    with mpmath.workdps(30):
        L, R, p, th = 10, 1, mpmath.mpf("0.3"), mpmath.mpf(4)
        mu = th * R / L
        k = 2 * p * (1 - p) * mu / (mpmath.mpf(1) / L + p * (1 - p) * mu**2)
        bb = (2 * p - 1) - k * p * mu
        ref = p * mpmath.ncdf(-(k * mu + bb) * mpmath.sqrt(L) / k) + (1 - p) * mpmath.ncdf(bb * mpmath.sqrt(L) / k)
        ours = {e.name: e for e in EQ.ridgeless_limit_equations()}
        for model in ("pool", "vec"):
            val = sp.N(ours[f"A.cor2.{model}.E_inf"].rhs.subs({EQ.theta: 4, EQ.R: 1, EQ.L: 10,
                                                                EQ.pi_: sp.Rational(3, 10)}), 30)
            assert abs(mpmath.mpf(str(val)) - ref) < mpmath.mpf(10) ** -25


def test_cor2_mpmath_matches_evalf():
    from numerics.core.backends import evalf_reference, mp_eval

    for eq in EQ.ridgeless_limit_equations():
        vals = {EQ.theta: 5, EQ.R: 1, EQ.L: 10, EQ.pi_: 0.5}
        a = mp_eval(eq.rhs, vals, 40)
        b = evalf_reference(eq.rhs, vals, 40)
        assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** -38


def test_logistic_functions_compile_stably():
    """softplus/sigmoid of the derivation: numpy without overflow, mpmath at any precision, and
    both equal to their definitions by exp."""
    from numerics.core.backends import MpContext, NumpyContext

    x = sp.Symbol("x", real=True)
    exprs = [EQ.softplus(x), EQ.sigmoid(x), sp.diff(EQ.sigmoid(x), x)]
    f = NumpyContext().compile(exprs, (x,))
    big = np.array([-800.0, 0.0, 800.0])
    out = [np.asarray(v) for v in f(big)]
    assert np.all(np.isfinite(out)) and out[0][2] == 800.0 and out[1][0] == 0.0
    g = MpContext().compile(exprs, (x,))
    with mpmath.workdps(40):
        for t in ("-3.5", "0.25", "7"):
            v = mpmath.mpf(t)
            want = [mpmath.log(1 + mpmath.exp(v)), 1 / (1 + mpmath.exp(-v)),
                    mpmath.exp(-v) / (1 + mpmath.exp(-v)) ** 2]
            for u, w in zip(g(v), want):
                assert abs(u - w) < mpmath.mpf(10) ** -38


# --- generic machinery ------------------------------------------------------------------------
@given(st.floats(-30, 30), st.sampled_from([-1.0, 1.0]), st.floats(1e-3, 1e3))
def test_prox_root_of_the_compiled_logistic_prox(omega, y, s):
    """The generic root on the compiled G, G_h: h solves h + s l'(h) = omega, y h >= y omega
    (the prox moves towards the label) and d_omega h = 1/G_h lies in (0, 1]."""
    cmp = erm_theory.compiled(M.LOGISTIC, False)
    # arguments (h, zeta, m, b, V, Q, a, c, s2, y): omega = b, sigma^2 V = s
    args = (0.0, 0.0, float(omega), float(s), 1.0, 0.0, 0.0, 1.0, float(y))
    h = increasing_root(cmp.prox, args, np.array([0.0]))
    G, G_h = cmp.prox(h, *args)
    assert abs(float(np.ravel(G)[0])) <= 1e-12 * (1 + abs(omega) + s)
    assert y * h[0] >= y * omega - 1e-12
    assert 0 < 1 / float(np.ravel(G_h)[0]) <= 1


def test_prox_root_vectorised_extreme_arguments():
    cmp = erm_theory.compiled(M.LOGISTIC, False)
    rng = np.random.default_rng(0)
    n = 20000
    om = rng.standard_normal(n) * 50
    s = np.exp(rng.uniform(-6, 8, n))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    args = (0.0, 0.0, om, s, 1.0, 0.0, 0.0, 1.0, y)
    h = increasing_root(cmp.prox, args, np.zeros(n))
    G = np.asarray(cmp.prox(h, *args)[0])
    assert np.max(np.abs(G) / (1 + np.abs(om) + s)) < 1e-14


def test_trapezoid_and_gauss_hermite_rules():
    from numerics.core.quadrature import gauss_hermite, gaussian_trapezoid

    for x, w in (gauss_hermite(3), gaussian_trapezoid(0.5)):
        assert abs(w.sum() - 1) < 1e-14
        assert abs(w @ x**2 - 1) < 1e-12 and abs(w @ x**4 - 3) < 1e-11


# --- solver --------------------------------------------------------------------------------
def test_pooled_square_solver_matches_sympy_closed_form():
    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.3, 4.0)
    r = erm_theory.solve(law, 3.0, 0.01, M.SQUARE)
    assert r.ok and r.residual < 1e-10 and r.stats["exact_quadrature"]
    sol = EQ.two_point_solution(False)
    sub = {EQ.mu_s: sp.Rational(4, 10), EQ.s2: sp.Rational(1, 10), EQ.pi_: sp.Rational(3, 10),
           EQ.alpha: 3, EQ.lam: sp.Rational(1, 100)}
    fp = r.value
    for name in ("V", "m", "b", "Q"):
        assert fp.x[name] == pytest.approx(float(sp.N(sol[name].subs(sub), 20)), rel=1e-9)
    assert fp.metrics["test_error"] == pytest.approx(float(sp.N(sol["test_error"].subs(sub), 20)), rel=1e-9)
    assert fp.metrics["train_loss"] == pytest.approx(float(sp.N(sol["train_loss"].subs(sub), 20)), rel=1e-9)
    assert "w1" not in fp.x  # a = 0 for the linear models: w1 is not an unknown


def test_logistic_solution_does_not_depend_on_the_start_and_is_typed():
    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0)
    r = erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC)
    r2 = erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC, x0=[0.1, 2.0, 3.0, 100.0])
    assert r.ok and r2.ok and r.residual < 1e-10
    assert np.allclose(r.value.vector, r2.value.vector, rtol=1e-9)
    assert r.stats["quad_change"] < 1e-9 and not r.stats["exact_quadrature"]
    d = erm_theory.report(r)
    assert d.ok and (d.iterations, d.residual) == (r.iterations, r.residual) and "quadrature" in d.stats
    fp = r.value
    for key, v in {**fp.x, **fp.metrics}.items():  # the values as solved, typed (no text between)
        assert isinstance(d.value[key], Value) and float(d.value[key]) == float(v)
    assert {"test_error", "train_loss", "V", "Q"} <= set(d.value)


def test_non_convergence_is_reported():
    """Logistic, lambda = 0, below the separability threshold: the minimiser does not exist
    (||w|| -> infinity), so there is no fixed point; the solver must say so."""
    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0)
    r = erm_theory.solve(law, 0.3, 0.0, M.LOGISTIC, max_steps=30)
    assert not r.ok and r.raw is None and "not converged" in r.result.value
    with pytest.raises(SolveError):
        r.value
    assert not erm_theory.report(r).ok and erm_theory.report(r).raw == {}


def test_vec_is_pooled_in_dimension_Ld():
    """vectorised at alpha1 = pooled-type two-point law with mu = theta R/sqrt(L), sigma^2 = 1 at
    alpha1/L; its test error equals the pooled one at the same alpha_eff (scale invariance)."""
    v = erm_theory.solve(erm_theory.linear_law(M.VECTORISED, 10, 1, 0.5, 5.0), 30.0, 0.0, M.SQUARE).value
    p = erm_theory.solve(erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0), 3.0, 0.0, M.SQUARE).value
    assert v.metrics["test_error"] == pytest.approx(p.metrics["test_error"], rel=1e-10)


def test_attention_q_zero_equals_pooled():
    law = erm_theory.attention_law(6, 1, 0.5, 4.0, 1.0, 0.0, 0.6, log2_points=8, n_scrambles=2, seed=3)
    ra = erm_theory.solve(law, 2.0, 1e-2, M.SQUARE).value
    rp = erm_theory.solve(erm_theory.linear_law(M.POOLED, 6, 1, 0.5, 4.0), 2.0, 1e-2, M.SQUARE).value
    # q = 0: the q-hat direction carries N(0, 1/L) noise plus signal theta_y R/L s_q: pooled
    assert ra.metrics["test_error"] == pytest.approx(rp.metrics["test_error"], abs=5e-3)


def test_qmc_error_is_reported():
    law = erm_theory.attention_law(6, 1, 0.5, 4.0, 1.0, 1.5, 0.6, log2_points=8, n_scrambles=4, seed=1)
    r = erm_theory.solve_with_error(law, 2.0, 1e-2, M.SQUARE)
    assert r.ok and 0 < r.value.qmc_se["test_error"] < 0.01


@pytest.mark.parametrize("bad", [dict(alpha=-1.0), dict(lam=-0.1), dict(loss="hinge")])
def test_invalid_parameters(bad):
    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0)
    kw = dict(alpha=2.0, lam=0.1, loss="square")
    kw.update(bad)
    with pytest.raises(ParameterError):  # a loss's name is checked where it becomes the object
        erm_theory.solve(law, kw["alpha"], kw["lam"], M.loss(kw["loss"]))


def test_invalid_alignment():
    with pytest.raises(ParameterError, match="s_q"):
        erm_theory.attention_law(6, 1, 0.5, 4.0, 1.0, 1.0, 1.5)


def test_ridgeless_square_below_the_dimension_has_no_solution():
    """n < dimension, lambda = 0, square loss: (V) has no positive root; the solver says so."""
    r = erm_theory.solve(erm_theory.linear_law(M.VECTORISED, 10, 1, 0.5, 5.0), 5.0, 0.0, M.SQUARE)
    assert not r.ok


# --- one source: every equation reaches `attncheck solve`, both stages use the same one ----------
def _solve_cli(*args):
    r = CliRunner().invoke(main, ["solve", "sparse-token", *args, "--json"])
    return r.exit_code, (json.loads(r.stdout.splitlines()[0]) if r.stdout.strip() else {})


ATT = ["--model", "attention", "--loss", "logistic", "--param", "pi=0.3", "--param", "lam=1e-2",
       "--param", "log2_points=6", "--param", "n_scrambles=2"]


@pytest.mark.parametrize("name", ["A.erm.integrand_b:label_sign", "A.erm.eq_w1:sign", "A.erm.eq_V:sign",
                                  "A.erm.eq_m:sign", "A.erm.eq_Q:sign"])
def test_a_sign_error_in_each_equation_changes_solve(name):
    """A sign flip in any one of the five equations (for the one-term (b) equation: of the
    label) changes what `attncheck solve` prints, or makes it fail."""
    code0, base = _solve_cli(*ATT)
    assert code0 == 0 and base["converged"]
    with mutated(MUTANTS[name]):
        code, out = _solve_cli(*ATT)
    assert code != 0 or abs(float(out["test_error"]) - float(base["test_error"])) > 1e-4, (name, out)


def test_float64_solver_and_mpmath_polish_compile_the_same_equations():
    """Under a structural mutant both stages solve the mutated equations, and agree."""
    args = ["--model", "pool", "--loss", "square", "--param", "alpha1=3", "--param", "lam=1e-2", "--dps", "20"]
    code0, base = _solve_cli(*args)
    with mutated(MUTANTS["A.erm.eq_m:sign"]):
        code, out = _solve_cli(*args)
    assert code0 == 0 and code == 0, out
    assert float(out["float64_minus_mpmath_max"]) < 1e-12 and float(base["float64_minus_mpmath_max"]) < 1e-12
    assert abs(float(out["m"]) - float(base["m"])) > 0.1


def test_cli_solve_sparse_token():
    code, out = _solve_cli("--model", "pool", "--loss", "square", "--param", "alpha1=3", "--param", "lam=1e-3")
    assert code == 0, out
    assert out["converged"] and out["residual"] < 1e-25 and 0 < float(out["test_error"]) < 0.5
    assert "mpmath" in out["status"] and len(out["m"].lstrip("-").replace(".", "")) >= 29  # dps 30 digits
    assert "w1" not in out
    # no minimiser (logistic, lambda = 0, separable regime): exit 1, no order parameters shown
    code, out = _solve_cli("--model", "pool", "--param", "alpha1=0.3", "--param", "lam=0")
    assert code == 1 and out["converged"] is False and "test_error" not in out and "m" not in out
    r = CliRunner().invoke(main, ["solve", "sparse-token", "--param", "s_q=2"])
    assert r.exit_code == 2 and "s_q" in r.output


# --- simulator -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["pool", "vec", "attention"])
def test_fresh_margins_match_full_samples(kind):
    """The exact-in-law test sampler agrees with forming X (two-sample test on the mean and the
    error rate)."""
    model = SparseTokenModel(6, 2, 0.5, 3.0, 40)
    rng = np.random.default_rng(7)
    xi = model.signal_direction(rng)
    q = query_with_alignment(xi, 1.5, 0.7, rng)
    p = 40 * (6 if kind == "vec" else 1)
    w = rng.standard_normal(p) / math.sqrt(p)
    w[:40] += xi if kind != "vec" else 0
    n = 40000
    y1, h1 = fresh_margins(kind, model, w, 0.1, xi, rng, n, q, 1.0)
    X, y2, _ = model.sample(rng, n, xi)
    F = {"pool": pooled_features, "vec": vectorised_features}.get(kind)
    F = F(X) if F else attention_features(X, q, 1.0)
    h2 = F @ w + 0.1
    for a, b in ((h1[y1 > 0], h2[y2 > 0]), (h1[y1 < 0], h2[y2 < 0])):
        se = math.sqrt(a.var() / len(a) + b.var() / len(b))
        assert abs(a.mean() - b.mean()) < 5 * se
        assert abs(a.std() - b.std()) < 0.05 * b.std()


@pytest.mark.parametrize("kind", ["pool", "vec"])
def test_conditional_test_error_matches_fresh_samples(kind):
    from numerics.experiments.paper_a.ridgeless_rate import conditional_test_error

    model = SparseTokenModel(6, 2, 0.4, 3.0, 30)
    rng = np.random.default_rng(3)
    xi = model.signal_direction(rng)
    p = 30 * (6 if kind == "vec" else 1)
    w = rng.standard_normal(p) / math.sqrt(p) + (np.tile(xi, 6) if kind == "vec" else xi)
    exact = conditional_test_error(kind, model, w, -0.2, xi)
    y, h = fresh_margins(kind, model, w, -0.2, xi, rng, 400_000)
    mc = np.mean(y * h < 0)
    assert abs(mc - exact) < 5 * math.sqrt(exact * (1 - exact) / len(y))


def test_erm_logistic_gradient_small_and_square_exact():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((300, 20))
    y = np.sign(F[:, 0] + 0.5 * rng.standard_normal(300))
    fit = fit_erm(F, y, 1e-2, "logistic")
    assert fit.converged and fit.grad_norm < 1e-8
    fs = fit_erm(F, y, 1e-2, "square")
    Fc = F - F.mean(0)
    w = np.linalg.solve(Fc.T @ Fc / 300 + 1e-2 * np.eye(20), Fc.T @ (y - y.mean()) / 300)
    assert np.allclose(fs.w, w)


def test_pooled_direct_sampler_has_the_pooled_law():
    from numerics.experiments.paper_a.sparse_token_erm import pooled_sample

    model = SparseTokenModel(8, 2, 0.4, 3.0, 30)
    rng = np.random.default_rng(2)
    xi = model.signal_direction(rng)
    F1, y1 = pooled_sample(model, rng, 20000, xi, "iid")
    X, y2, _ = model.sample(rng, 20000, xi)
    F2 = pooled_features(X)
    for cls in (1.0, -1.0):
        a, b = F1[y1 == cls] @ xi, F2[y2 == cls] @ xi
        assert abs(a.mean() - b.mean()) < 5 * math.sqrt(a.var() / len(a) + b.var() / len(b))
        assert abs(a.std() - b.std()) < 0.05 * b.std()


@pytest.mark.parametrize("model", ["attention", "pool", "vec"])
@pytest.mark.parametrize("size", ["quick", "full"])
def test_every_design_point_of_the_step4_claims_is_in_paper_a_domain(model, size):
    """The rows of the Theorem 4-5 claims at both sizes (alpha1, pi, d, lambda, trials) lie in
    Paper A's parameter domains: a full-size design is not run by the default suite, so a point
    outside (pi = 1.5) would show only after a full run's hour."""
    from numerics.claims.paper_a import after_training as AT
    from numerics.core.params import Param, ParamSpace
    from numerics.papers.paper_a import vocabulary

    space = ParamSpace((vocabulary.ALPHA1, vocabulary.PI, vocabulary.D, vocabulary.LAMBDA,
                        Param("trials", int, 2, None, doc="trials")))
    cfg = (AT._quick_config if size == "quick" else AT._full_config)(M.model(model))
    assert cfg["points"]
    for alpha1, pi, d, lam, trials in cfg["points"]:
        space.validate({"alpha1": alpha1, "pi": pi, "d": d, "lam": lam, "trials": trials})
