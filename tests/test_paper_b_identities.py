"""Paper B derivation claims: the SymPy steps, their independent checks, and the evaluators.

The claims themselves are run (and mutated) by tests/test_claims_catalogue.py; here we test
the derivation steps and the closed-form evaluators (mpmath vs SymPy evalf)."""
import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derivations.paper_b import coercivity as co
from derivations.paper_b import counterexample as ce
from derivations.paper_b import forward_operator as fo
from derivations.paper_b import kl_divergence as kl
from derivations.paper_b import projection_lemma as pl
from derivations.paper_b import rate_exponent as re_
from numerics.core.backends import agree_digits, evalf_reference, mp_eval
from numerics.claims.paper_b import identities as claims_mod
from numerics.claims.paper_b import lemmas
from numerics.core.params import ParameterError
from numerics.experiments.paper_b import interacting_particles as particles

# this module's claims directly (registry.claims() would import every paper's claims)
CLAIM = {c.id: c for c in (*claims_mod.CLAIMS, *lemmas.CLAIMS)}


# --- forward operator ---------------------------------------------------------------------
def test_forward_linear_and_adjoint_symbolic():
    assert fo.linearity_residual() == 0
    for n in (2, 3, 5):
        assert fo.adjoint_residual(n) == 0


def test_adjoint_example_matches_brute_force_at_N3():
    # E (1/3) sum_i R_g,i R_c,i = E R_g,1 R_c,1 by exchangeability; integrate directly over 3 tokens
    x1, x2, x3 = sp.symbols("x1 x2 x3", real=True)
    g = lambda a, b: fo.G_EXAMPLE.subs({fo.x: a, fo.y: b}, simultaneous=True)
    c = lambda a, b: fo.C_EXAMPLE.subs({fo.x: a, fo.y: b}, simultaneous=True)
    e = sp.expand((g(x1, x2) + g(x1, x3)) * (c(x1, x2) + c(x1, x3)) / 4)
    for v in (x1, x2, x3):
        e = sp.integrate(e, (v, -1, 1)) / 2
    assert sp.simplify(e - fo.adjoint_example().subs(fo.N, 3)) == 0


def test_simulator_forward_matches_symbolic_definition():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(1, 4, 1))
    f = sp.lambdify((fo.x, fo.y), fo.G_EXAMPLE, "numpy")
    R = particles.forward(lambda a, b: f(a[..., 0], b[..., 0]), X)[0]
    G = sp.Matrix(4, 4, lambda p, q: fo.G_EXAMPLE.subs({fo.x: X[0, p, 0], fo.y: X[0, q, 0]}))
    assert np.allclose(R, np.array(fo.forward_matrix(G), dtype=float).ravel(), rtol=1e-13)


# --- coercivity identity --------------------------------------------------------------------
def test_coefficients_and_counts():
    assert co.coefficients() == (1 / (co.N - 1), (co.N - 2) / (co.N - 1))
    for n in range(2, 9):
        assert tuple(co.pair_counts(n)) == co.pair_counts_enumerated(n)
    general, reduced = co.risk_difference()
    assert reduced == co.ER2_1
    assert sp.simplify(co.lemma_gap() - co.c * (co.N - 2) / (co.N - 1)) == 0


def test_identity_exact_for_a_permutation_law_by_enumeration():
    # E|R_h[X]_1|^2 computed over all 4! permutations equals the identity with exact moments
    vals = [sp.Rational(v) for v in claims_mod.PERM_VALUES]
    h = co.H_MIXED
    hv = lambda a, b: h.subs({co.x1: a, co.x2: b}, simultaneous=True)
    perms = list(itertools.permutations(vals))
    ER2 = sum((sum(hv(p[0], p[j]) for j in range(1, 4)) / 3) ** 2 for p in perms) / len(perms)
    m2, c = co.pair_moments_finite(h, tuple(vals))
    assert sp.simplify(ER2 - co.identity_value(4, m2, c)) == 0


def test_cross_term_is_conditional_second_moment():
    for h in (co.H_CROSS, co.H_MIXED):
        assert sp.simplify(co.cross_term_ciid(h) - co.pair_moments(h, co.CONDITIONAL)[1]) == 0
    assert co.conditional_mean(co.H_NULL) == 0


def test_cross_moment_form_is_psd_for_ciid_laws_and_indefinite_for_a_permutation():
    """c(h) >= 0 for *every* h in span{x1^a x2^b : a, b <= 2}: the exact Gram matrix is PSD."""
    for law in (co.UNIFORM, co.GAUSSIAN):
        assert co.cross_gram(co.MONOMIALS_2, law).is_positive_semidefinite
    assert co.cross_gram(co.MONOMIALS_2, co.CONDITIONAL, sp.Rational(1, 2)).is_positive_semidefinite
    C = co.cross_gram(co.MONOMIALS_2, values=[sp.Rational(v) for v in claims_mod.PERM_VALUES])
    assert C.is_indefinite


@given(CLAIM["B.coercivity.identity"].param_space.draw(), st.sampled_from([15, 30, 50]))
@settings(max_examples=15)
def test_identity_evaluator_agrees_with_evalf(point, dps):
    claim = CLAIM["B.coercivity.identity"]
    values = claim.param_space.validate(point)
    N = values["N"]
    out = claim.evaluate(values, dps)
    ref = evalf_reference(co.identity(), {co.N: N, co.m2: values["m2"], co.c: values["c"]}, dps)
    assert agree_digits(out["E|R_h|^2"], ref) >= dps - 1 or abs(out["E|R_h|^2"] - ref) < mpmath.mpf(10) ** (-dps)
    assert abs(out["coef_m2"] + out["coef_cross"] - 1) < mpmath.mpf(10) ** (-dps)  # 1/(N-1) + (N-2)/(N-1) = 1


def test_identity_param_space_rejects_bad_input():
    space = CLAIM["B.coercivity.identity"].param_space
    with pytest.raises(ParameterError, match="parameter c"):
        space.validate({"m2": 1, "c": 2})
    with pytest.raises(ParameterError, match="parameter N"):
        space.validate({"N": 1})


# --- counterexample -------------------------------------------------------------------------
def test_permutation_counterexample_exact():
    ex = ce.permutation_example()
    assert ex["E|R_h|^2"] == sp.Rational(1, 6)
    assert ex["||h||^2"] == sp.Rational(2, 3)
    assert ex["cross"] == sp.Rational(-1, 3)
    assert ex["ratio"] == sp.Rational(1, 2) and ex["E|R_h|^2"] < ex["lemma_rhs"]
    table, worst = ce.null_h_example()
    assert worst == 0 and any(v != 0 for v in table.values())


def test_worst_ratio_closed_form_and_exact_search():
    row, at_zero, excess = ce.ratio_min_derivation()
    assert sp.simplify(at_zero - (ce.k - ce.N) / (ce.k - 2)) == 0
    assert sp.simplify(excess - ce.sigma_**2 * (ce.N - 2) / (ce.q_ * (ce.k - 2))) == 0  # >= 0: zero row sums optimal
    for n, desc, k, ratio, nullity, closed in ce.search(Ns=(3,), extra=2, multiset_k=(0, 1)):
        assert ratio == closed, (n, desc, k)
        if k == n:
            assert ratio == 0 and nullity >= 1
    # the exact (SymPy) and float (scipy eigh) minimum agree on a multiset law
    pairs, A, B = ce.quadratic_forms(ce.urn_sequences(4, [0, 0, 1, 1, 2]), 4)
    exact, _ = ce.min_ratio(pairs, A, B, 4)
    assert float(exact) == pytest.approx(claims_mod._urn_min_ratio(4, [0, 0, 1, 1, 2])[0], abs=1e-12)


@given(CLAIM["B.coercivity.counterexample"].param_space.draw(), st.sampled_from([20, 40]))
@settings(max_examples=15)
def test_counterexample_evaluator(point, dps):
    claim = CLAIM["B.coercivity.counterexample"]
    N, extra = point["N"], point["k"] - point["N"]
    out = claim.evaluate(claim.param_space.validate(point), dps)
    if extra == 0:
        assert out["min_ratio"] == 0 and out["null_dimension"] == N * (N - 2)
    else:
        ref = evalf_reference(ce.ratio_min(), {ce.N: N, ce.k: N + extra}, dps)
        assert agree_digits(out["min_ratio"], ref) >= dps - 1
        assert 0 < out["min_ratio"] < 1


def test_counterexample_param_space():
    space = CLAIM["B.coercivity.counterexample"].param_space
    with pytest.raises(ParameterError, match=r"parameter k: must be an integer in \[N, inf\) = \[5, inf\), got 4"):
        space.validate({"N": 5, "k": 4})


# --- Lemma 4.1 ---------------------------------------------------------------------------------
def test_projection_density_and_tower_property():
    assert sp.integrate(2 * pl.density_u(), (pl.tau, 0, 1)) == 1
    # E[E[X^2 | U]] = E X^2 = 1/3 (tower), by 1-D quadrature of the derived conditional mean
    cm = pl.conditional_monomial(2, 0, +1) * pl.density_u() * 2
    with mpmath.workdps(30):
        val = mpmath.quad(sp.lambdify(pl.tau, cm, "mpmath"), [0, 1])
        assert abs(val - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -25


def test_projection_pythagoras_to_25_digits():
    th = {}
    with mpmath.workdps(30):
        proj_int, Eg2, psi2_int = pl.pythagoras()
        for name, expr in (("proj", proj_int), ("psi2", psi2_int)):
            th[name] = mpmath.quad(sp.lambdify(pl.tau, expr, "mpmath"), [0, 1])
        lhs = mpmath.mpf(sp.N(pl.total_error(), 40))
        rhs = th["proj"] + mpmath.mpf(sp.N(Eg2, 40)) - th["psi2"]
        assert abs(lhs - rhs) < mpmath.mpf(10) ** -25
        assert th["proj"] < lhs  # the lemma's inequality is strict for this g_hat


# --- KL ---------------------------------------------------------------------------------------
def test_kl_steps():
    assert sp.simplify(kl.gaussian_kl() - (kl.mu1 - kl.mu2) ** 2 / (2 * kl.sigma**2)) == 0
    for n in (3, 4, 6):
        assert kl.cauchy_schwarz_gap(n) == 0
    slack = kl.bound_slack()
    assert sp.simplify(slack - kl.M * kl.N * (kl.N - 2) * (co.m2 - co.c) / (2 * kl.sigma**2 * (kl.N - 1))) == 0
    # tight case h = x1: c = m2
    m2, c = co.pair_moments(co.x1, co.UNIFORM)
    assert m2 == c == sp.Rational(1, 3)


# --- rate exponent ------------------------------------------------------------------------------
def test_rate_symbolic_steps():
    assert re_.exponent() == -2 * re_.beta / (2 * re_.beta + 1)
    assert re_.balance_residual() == 0
    assert sp.simplify(re_.threshold() - re_.K_M) == 0
    for b in (sp.Rational(1, 2), sp.Integer(2), sp.Integer(7)):
        for m in (10, 10**6):
            vals = {re_.beta: b, re_.M: m, re_.L: sp.log(m)}
            assert sp.N(re_.closed_form_residual().subs(vals), 30) == 0
            opt = re_.threshold_optimal().subs(vals)
            closed = ((1 + 2 * b) * (2 * b) ** (-2 * b / (2 * b + 1)) * (m / sp.log(m)) ** (1 / (2 * b + 1)))
            assert abs(sp.N(opt - closed, 30)) < 1e-25


@given(CLAIM["B.rate.exponent"].param_space.draw(), st.sampled_from([15, 30, 50]))
@settings(max_examples=20)
def test_rate_evaluator_agrees_with_evalf(point, dps):
    claim = CLAIM["B.rate.exponent"]
    values = claim.param_space.validate(point)
    beta, M = values["beta"], values["M"]
    out = claim.evaluate(values, dps)
    assert agree_digits(out["exponent"], evalf_reference(re_.exponent(), {re_.beta: beta}, dps)) >= dps - 1
    # evalf_reference substitutes high-precision Floats (not Rationals: Pow(huge Rational, p/q)
    # makes SymPy factor integers) and keeps the result's precision
    for key, expr in (("K_star", re_.optimal_K()), ("rd_threshold", re_.threshold()), ("B_star", re_.b_star())):
        ref = evalf_reference(expr.subs(re_.L, sp.log(re_.M)), {re_.beta: beta, re_.M: M}, dps)
        assert agree_digits(out[key], ref) >= dps - 2, key
    assert out["K_M"] == out["rd_threshold"]


def test_rate_param_space():
    space = CLAIM["B.rate.exponent"].param_space
    for bad in ({"beta": 0}, {"M": 1}, {"beta": -2}):
        with pytest.raises(ParameterError):
            space.validate(bad)


def test_claims_have_lazy_equations():
    ids = {"B.forward.linearity", "B.coercivity.identity", "B.coercivity.conditionally_iid",
           "B.coercivity.counterexample", "B.lemma41.projection", "B.kl.bound", "B.rate.exponent"}
    table = CLAIM
    assert ids == set(table)
    for cid in ids:
        eqs = table[cid].get_equations()
        assert eqs and all(e.latex() for e in eqs)
    assert mp_eval(co.coefficients()[1], {co.N: 5}, 20) == mpmath.mpf(3) / 4


def test_null_directions_lie_in_the_linear_link_class():
    """d = 3, tokens a random permutation of e1, e2, e3: g(x, y) = xᵀAy with A zero on the
    diagonal and with zero row sums is invisible (R_g[X] = 0 on every sample) though g != 0 on
    the support of ρ — the counterexample is inside the model class (docs, finding 1)."""
    A = np.array([[0.0, 1.0, -1.0], [2.0, 0.0, -2.0], [-0.5, 0.5, 0.0]])
    law = particles.Permutation(np.eye(3))
    X = law.sample(np.random.default_rng(3), 200, 3, 3)
    R = particles.forward_link(lambda u: u, A, X)
    assert np.max(np.abs(R)) < 1e-14
    x, y = particles.InteractingParticleModel(law, particles.LowRank(A, np.eye(3)), lambda u: u, 0.0, 3).sample_pairs(
        np.random.default_rng(4), 200)
    assert np.mean(np.einsum("ni,ij,nj->n", x, A, y) ** 2) > 0.5


def test_vector_moments_against_hand_wick_formulas():
    # d = 3, N(0, I/3): m2 = tr(AᵀA)/9 + E|y|^4 + E x1^2 = tr(AᵀA)/9 + 15/9 + 1/3, c = (E|y|^2)^2 + E x1^2
    m2, c = co.pair_moments_vector(co.H_VEC3, 3, co.GAUSSIAN_DIM)
    assert m2 == (co.A_VEC3.T * co.A_VEC3).trace() / 9 + sp.Rational(15, 9) + sp.Rational(1, 3)
    assert c == 1 + sp.Rational(1, 3)


# --- mutants of the derivations -------------------------------------------------------------
def test_exponent_mutants_are_the_wrong_exponents():
    """The rate claims must fail for -2/3 instead of -4/5 (beta = 2): the mutant gives it."""
    from derivations.core import MUTANTS, mutated

    assert re_.exponent().subs(re_.beta, 2) == sp.Rational(-4, 5)
    with mutated(MUTANTS["B.rate.exponent:beta/(beta+1)"]):
        assert re_.exponent().subs(re_.beta, 2) == sp.Rational(-2, 3)
    with mutated(MUTANTS["B.rate.exponent:beta-1/2"]):
        assert re_.exponent().subs(re_.beta, 2) == sp.Rational(-3, 4)
    assert re_.exponent().subs(re_.beta, 2) == sp.Rational(-4, 5)  # the true one is not touched


def test_coercivity_mutants_change_the_identity():
    from derivations.core import MUTANTS, mutated

    with mutated(MUTANTS["B.coercivity.off_diagonal:diagonal_kept"]):
        assert sp.simplify(co.identity() - (co.m2 / (co.N - 1) + co.c)) == 0
    with mutated(MUTANTS["B.forward.weight:1/N"]):
        assert sp.simplify(co.coefficients()[0] - (co.N - 1) / co.N**2) == 0
    assert co.coefficients() == (1 / (co.N - 1), (co.N - 2) / (co.N - 1))


def test_successive_difference_gap_vanishes_for_a_function_of_u():
    """The Lemma 4.1 experiment's gap estimator: for g = f(U) the gap E[Var(g|U)] is 0, and
    the estimate over adjacent pairs in U is ~ the spacing bias only."""
    rng = np.random.default_rng(0)
    U = np.sort(rng.uniform(-1, 1, 200_000) * rng.uniform(-1, 1, 200_000))
    g = U**2 - U
    half_sq = (g[0::2] - g[1::2]) ** 2 / 2
    assert half_sq.mean() < 1e-8  # against a gap of 0.2 in the claim


# --- the exact comparator of B.forward.linearity and --dps ---------------------------------
def test_uniform_quadrature_rule_is_exact_for_its_degree():
    X, w = particles.UniformCube().quadrature(3, 1, 3)
    assert X.shape == (27, 3, 1) and abs(w.sum() - 1) < 1e-15
    x = X[..., 0]
    # E x1^4 x2^2 x3^5 ... each coordinate degree <= 5 = 2*3 - 1: exact
    assert abs(np.sum(w * x[:, 0] ** 4 * x[:, 1] ** 2) - (1 / 5) * (1 / 3)) < 1e-15
    assert abs(np.sum(w * x[:, 2] ** 5)) < 1e-15
    with pytest.raises(ParameterError):
        particles.UniformCube().quadrature(20, 1, 5)  # 5^20 configurations: refused


def test_linearity_quadrature_rows_detect_a_half_percent_adjoint_kernel_error():
    """The quadrature rows are exact up to rounding: they detect relative errors far below
    0.5 %, and the adjoint-kernel mutant (0.55 % at N = 8, 1.7 % at N = 3) fails the claim."""
    from derivations.core import MUTANTS, mutated
    from numerics.claims.base import Settings, judge
    from numerics.claims.power import detectable

    claim = CLAIM["B.forward.linearity"]
    settings = Settings(mode="quick")
    ev = claim.collect(settings)
    assert judge(ev, 0.0, claim).passed
    quad = [d for d in detectable(ev) if "Gauss-Legendre" in d["label"]]
    assert len(quad) == 2 and all(d["relative"] < 1e-9 for d in quad)
    with mutated(MUTANTS["B.forward.adjoint_kernel:second_slot"]):
        bad = claim.collect(settings)
    v = judge(bad, 0.0, claim)
    assert not v.passed
    assert all(not r.passed for r in v.rows if "Gauss-Legendre" in r.label)


def test_paper_b_claims_declare_and_honour_dps(monkeypatch):
    """Every Paper B claim declares uses_dps, and its experiment evaluates the closed forms at
    Settings.dps: every mpmath evaluation of a theory value runs at the requested digits, and
    the claim passes at a low and a high dps."""
    from numerics.claims.base import Settings, judge
    from numerics.claims.paper_b import rates, schedules
    from numerics.theory.paper_b import identities as th_id
    from numerics.theory.paper_b import rates as th_rates

    for c in (*claims_mod.CLAIMS, *lemmas.CLAIMS, *rates.CLAIMS, *schedules.CLAIMS):
        assert c.uses_dps, c.id
    seen = []
    for mod in (th_id, th_rates):
        real = mod.mp_eval
        def spy(e, v, dps=30, *a, _r=real, **k):
            seen.append(dps)
            return _r(e, v, dps, *a, **k)
        monkeypatch.setattr(mod, "mp_eval", spy)
    for cid in ("B.rate.exponent", "B.coercivity.counterexample", "B.forward.linearity"):
        claim = CLAIM[cid]
        for dps in (12, 45):
            seen.clear()
            ev = claim.collect(Settings(mode="quick", dps=dps))
            assert seen and set(seen) == {dps}, (cid, dps, set(seen))
            assert judge(ev, 0.0, claim).passed, (cid, dps)


@pytest.mark.parametrize("mode, n", [("quick", 7), ("full", 9)])
def test_the_urn_cases_of_each_size(mode, n):
    """The urn laws the counterexample's claim checks (N tokens drawn without replacement from an
    urn of values): seven at quick size, two more at full size, each urn larger than N."""
    from numerics.claims.base import Settings
    from numerics.claims.paper_b.identities import _urn_cases

    cases = _urn_cases(Settings(mode=mode))
    assert len(cases) == n and all(isinstance(N, int) and 3 <= N < len(values) for N, values in cases)
