"""Paper B simulator: forward operator vs a naive loop, token laws (shape, exchangeability,
conditional structure), A* bound, B-spline link, invalid parameters."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from numerics.core.params import ParameterError
from numerics.experiments.paper_b import interacting_particles as ip


def naive(g, X):
    M, N, _ = X.shape
    return np.array([[np.mean([g(X[m, i], X[m, j]) for j in range(N) if j != i])
                      for i in range(N)] for m in range(M)])


LAWS = [ip.UniformCube(), ip.Gaussian(), ip.Gaussian("unit"), ip.Conditional(0.7),
        ip.Conditional(0.3, ip.Gaussian())]


@given(M=st.integers(1, 4), N=st.integers(2, 5), d=st.integers(1, 4), r=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["coordinate", "dense"]))
def test_forward_link_matches_naive_loop(M, N, d, r, seed, kind):
    r = min(r, d)
    rng = np.random.default_rng(seed)
    A = ip.interaction_matrix(rng, d, r, kind)
    phi = ip.bspline_link(rng, 3, 4)
    X = ip.UniformCube().sample(rng, M, N, d)
    g = lambda x, y: phi(np.einsum("...i,ij,...j->...", x, A.A, y))  # noqa: E731
    ref = naive(g, X)
    np.testing.assert_allclose(ip.forward_link(phi, A, X), ref, atol=1e-13)
    np.testing.assert_allclose(ip.forward_link(phi, A.A, X), ref, atol=1e-13)
    np.testing.assert_allclose(ip.forward(g, X), ref, atol=1e-13)


def test_forward_is_linear_in_g():
    rng = np.random.default_rng(1)
    X = ip.Gaussian().sample(rng, 6, 4, 3)
    g1 = lambda x, y: np.sin(x[..., 0] * y[..., 1])  # noqa: E731
    g2 = lambda x, y: x[..., 2] ** 2 + y[..., 0]  # noqa: E731
    lhs = ip.forward(lambda x, y: 2.0 * g1(x, y) - 3.0 * g2(x, y), X)
    np.testing.assert_allclose(lhs, 2.0 * ip.forward(g1, X) - 3.0 * ip.forward(g2, X), atol=1e-13)


@pytest.mark.parametrize("law", LAWS, ids=lambda l: f"{l.name}")
def test_law_shapes_and_bounds(law):
    rng = np.random.default_rng(0)
    X = law.sample(rng, 50, 3, 4)
    assert X.shape == (50, 3, 4)
    assert np.all(np.abs(X) <= law.sup_norm(4))


def test_gaussian_variance_conventions():
    rng = np.random.default_rng(2)
    X = ip.Gaussian("dim").sample(rng, 20000, 2, 8)
    assert abs(np.mean(np.sum(X**2, axis=-1)) - 1.0) < 0.02  # E|x|^2 = 1
    Y = ip.Gaussian("unit").sample(rng, 20000, 2, 8)
    assert abs(np.var(Y) - 1.0) < 0.03


def _pair_stats(X):
    """Means of X_1 X_2 and X_1 X_3 and X_2 X_1 (first coordinate) -- exchangeability."""
    x = X[..., 0]
    return np.array([np.mean(x[:, 0] * x[:, 1]), np.mean(x[:, 1] * x[:, 0]),
                     np.mean(x[:, 2] * x[:, 1]), np.mean(x[:, 0] ** 2), np.mean(x[:, 2] ** 2)])


@pytest.mark.parametrize("law", [ip.UniformCube(), ip.Conditional(0.7),
                                 ip.Permutation(np.array([[1.0], [-0.5], [2.0]]))],
                         ids=["uniform", "conditional", "permutation"])
def test_exchangeability_of_laws(law):
    """Permuting token positions does not change the law: compare position-swapped moments
    (within 5 standard errors) of 40 000 samples."""
    rng = np.random.default_rng(3)
    X = law.sample(rng, 40000, 3, 1)
    Xp = X[:, [2, 0, 1]]
    a, b = _pair_stats(X), _pair_stats(Xp)
    se = np.sqrt(np.var(X[..., 0] ** 2) / 40000) * 3 + 1e-12
    assert np.all(np.abs(a - b) < 5 * se)


def test_conditional_law_covariance():
    """X_j = c Z + W_j: Cov(X_1, X_2) = c^2 Var Z = c^2/3 per coordinate (uniform base)."""
    rng = np.random.default_rng(4)
    c = 0.8
    X = ip.Conditional(c).sample(rng, 200000, 2, 1)[..., 0]
    cov = np.mean(X[:, 0] * X[:, 1])
    assert abs(cov - c**2 / 3) < 5 * np.std(X[:, 0] * X[:, 1]) / np.sqrt(200000)


def test_permutation_law_is_a_permutation():
    rng = np.random.default_rng(5)
    vals = rng.uniform(-1, 1, (4, 2))
    law = ip.Permutation(vals)
    X = law.sample(rng, 100, 4, 2)
    for m in range(100):
        assert sorted(map(tuple, X[m])) == sorted(map(tuple, vals))
    assert not law.conditionally_iid and law.exchangeable


@given(d=st.integers(1, 12), r=st.integers(1, 4), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["coordinate", "dense"]))
def test_interaction_matrix_bounded_on_cube(d, r, seed, kind):
    """|x^T A* y| <= 1 at the cube's vertices maximising it (exact for rank 1; random
    vertices otherwise), and rank <= r."""
    r = min(r, d)
    rng = np.random.default_rng(seed)
    A = ip.interaction_matrix(rng, d, r, kind)
    assert np.linalg.matrix_rank(A.A) <= r
    # rank-1 piece: the sup over the cube of (x.u)(v.y) is |u|_1 |v|_1
    bound = np.sum(np.abs(A.U).sum(0) * np.abs(A.V).sum(0))
    assert bound <= 1 + 1e-12
    V = rng.choice([-1.0, 1.0], size=(200, d))
    assert np.max(np.abs(V @ A.A @ V[::-1].T)) <= 1 + 1e-12


def test_coordinate_design_law_of_u_independent_of_d():
    """Coordinate A*: U = x_a y_b / 1 has the same law for every d (product of uniforms)."""
    qs = []
    for d in (1, 5, 30):
        rng = np.random.default_rng(6)
        A = ip.interaction_matrix(rng, d, 1, "coordinate")
        model = ip.InteractingParticleModel(ip.UniformCube(), A, np.sin, 0.0, 2)
        x1, x2 = model.sample_pairs(rng, 40000)
        u = np.einsum("ni,ij,nj->n", x1, A.A, x2)
        qs.append(np.quantile(np.abs(u), [0.25, 0.5, 0.9]))
    np.testing.assert_allclose(qs[0], qs[1], atol=0.02)
    np.testing.assert_allclose(qs[0], qs[2], atol=0.02)


def test_bspline_link_bounded_and_degree():
    rng = np.random.default_rng(7)
    phi = ip.bspline_link(rng, 3, 4)
    u = np.linspace(-1, 1, 2001)
    assert np.max(np.abs(phi(u))) <= 1.0
    assert phi.k == 3 and len(phi.t) == 4 + 1 + 2 * 3


def test_simulate_noise_level_and_sample_pairs():
    rng = np.random.default_rng(8)
    A = ip.interaction_matrix(rng, 3, 1)
    phi = ip.bspline_link(rng, 2, 3)
    m = ip.InteractingParticleModel(ip.UniformCube(), A, phi, 0.3, 5)
    X, Y = m.simulate(rng, 20000)
    resid = Y - ip.forward_link(phi, A, X)
    assert abs(resid.std() - 0.3) < 0.005
    x1, x2 = m.sample_pairs(rng, 10)
    assert x1.shape == x2.shape == (10, 3)
    Xf, Yf = ip.simulate(np.random.default_rng(9), 4, law=ip.UniformCube(), N=5, A=A, phi=phi, sigma=0.0)
    np.testing.assert_allclose(Yf, ip.forward_link(phi, A, Xf))


@pytest.mark.parametrize("call, word", [
    (lambda: ip.UniformCube(-1.0), "half_width"),
    (lambda: ip.UniformCube().sample(np.random.default_rng(), 3, 1, 2), "parameter N"),
    (lambda: ip.UniformCube().sample(np.random.default_rng(), 0, 2, 2), "parameter M"),
    (lambda: ip.UniformCube().sample(np.random.default_rng(), 3, 2, 0), "parameter d"),
    (lambda: ip.Gaussian("weird"), "variance"),
    (lambda: ip.Conditional(-0.1), "parameter c"),
    (lambda: ip.Conditional(0.5, "uniform"), "parameter base: must be an i.i.d. token law"),
    (lambda: ip.Permutation(np.array([1.0])), "values"),
    (lambda: ip.Permutation(np.zeros((3, 2))).sample(np.random.default_rng(), 2, 4, 2), "N, d"),
    (lambda: ip.interaction_matrix(np.random.default_rng(), 3, 4), "parameter r"),
    (lambda: ip.interaction_matrix(np.random.default_rng(), 3, 1, "sparse"), "kind"),
    (lambda: ip.interaction_matrix(np.random.default_rng(), 3, 1, token_sup=0.0), "token_sup"),
    (lambda: ip.bspline_link(np.random.default_rng(), 21, 4), "parameter P"),
    (lambda: ip.bspline_link(np.random.default_rng(), 3, 0), "parameter pieces"),
    (lambda: ip.InteractingParticleModel(ip.UniformCube(), ip.interaction_matrix(np.random.default_rng(), 2, 1), np.sin, -1.0, 3), "sigma"),
    (lambda: ip.make_law("cauchy"), "parameter law"),
])
def test_invalid_parameters(call, word):
    with pytest.raises(ParameterError, match=word):
        call()
