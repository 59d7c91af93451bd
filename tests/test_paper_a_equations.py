"""Step-4 equations of Paper A (docs/paper_a_after_training.md): symbolic identities, square-loss
closed forms vs quadrature, the solver's typed results, the simulator's exact-in-law test
sampler, invalid parameters.  Whole claims are run by test_claims_catalogue.py."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st

from derivations.paper_a import attention_reduction as AR
from derivations.paper_a import erm_equations as EQ
from numerics.theory.paper_a import erm_equations as SE
from numerics.core.params import ParameterError
from numerics.experiments.simulators.sparse_token import SparseTokenModel, attention_features, pooled_features, vectorised_features
from numerics.experiments.simulators.sparse_token_erm import fit_erm, fresh_margins, query_with_alignment


# --- symbolic ------------------------------------------------------------------------------
def test_reduction_is_a_rotation_of_the_signal():
    assert AR.signal_norm_identity() == 0


def test_reduction_q_zero_is_pooling():
    a, c, sigma = AR.pooled_limit(4, 1)
    assert sp.simplify(sigma - 1 / sp.sqrt(4)) == 0
    assert sp.simplify(c - AR.theta * AR.y_plus * sp.Rational(1, 4) * sp.sqrt(1 - AR.s_q**2)) == 0


def test_ols_sanity_V():
    assert sp.simplify(EQ.ols_sanity_solution() - 1 / (EQ.alpha - 1)) == 0


def test_square_prox_and_moments():
    # prox of the square loss and E_zeta[l'] = kappa (mu - y)
    assert sp.simplify(EQ.dl_square - (EQ.omega - EQ.y) / (1 + EQ.s2 * EQ.V)) == 0
    assert sp.simplify(EQ.E_dl - (EQ.mu_field - EQ.y) / (1 + EQ.s2 * EQ.V)) == 0
    # the moment-based Gaussian expectation agrees with direct integration
    z = EQ.zeta
    expr = (3 * z**4 - z + 2) * sp.Symbol("k", positive=True)
    direct = sp.integrate(expr * sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, sp.oo))
    assert sp.simplify(EQ.gaussian_expectation(expr) - direct) == 0


def test_ridgeless_identities():
    r = EQ.ridgeless_expansion()
    assert sp.simplify(r["alpha_V_kappa"] - 1 / EQ.s2) == 0  # m, b do not depend on alpha
    assert sp.simplify(r["Q0"] - EQ.m**2) == 0


def test_ridgeless_limit_matches_notes_closed_form():
    """notes §6: k = 2 pi(1-pi) mu/(1/L + pi(1-pi) mu^2), b = (2pi-1) - k pi mu,
    E_pool = pi Phi(-(k mu + b) sqrt(L)/k) + (1-pi) Phi(b sqrt(L)/k)."""
    mpmath.mp.dps = 30
    L, R, p, th = 10, 1, mpmath.mpf("0.3"), mpmath.mpf(4)
    mu = th * R / L
    k = 2 * p * (1 - p) * mu / (mpmath.mpf(1) / L + p * (1 - p) * mu**2)
    bb = (2 * p - 1) - k * p * mu
    notes = p * mpmath.ncdf(-(k * mu + bb) * mpmath.sqrt(L) / k) + (1 - p) * mpmath.ncdf(bb * mpmath.sqrt(L) / k)
    ours = {e.name: e for e in EQ.ridgeless_limit_equations()}
    for model in ("pool", "vec"):
        val = sp.N(ours[f"A.cor2.{model}.E_inf"].rhs.subs({EQ.theta: 4, EQ.R: 1, EQ.L: 10, EQ.pi_: sp.Rational(3, 10)}), 30)
        assert abs(mpmath.mpf(str(val)) - notes) < mpmath.mpf(10) ** -25


def test_cor2_mpmath_matches_evalf():
    from numerics.core.backends import evalf_reference, mp_eval

    for eq in EQ.ridgeless_limit_equations():
        vals = {EQ.theta: 5, EQ.R: 1, EQ.L: 10, EQ.pi_: 0.5}
        a = mp_eval(eq.rhs, vals, 40, extra={"erfc": mpmath.erfc})
        b = evalf_reference(eq.rhs, vals, 40)
        assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** -38


# --- square-loss closed form vs quadrature over zeta ------------------------------------------
@given(st.floats(0.1, 3), st.floats(-2, 2), st.floats(-1, 1), st.floats(0.05, 5), st.floats(0.05, 4),
       st.floats(-2, 2), st.floats(0.1, 2), st.sampled_from([-1.0, 1.0]))
def test_square_channel_vs_gauss_hermite(w1, m, b, V, Q, a, s2, y):
    c = 0.7
    x, wts = np.polynomial.hermite_e.hermegauss(40)
    wts = wts / wts.sum()
    omega = w1 * a + m * c + b + math.sqrt(s2 * Q) * x
    h = (omega + s2 * V * y) / (1 + s2 * V)
    dl = h - y
    r = SE._square_funcs()[0](w1, m, b, V, Q, a, c, s2, y)
    assert r[0] == pytest.approx(dl @ wts, rel=1e-10, abs=1e-12)
    assert r[4] == pytest.approx(s2 * (dl**2) @ wts, rel=1e-10, abs=1e-12)


def test_logistic_prox_solves_its_equation():
    rng = np.random.default_rng(0)
    om = rng.standard_normal(5000) * 6
    y = np.where(rng.random(5000) < 0.5, 1.0, -1.0)
    s = np.exp(rng.uniform(-4, 6, 5000))
    h, dl, d2l, res = SE.logistic_prox(om, y, s)
    assert res < 1e-10
    assert np.max(np.abs(h + s * (-y / (1 + np.exp(y * h))) - om)) < 1e-9 * (1 + np.max(np.abs(om)))


# --- solver --------------------------------------------------------------------------------
def test_pooled_square_solver_matches_sympy_closed_form():
    law = SE.linear_law("pool", 10, 1, 0.3, 4.0)
    r = SE.solve(law, 3.0, 0.01, "square")
    assert r.converged and r.residual < 1e-10
    sol = EQ.two_point_solution(False)
    sub = {EQ.mu_s: sp.Rational(4, 10), EQ.s2: sp.Rational(1, 10), EQ.pi_: sp.Rational(3, 10),
           EQ.alpha: 3, EQ.lam: sp.Rational(1, 100)}
    for name, idx in (("V", 3), ("m", 1), ("b", 2), ("Q", 4)):
        exact = float(sp.N(sol[name].subs(sub), 20))
        assert r.x[idx] == pytest.approx(exact, rel=1e-9)
    assert r.metrics["test_error"] == pytest.approx(float(sp.N(sol["test_error"].subs(sub), 20)), rel=1e-9)


def test_logistic_two_starts_agree_and_typed_result():
    law = SE.linear_law("pool", 10, 1, 0.5, 5.0)
    with pytest.warns(None) if False else _no_warning():
        r = SE.solve(law, 2.0, 1e-2, "logistic", check_starts=True)
    assert r.converged and r.residual < 1e-9 and not r.warnings
    d = r.as_dict()
    for key in ("converged", "status", "iterations", "residual", "test_error", "train_loss", "V", "Q"):
        assert key in d


class _no_warning:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_non_convergence_is_reported():
    """Logistic, lambda = 0, below the separability threshold: the minimiser does not exist
    (||w|| -> infinity), so there is no fixed point; the solver must say so."""
    law = SE.linear_law("pool", 10, 1, 0.5, 5.0)
    r = SE.solve(law, 0.3, 0.0, "logistic", max_iter=200)
    assert not r.converged and r.metrics == {}
    assert "not converged" in r.status


def test_vec_is_pooled_in_dimension_Ld():
    """vectorised at alpha1 = pooled-type two-point law with mu = theta R/sqrt(L), sigma^2 = 1 at
    alpha1/L; and its E_inf equals the pooled one (Cor. 2)."""
    v = SE.solve(SE.linear_law("vec", 10, 1, 0.5, 5.0), 30.0, 0.0, "square")
    p = SE.solve(SE.linear_law("pool", 10, 1, 0.5, 5.0), 3.0, 0.0, "square")
    assert v.converged and p.converged
    # same alpha_eff = 3: the test errors coincide (scale invariance of the two-point law)
    assert v.metrics["test_error"] == pytest.approx(p.metrics["test_error"], rel=1e-10)


def test_attention_q_zero_equals_pooled():
    law = SE.attention_law(6, 1, 0.5, 4.0, 1.0, 0.0, 0.6, log2_points=8, n_scrambles=2, seed=3)
    ra = SE.solve(law, 2.0, 1e-2, "square")
    rp = SE.solve(SE.linear_law("pool", 6, 1, 0.5, 4.0), 2.0, 1e-2, "square")
    assert ra.converged and rp.converged
    # q = 0: the q-hat direction carries N(0, 1/L) noise plus signal theta_y R/L s_q: pooled
    assert ra.metrics["test_error"] == pytest.approx(rp.metrics["test_error"], abs=5e-3)


def test_qmc_error_is_reported():
    law = SE.attention_law(6, 1, 0.5, 4.0, 1.0, 1.5, 0.6, log2_points=8, n_scrambles=4, seed=1)
    r = SE.solve_with_error(law, 2.0, 1e-2, "square")
    assert r.converged and 0 < r.qmc_se["test_error"] < 0.01


@pytest.mark.parametrize("bad", [dict(alpha=-1.0), dict(lam=-0.1), dict(loss="hinge")])
def test_invalid_parameters(bad):
    law = SE.linear_law("pool", 10, 1, 0.5, 5.0)
    kw = dict(alpha=2.0, lam=0.1, loss="square")
    kw.update(bad)
    with pytest.raises(ParameterError):
        SE.solve(law, kw["alpha"], kw["lam"], kw["loss"])


def test_invalid_alignment():
    with pytest.raises(ParameterError, match="s_q"):
        SE.attention_law(6, 1, 0.5, 4.0, 1.0, 1.0, 1.5)


def test_ridgeless_square_needs_n_above_dimension():
    with pytest.raises(ParameterError, match="alpha1"):
        SE.solve(SE.linear_law("vec", 10, 1, 0.5, 5.0), 5.0, 0.0, "square")


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
    from numerics.experiments.simulators.sparse_token_erm import pooled_sample

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


def test_cli_solve_sparse_token():
    import json

    from click.testing import CliRunner

    from numerics.cli import main

    r = CliRunner().invoke(main, ["solve", "sparse-token", "--model", "pool", "--loss", "square",
                                  "--param", "alpha1=3", "--param", "lam=1e-3", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["converged"] and out["residual"] < 1e-25 and 0 < float(out["test_error"]) < 0.5
    assert "mpmath" in out["status"] and len(out["m"].lstrip("-").replace(".", "")) >= 29  # dps 30 digits
    # no minimiser (logistic, lambda = 0, separable regime): exit 1, no order parameters shown
    r = CliRunner().invoke(main, ["solve", "sparse-token", "--model", "pool", "--param", "alpha1=0.3",
                                  "--param", "lam=0", "--json"])
    assert r.exit_code == 1
    out = json.loads(r.output.splitlines()[0])
    assert out["converged"] is False and "test_error" not in out and "m" not in out
    r = CliRunner().invoke(main, ["solve", "sparse-token", "--param", "s_q=2"])
    assert r.exit_code == 2 and "s_q" in r.output


@given(st.floats(-30, 30), st.sampled_from([-1.0, 1.0]), st.floats(1e-3, 1e3))
def test_logistic_prox_properties(omega, y, s):
    """h solves h + s l'(h) = omega, y h >= y omega (the prox moves towards the label), and
    d_omega h = 1/(1 + s l'') lies in (0, 1]."""
    h, dl, d2l, res = SE.logistic_prox(np.array([omega]), np.array([y]), np.array([s]))
    assert res <= 1e-12 * (1 + abs(omega) + s)
    assert y * h[0] >= y * omega - 1e-12
    assert 0 < 1 / (1 + s * d2l[0]) <= 1
