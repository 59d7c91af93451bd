"""Paper B estimator and rate-experiment machinery: spline basis vs scipy, analytic gradient
vs finite differences, oracle recovery with zero noise, learnt-A recovery, the conditional-MC
error formula vs plain Monte Carlo over the noise, slope fitting, schedule derivation."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st
from scipy.interpolate import BSpline

from derivations.paper_b import rate_schedule as RS
from numerics.experiments.paper_b.pairwise_erm import PairwiseERM, SplineBasis, g_error, pieces_for
from numerics.core.params import ParameterError
from numerics.experiments.paper_b.rates import (
    RateSetup, bootstrap_slope, first_order_prediction, loglog_slope, m_grid, make_problem,
    oracle_expected_error,
)
from numerics.experiments.paper_b import interacting_particles as ip


@given(s=st.integers(0, 10), K=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_basis_matches_scipy_including_extrapolation(s, K, seed):
    b = SplineBasis(s, K)
    u = np.random.default_rng(seed).uniform(-1.5, 1.5, 300)
    ref = BSpline.design_matrix(u, b.knots(), s, extrapolate=True).toarray()
    np.testing.assert_allclose(b.design(u), ref, atol=1e-12)
    c = np.random.default_rng(seed + 1).standard_normal(b.n)
    if s > 0:
        np.testing.assert_allclose(b.evaluate(c, u, derivative=True),
                                   BSpline(b.knots(), c, s).derivative()(u), atol=1e-9 * (1 + K) ** s)


@given(s=st.integers(0, 8), K=st.integers(1, 10), N=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_partition_of_unity_and_averaged_design(s, K, N, seed):
    """On [-1, 1] the basis sums to 1, so every row of the averaged design sums to 1; and the
    averaged design equals the naive average of basis rows over j != i."""
    b = SplineBasis(s, K)
    rng = np.random.default_rng(seed)
    U = rng.uniform(-1, 1, (3, N, N))
    Phi = b.averaged_design(U)
    np.testing.assert_allclose(Phi.sum(axis=1), 1.0, atol=1e-12)
    ref = np.array([np.mean([b.design(U[m, i, j:j + 1])[0] for j in range(N) if j != i], axis=0)
                    for m in range(3) for i in range(N)])
    np.testing.assert_allclose(Phi, ref, atol=1e-13)


@pytest.mark.parametrize("r, d, N", [(1, 3, 3), (2, 4, 4)])
def test_gradient_matches_finite_differences(r, d, N):
    rng = np.random.default_rng(10 + r)
    A = ip.interaction_matrix(rng, d, r)
    phi = ip.bspline_link(rng, 3, 4)
    X, Y = ip.InteractingParticleModel(ip.UniformCube(), A, phi, 0.3, N).simulate(rng, 300)
    for a_bar in (1.0, 0.7):
        est = PairwiseERM(3, 5, r, a_bar=a_bar)
        th = est.initial(rng, X)
        F, g, _ = est.projected(th, X, Y)
        eps = 1e-6
        fd = np.array([(est.projected(th + eps * e, X, Y)[0] - est.projected(th - eps * e, X, Y)[0]) / (2 * eps)
                       for e in np.eye(th.size)])
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-8 * np.abs(g).max())
        # the loss is invariant under theta -> c theta, so the gradient is tangent
        assert abs(th @ g) < 1e-10 * np.linalg.norm(th) * np.linalg.norm(g)


@pytest.mark.parametrize("P, pieces", [(3, 4), (8, 4), (2, 3)])
def test_oracle_recovers_phi_without_noise(P, pieces):
    """phi* a spline on 4 pieces; the estimator's grid with 2*pieces contains its knots, so the
    noise-free oracle fit is exact (this failed with a 1e-10 ridge for P = 8: docs)."""
    rng = np.random.default_rng(P)
    A = ip.interaction_matrix(rng, 5, 1)
    phi = ip.bspline_link(rng, P, pieces)
    m = ip.InteractingParticleModel(ip.UniformCube(), A, phi, 0.0, 4)
    X, Y = m.simulate(rng, 2000)
    fit = PairwiseERM(P, 2 * pieces).fit_phi(X, Y, A)
    x1, x2 = m.sample_pairs(rng, 5000)
    assert g_error(fit, m.g_star, x1, x2)[0] < 1e-20
    u = np.linspace(-0.9, 0.9, 101)
    np.testing.assert_allclose(fit.phi(u), phi(u), atol=1e-9)


def test_learnt_A_recovers_g_without_noise():
    rng = np.random.default_rng(3)
    A = ip.interaction_matrix(rng, 4, 1)
    phi = ip.bspline_link(rng, 3, 4)
    m = ip.InteractingParticleModel(ip.UniformCube(), A, phi, 0.0, 3)
    X, Y = m.simulate(rng, 1500)
    fit = PairwiseERM(3, 8, 1, restarts=1).fit(X, Y, rng)
    x1, x2 = m.sample_pairs(rng, 5000)
    err = g_error(fit, m.g_star, x1, x2)[0]
    assert err < 1e-6 * np.mean(m.g_star(x1, x2) ** 2), (err, fit.message)
    assert fit.timings["total"] > 0 and fit.restarts == 1
    assert np.isclose(np.linalg.norm(fit.A.A), 1.0)  # on the sphere ||A||_F = a_bar


def _even_link(P=3):
    """phi*(u) = the even part of a random spline: E[phi*(U) X_1 X_2^T] = 0."""
    base = ip.bspline_link(np.random.default_rng(21), P, 4)
    return lambda u: 0.5 * (base(u) + base(-u))


def test_hessian_start_finds_A_when_phi_is_even():
    """For an even link the first-moment start carries no information (alignment ~ 0) while
    the principal-Hessian-directions start finds span(A*) at d = 20, and the ERM from it
    recovers g; alignment = |<A, A*>_F| / (|A|_F |A*|_F)."""
    rng = np.random.default_rng(5)
    d = 20
    A = ip.interaction_matrix(rng, d, 1)
    m = ip.InteractingParticleModel(ip.UniformCube(), A, _even_link(), 0.05, 4)
    X, Y = m.simulate(rng, 4000)
    est = PairwiseERM(3, 8, 1, restarts=1)

    def align(th):
        U, V, _ = est.factors(th, d)
        B = U @ V.T
        return abs(np.sum(B * A.A)) / (np.linalg.norm(B) * np.linalg.norm(A.A))

    assert align(est.moment_start(X, Y)) < 0.3
    assert align(est.hessian_start(X, Y)) > 0.9
    fit = est.fit(X, Y, rng)
    B = fit.A.A
    assert abs(np.sum(B * A.A)) / (np.linalg.norm(B) * np.linalg.norm(A.A)) > 0.999


def test_conditional_mc_formula_matches_noise_average():
    """oracle_expected_error integrates the noise out exactly; check it against the plain
    average of the realised error over 400 noise draws on the same design."""
    setup = RateSetup(P=3, d=2, N=3, sigma=0.5, n_values=(8,), c=2.0, seeds=2)
    model = make_problem(setup, np.random.SeedSequence(1))
    rng = np.random.default_rng(2)
    quiet = ip.InteractingParticleModel(model.law, model.A, model.phi, 0.0, 3)
    X, F = quiet.simulate(rng, 300)
    x1, x2 = model.sample_pairs(rng, 4000)
    u = model.A.form(x1, x2)
    est = PairwiseERM(3, 5)
    exact, bias, var = oracle_expected_error(est, X, F, model.A, 0.5, est.basis.design(u), model.phi(u))
    errs = []
    for _ in range(400):
        Y = F + 0.5 * rng.standard_normal(F.shape)
        errs.append(g_error(est.fit_phi(X, Y, model.A), model.g_star, x1, x2)[0])
    errs = np.asarray(errs)
    assert abs(errs.mean() - exact) < 4 * errs.std() / np.sqrt(errs.size)
    assert 0 <= bias < exact and var > 0


def test_first_order_variance_equals_dimension_for_two_tokens():
    """N = 2: Sigma = G, so V = tr(G Sigma^{-1}) = n (up to the Monte Carlo of G vs Sigma)."""
    setup = RateSetup(P=3, d=1, N=2, n_values=(8, 10), c=2.0, seeds=2)
    pred = first_order_prediction(setup, np.random.SeedSequence(5), M_pop=20000, halves=2)
    V = np.asarray(pred.V)
    np.testing.assert_allclose(V[:, 0], [8, 10], rtol=0.05)
    assert np.all(V[:, 1] > 0)  # the inverse-Gram inflation at finite M is positive
    assert pred.slope < pred.slope_first_order  # ... and steepens the slope


@given(beta=st.integers(1, 7), c=st.floats(0.5, 5.0))
def test_m_grid_makes_dimension_exact(beta, c):
    ns = (c * 2, c * 3)
    Ms = m_grid(beta, c, ns)
    for n, M in zip(ns, Ms):
        assert abs(c * M ** (1 / (2 * beta + 1)) - n) / n < 1e-3 or M < 50


@given(slope=st.floats(-2.0, -0.1), seed=st.integers(0, 2**32 - 1))
def test_bootstrap_slope_exact_power_law(slope, seed):
    Ms = [1000, 3000, 10000, 30000]
    errors = np.tile(np.asarray(Ms, float) ** slope, (7, 1)) * np.exp(
        np.random.default_rng(seed).normal(0, 1e-9, (7, 4)))
    fit = bootstrap_slope(Ms, errors, np.random.default_rng(0), boot=200)
    assert abs(fit.slope - slope) < 1e-6 and fit.se < 1e-6
    assert abs(loglog_slope(Ms, errors[0]) - slope) < 1e-6


def test_pieces_for_and_schedule_derivation():
    assert pieces_for(32768, 2, 3.0, 3) == 21
    theta = RS.RE.exponent()
    assert sp.simplify(RS.var_slope_ours() - theta) == 0
    assert sp.simplify(RS.bias_slope_ours() - theta) == 0
    v, b = RS.corrections()
    assert sp.simplify(v + 1 / (RS.L * (2 * RS.beta + 1))) == 0
    assert sp.simplify(b - 2 * RS.beta / (RS.L * (2 * RS.beta + 1))) == 0


def test_rate_claim_evaluate_mpmath_agrees_with_sympy():
    import mpmath

    from numerics.claims.paper_b.rates import CLAIMS

    claim = CLAIMS[1]
    vals = claim.param_space.validate({"P": "8", "M": "1e4"})
    out = claim.evaluate(vals, 40)
    mpmath.mp.dps = 40
    assert mpmath.almosteq(out["exponent"], mpmath.mpf(-14) / 15, 1e-38)
    ref = sp.N(RS.var_slope_paper().subs({RS.beta: 7, RS.L: sp.log(10**4)}), 45)
    assert mpmath.almosteq(out["variance_slope_paper_schedule"], mpmath.mpf(str(ref)), 1e-36)
    with pytest.raises(ParameterError, match="parameter P"):
        claim.param_space.validate({"P": "1"})
    with pytest.raises(ParameterError, match="parameter M"):
        claim.param_space.validate({"M": "1"})


@pytest.mark.parametrize("call, word", [
    (lambda: PairwiseERM(-1, 4), "parameter s"),
    (lambda: PairwiseERM(3, 0), "parameter K"),
    (lambda: PairwiseERM(3, 4, ridge=-1.0), "parameter ridge"),
    (lambda: PairwiseERM(3, 4, restarts=0), "parameter restarts"),
    (lambda: PairwiseERM(3, 4, r=0), "parameter r"),
    (lambda: PairwiseERM(3, 4, a_bar=0.0), "parameter a_bar"),
    (lambda: PairwiseERM(3, 4, a_bar=float("nan")), "parameter a_bar"),
    (lambda: SplineBasis(3, 4, 1.0, -1.0), "lo, hi"),
    (lambda: PairwiseERM(3, 4).fit_phi(np.zeros((5, 1, 2)), np.zeros((5, 1)), None), "parameter X"),
    (lambda: PairwiseERM(3, 4).fit_phi(np.zeros((5, 3, 2)), np.zeros((5, 2)), None), "parameter Y"),
    (lambda: PairwiseERM(3, 4, r=3).fit(np.zeros((5, 3, 2)), np.zeros((5, 3)), np.random.default_rng()), "parameter r"),
    (lambda: RateSetup(P=1).check(), "parameter P"),
    (lambda: RateSetup(P=3, n_values=(3, 8)).check(), "n_values"),
    (lambda: RateSetup(seeds=1).check(), "parameter seeds"),
])
def test_invalid_parameters(call, word):
    with pytest.raises(ParameterError, match=word):
        call()


def test_phi_hat_is_constant_beyond_data_and_knots():
    rng = np.random.default_rng(4)
    A = ip.interaction_matrix(rng, 3, 1)
    phi = ip.bspline_link(rng, 3, 4)
    X, Y = ip.InteractingParticleModel(ip.UniformCube(), A, phi, 0.1, 3).simulate(rng, 500)
    fit = PairwiseERM(3, 6).fit_phi(X, Y, A)
    lo, hi = fit.u_range
    assert lo <= -1.0 and hi >= 1.0
    np.testing.assert_allclose(fit.phi(np.array([hi + 3.0, lo - 3.0])), fit.phi(np.array([hi, lo])))


@pytest.mark.parametrize("d, r", [(1, 1), (4, 1), (5, 2), (6, 3)])
def test_tangent_directions(d, r):
    """p = r(2d - r) - 1 Frobenius-orthonormal directions, orthogonal to A*, in the tangent
    space of the rank-r matrices (a curve A* + t E stays rank r to first order:
    (I - Pu) E (I - Pv) = 0)."""
    from numerics.experiments.paper_b.parametric_excess import tangent_directions

    A = ip.interaction_matrix(np.random.default_rng(d + r), d, r, "dense")
    E = tangent_directions(A)
    assert E.shape == (r * (2 * d - r) - 1, d, d)
    np.testing.assert_allclose(np.einsum("kab,lab->kl", E, E), np.eye(len(E)), atol=1e-12)
    np.testing.assert_allclose(np.einsum("kab,ab->k", E, A.A), 0.0, atol=1e-12)
    Qu, Qv = np.linalg.qr(A.U)[0], np.linalg.qr(A.V)[0]
    Iu, Iv = np.eye(d) - Qu @ Qu.T, np.eye(d) - Qv @ Qv.T
    np.testing.assert_allclose(Iu @ E @ Iv, 0.0, atol=1e-12)


def test_averaged_parametric_features_match_loops():
    from numerics.experiments.paper_b.parametric_excess import (
        _averaged_parametric_features, _parametric_features, tangent_directions,
    )

    rng = np.random.default_rng(8)
    A = ip.interaction_matrix(rng, 4, 2, "dense")
    dphi = ip.bspline_link(rng, 3, 4).derivative()
    E = tangent_directions(A)
    X = rng.uniform(-1, 1, (3, 4, 4))
    got = _averaged_parametric_features(dphi, A, E, X)
    ref = np.array([np.mean([_parametric_features(dphi, A, E, X[m, i][None], X[m, j][None])[0]
                             for j in range(4) if j != i], axis=0) for m in range(3) for i in range(4)])
    np.testing.assert_allclose(got, ref, atol=1e-13)


def test_parametric_excess_is_the_tangent_dimension_for_two_tokens():
    """N = 2: Sigma = G over all features, so V_full - V_oracle = p = 2d - 2 (rank 1), up to
    the Monte Carlo difference between the population and test-pair Gram matrices."""
    from numerics.experiments.paper_b.parametric_excess import parametric_prediction

    setup = RateSetup(P=3, d=4, N=2, n_values=(8,), c=2.0, seeds=2, n_test=40_000)
    pred = parametric_prediction(setup, np.random.SeedSequence(6), M_pop=20_000, halves=2)
    assert pred.p == 6
    np.testing.assert_allclose(pred.excess, 6.0, rtol=0.05)


def test_figure_panel_draws_learnt_runs_with_their_oracle(tmp_path):
    """The full-mode figure path: a learnt-A run carries the oracle fit on the same data,
    drawn dotted next to it."""
    import matplotlib.pyplot as plt

    from numerics.figures.paper_b.fig1 import _panel
    from numerics.experiments.paper_b.rates import run_rate

    setup = RateSetup(P=3, d=2, N=3, n_values=(8, 9), c=2.0, seeds=2, oracle=False, n_test=2000, restarts=1)
    res = run_rate(setup, np.random.SeedSequence(9), with_bias=False)
    assert res.oracle_errors.shape == res.errors.shape and np.all(res.alignment <= 1 + 1e-12)
    fit = bootstrap_slope(res.Ms, res.errors, np.random.default_rng(0), boot=50)
    fig, ax = plt.subplots()
    _panel(ax, {("d=2", 3): (res, fit)}, "t")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("A = A^*" in t for t in labels)
    fig.savefig(tmp_path / "p.png")
    plt.close(fig)


def test_make_problem_is_a_function_of_its_seed():
    """SeedSequence.spawn is stateful; make_problem must give the same (phi*, A*) however often
    it is called with the same seed object (it once did not)."""
    setup = RateSetup(P=3, d=4)
    ss = np.random.SeedSequence(12)
    a, b = make_problem(setup, ss), make_problem(setup, ss)
    np.testing.assert_array_equal(a.phi.c, b.phi.c)
    np.testing.assert_array_equal(a.A.A, b.A.A)
    fresh = np.random.SeedSequence(12).spawn(2)  # ... and the children spawn(2) gives first
    np.testing.assert_array_equal(a.phi.c, ip.bspline_link(np.random.default_rng(fresh[0]), 3, setup.phi_pieces).c)


def test_hessian_start_moments_match_their_definition():
    """S_row, S_col of hessian_start (computed without an (M, d, d) intermediate) against the
    definition by loops: top eigenvectors of the looped moments span the same directions."""
    rng = np.random.default_rng(11)
    X, Y = rng.uniform(-1, 1, (7, 4, 3)), rng.standard_normal((7, 4))
    Yc = Y - Y.mean()
    S_row = sum(Yc[m, i] * np.outer(X[m, i], X[m, i]) for m in range(7) for i in range(4)) / 28
    S_col = sum(Yc[m, i] * np.outer(X[m, j], X[m, j]) for m in range(7) for i in range(4)
                for j in range(4) if j != i) / (28 * 3)
    top = lambda S: np.linalg.eigh(S)[1][:, [np.argmax(np.abs(np.linalg.eigh(S)[0]))]]  # noqa: E731
    th = PairwiseERM(3, 4, 1).hessian_start(X, Y)
    for got, S in ((th[:3], S_row), (th[3:], S_col)):
        assert abs(abs(got @ top(S)[:, 0]) - 1) < 1e-12


def test_low_rank_form_is_the_bilinear_form():
    A = ip.interaction_matrix(np.random.default_rng(2), 5, 2, "dense")
    x, y = np.random.default_rng(3).standard_normal((2, 6, 5))
    np.testing.assert_allclose(A.form(x, y), np.einsum("ni,ij,nj->n", x, A.A, y), atol=1e-13)
    X = np.random.default_rng(4).standard_normal((3, 4, 5))
    np.testing.assert_allclose(ip.pair_values(X, A)[1, 2, 0], A.form(X[1, 2], X[1, 0]), atol=1e-13)


def test_least_squares_factors_gram_route_matches_the_svd():
    """The Gram route of the oracle fit gives the SVD's coefficients, singular values and
    variance traces to 1e-9 on a well-conditioned design; a rank-deficient design takes the SVD
    route and returns the minimum-norm fit."""
    from numerics.experiments.paper_b import rates as rate_sim

    rng = np.random.default_rng(3)
    Phi = rng.standard_normal((5000, 12)) @ np.diag(np.geomspace(1, 1e-2, 12))
    F = rng.standard_normal(5000)
    sv, Vt, coef = rate_sim._least_squares_factors(Phi, F)
    ref = np.linalg.lstsq(Phi, F, rcond=None)[0]
    assert np.allclose(coef, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    s_ref = np.linalg.svd(Phi / np.sqrt(5000), compute_uv=False)
    assert np.allclose(np.sort(sv)[::-1], s_ref, rtol=1e-9)
    G = rng.standard_normal((12, 12)); G = G @ G.T
    assert np.isclose(np.sum(np.diag(Vt @ G @ Vt.T) / sv**2), np.trace(G @ np.linalg.pinv(Phi.T @ Phi / 5000)),
                      rtol=1e-9)
    deficient = np.column_stack([Phi, Phi[:, 0]])  # a repeated column: the Gram matrix is singular
    sv, Vt, coef = rate_sim._least_squares_factors(deficient, F)
    assert len(sv) == 12
    assert np.allclose(coef, np.linalg.lstsq(deficient, F, rcond=None)[0], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("P", [2, 4, 5, 6, 7])
def test_the_rate_grid_at_a_degree_of_the_point_space(P):
    """B.rate.smoothness at a point (P other than the design's 3 and 8): P + 6 spline dimensions
    and up, at least five, increasing, and M = (n / c)^(2P - 1) from 1000 to 1.3-1.6 decades above
    (the P = 8 grid's span), so the fitted slope sees the same range of M at every degree."""
    from numerics.claims.paper_b import rates

    g = rates._grid(P)
    n = g["n_values"]
    assert n[0] == P + 6 and len(n) >= 5 and all(b > a for a, b in zip(n, n[1:]))
    M = [(k / g["c"]) ** (2 * P - 1) for k in n]
    assert M[0] == pytest.approx(1000) and 1.3 < np.log10(M[-1] / M[0]) < 1.6
