"""numerics.core.quadrature: Gaussian expectations in mpmath and numpy, and their point sets."""
import math

import mpmath
import numpy as np
import pytest

from numerics.core import quadrature as q


def test_expect_mp_is_exact_to_its_digits_and_rounded_to_them():
    for dps in (20, 50):
        with mpmath.workdps(dps + 20):
            want = mpmath.exp(mpmath.mpf("0.3") + mpmath.mpf("0.7") ** 2 / 2)
        val, err = q.expect_mp_err(mpmath.exp, "0.3", "0.7", dps)
        with mpmath.workdps(dps + 20):
            assert abs(val - want) <= 10 * mpmath.mpf(10) ** -dps * want
            assert 0 <= err < mpmath.mpf(10) ** -dps
        with mpmath.workdps(dps):
            assert +val == val  # already rounded to dps digits
        assert q.expect_mp(mpmath.exp, "0.3", "0.7", dps) == val
    # the whole real line, no truncation: a polynomial's moments exactly
    m4 = q.expect_mp(lambda x: x**4, 1, 2, 30)
    assert abs(m4 - (1 + 6 * 4 + 3 * 16)) < mpmath.mpf(10) ** -27


def test_expect_mp_at_sigma_zero_and_below():
    val, err = q.expect_mp_err(lambda x: x * 3, "0.1", 0, 25)
    assert err == 0
    with mpmath.workdps(25):
        assert abs(val - mpmath.mpf("0.3")) < mpmath.mpf(10) ** -24 and +val == val
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        q.expect_mp(mpmath.exp, 0, -1)


def test_expect_np_is_exact_for_polynomials_below_twice_the_nodes_and_broadcasts():
    mu, sigma = np.array([0.0, 1.0, -2.0]), 0.5
    got = q.expect_np(lambda x: x**4, mu, sigma, n_nodes=3)
    assert got.shape == (3,)
    assert np.allclose(got, mu**4 + 6 * mu**2 * sigma**2 + 3 * sigma**4, rtol=1e-13)
    assert not np.isclose(q.expect_np(lambda x: x**6, 0.0, 1.0, n_nodes=3), 15.0)  # degree 6 = 2n
    grid = q.expect_np(np.cos, np.zeros((2, 1)), np.array([1.0, 2.0]))
    assert grid.shape == (2, 2) and np.allclose(grid, np.exp(-np.array([[0.5, 2.0], [0.5, 2.0]])), rtol=1e-12)
    assert q.expect_np(np.cos, 0.0, 1.0, n_nodes=1.0 + 79) == pytest.approx(math.exp(-0.5), rel=1e-12)
    for bad in (0, -3):
        with pytest.raises(ValueError, match="^n_nodes must be >= 1$"):
            q.expect_np(np.cos, 0.0, 1.0, n_nodes=bad)
    assert q.expect_np(lambda x: x, 2.0, 1.0, n_nodes=1) == pytest.approx(2.0)


def test_gauss_hermite_weights_sum_to_one():
    x, w = q.gauss_hermite(4)
    assert len(x) == len(w) == 4 and w.sum() == pytest.approx(1.0, abs=1e-15)
    assert np.dot(w, x**2) == pytest.approx(1.0) and np.dot(w, x**6) == pytest.approx(15.0)
    x5, _ = q.gauss_hermite(5.0)
    assert len(x5) == 5


def test_gaussian_sobol_points():
    z = q.gaussian_sobol(3, 10, 7)
    assert z.shape == (1024, 3) and np.isfinite(z).all()
    assert np.array_equal(z, q.gaussian_sobol(3, 10, 7))
    assert not np.array_equal(z, q.gaussian_sobol(3, 10, 8))
    assert np.all(np.abs(z.mean(axis=0)) < 0.02) and np.allclose(z.std(axis=0), 1.0, atol=0.02)
    assert q.gaussian_sobol(1, 0, np.random.SeedSequence(1)).shape == (1, 1)


def test_trapezoid_mp_vector_integrand():
    with mpmath.workdps(30):
        vals, diff = q.gaussian_trapezoid_mp(lambda z: [z**2, z**4, mpmath.cos(z)], 3)
        for v, want in zip(vals, [1, 3, mpmath.exp(mpmath.mpf(-1) / 2)]):
            assert abs(v - want) < mpmath.mpf(10) ** -26
        assert 0 <= diff < mpmath.mpf(10) ** -25
        loose, _ = q.gaussian_trapezoid_mp(lambda z: [mpmath.cos(z)], 1, tol=mpmath.mpf("1e-3"))
        assert abs(loose[0] - mpmath.exp(mpmath.mpf(-1) / 2)) < mpmath.mpf("1e-3")
        with pytest.raises(ArithmeticError, match="did not converge in 0 halvings"):
            q.gaussian_trapezoid_mp(lambda z: [mpmath.cos(z)], 1, max_halvings=0)
        with pytest.raises(ArithmeticError):
            q.gaussian_trapezoid_mp(lambda z: [mpmath.cos(9 * z)], 1, start_step=4, max_halvings=1)


def test_gaussian_expect_mp_to_its_digits():
    dps = 40
    vals, rel = q.gaussian_expect_mp(lambda z: [mpmath.mpf(1), z * z, mpmath.cos(z), z], 4, dps)
    with mpmath.workdps(dps + 10):
        for v, want in zip(vals[:3], [1, 1, mpmath.exp(mpmath.mpf(-1) / 2)]):
            assert abs(v - want) <= mpmath.mpf(10) ** -(dps + 1)
        assert abs(vals[3]) <= mpmath.mpf(10) ** -(dps + 5)  # odd: the nodes +-z cancel
        assert rel <= mpmath.mpf(10) ** -(dps + 2)


def test_gaussian_expect_mp_follows_mass_in_the_tail():
    # E exp(20 zeta) = exp(200): its mass sits near zeta = 20, beyond the first truncation
    vals, _ = q.gaussian_expect_mp(lambda z: [mpmath.exp(20 * z)], 1, 20)
    with mpmath.workdps(40):
        assert abs(vals[0] / mpmath.exp(200) - 1) < mpmath.mpf(10) ** -19


def test_gaussian_expect_mp_refuses_a_grid_too_large_up_front():
    with pytest.raises(ArithmeticError, match="lower --dps"):
        q.gaussian_expect_mp(lambda z: [1 / (1 + 400 * z * z)], 1, 30, max_nodes=2**10)
    with pytest.raises(ArithmeticError, match="more than 64 nodes"):
        q.gaussian_expect_mp(lambda z: [mpmath.exp(20 * z)], 1, 20, max_nodes=64)


def test_gaussian_trapezoid_and_density():
    x, w = q.gaussian_trapezoid(0.5)
    assert w.sum() == pytest.approx(1.0) and np.allclose(x, -x[::-1])
    assert x.max() == pytest.approx(9.0) and np.allclose(np.diff(x), 0.5)
    assert np.dot(w, x**2) == pytest.approx(1.0, abs=1e-12)
    x2, _ = q.gaussian_trapezoid(1.0, width=3.0)
    assert list(x2) == [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]
    assert q.gaussian_density(0.0) == pytest.approx(1 / math.sqrt(2 * math.pi))
    assert np.allclose(q.gaussian_density(np.array([1.0, -2.0])),
                       np.exp(-np.array([0.5, 2.0])) / math.sqrt(2 * math.pi))


def test_the_rules_defaults():
    """The defaults the docstrings give: 30 digits (expect_mp), 80 nodes (expect_np), 10 guard
    digits (gaussian_expect_mp), a first step of 1/4 (gaussian_trapezoid_mp; below); numbers
    given as mpf are computed in float64 by the numpy rule."""
    assert q.expect_mp(mpmath.cos, "0.1", 1) == q.expect_mp(mpmath.cos, "0.1", 1, dps=30)
    assert q.expect_mp_err(mpmath.cos, "0.1", 1)[0] == q.expect_mp(mpmath.cos, "0.1", 1, dps=30)
    assert q.expect_mp(mpmath.cos, "0.1", 1) != q.expect_mp(mpmath.cos, "0.1", 1, dps=31)
    assert q.expect_np(np.abs, 0.1, 1.0) == q.expect_np(np.abs, 0.1, 1.0, n_nodes=80)
    assert q.expect_np(np.abs, 0.1, 1.0) != q.expect_np(np.abs, 0.1, 1.0, n_nodes=81)
    got = q.expect_np(np.abs, mpmath.mpf("0.1"), mpmath.mpf(1))
    assert got.dtype == np.float64 and got == q.expect_np(np.abs, 0.1, 1.0)
    f = lambda z: [mpmath.cos(z), 1 / (1 + z * z)]  # noqa: E731
    assert q.gaussian_expect_mp(f, 2, 20) == q.gaussian_expect_mp(f, 2, 20, guard=10)
    assert q.gaussian_expect_mp(f, 2, 20) != q.gaussian_expect_mp(f, 2, 20, guard=11)


def _nodes(rule, *args, **kw):
    """The nodes at which ``rule`` evaluated its integrand, in order, and its result."""
    seen = []

    def f(z):
        seen.append(z)
        return [mpmath.mpf(1) / (1 + z * z / 4), mpmath.cos(z)]
    return seen, rule(f, 2, *args, **kw)


@pytest.mark.parametrize("dps", [20, 30, 41])
def test_trapezoid_mp_nodes_are_one_full_grid_out_to_its_truncation(dps):
    """Each node once; together the grid of the last step (1/4 halved) out to about
    Z = sqrt(2 (dps + 5) ln 10), where the Gaussian weight is below the working precision (at
    the edge a finer grid may stop one node short of a coarser one: weights below precision)."""
    with mpmath.workdps(dps):
        Z = mpmath.sqrt(2 * (dps + 5) * mpmath.log(10))
        seen, (vals, diff) = _nodes(q.gaussian_trapezoid_mp)
        assert len(set(seen)) == len(seen)
        grid = sorted(seen)
        h = min(b - a for a, b in zip(grid, grid[1:]))
        inner = [z for z in grid if abs(z) <= Z - 1]
        assert all(abs((b - a) - h) < mpmath.mpf(10) ** -(dps - 5) for a, b in zip(inner, inner[1:]))
        halvings = int(round(math.log2(0.25 / float(h))))
        assert halvings >= 1 and abs(h - mpmath.mpf("0.25") / 2**halvings) < mpmath.mpf(10) ** -(dps - 2)
        assert grid[-1] == -grid[0] == mpmath.ceil(4 * Z) / 4  # the first grid's, out to Z
        want = mpmath.exp(mpmath.mpf(-1) / 2)
        assert abs(vals[1] - want) < mpmath.mpf(10) ** -(dps - 3) and 0 < diff < mpmath.mpf(10) ** -(dps - 3)


def test_trapezoid_mp_tolerance_is_relative_to_the_values():
    """A loose tolerance stops at the first halving whose change is below it, relative to the
    values: a larger integrand asks no more halvings (1/(1 + z^2): poles at +-i, the error of
    step h about exp(-2 pi / h), several halvings to 30 digits)."""
    def count(scale, tol=None):
        seen = []
        q.gaussian_trapezoid_mp(lambda z: seen.append(z) or [scale / (1 + z * z)], 1, tol=tol)
        return len(seen)
    with mpmath.workdps(30):
        full, loose = count(1), count(1, mpmath.mpf("1e-4"))
        assert loose < full and count(mpmath.mpf(10) ** 10, mpmath.mpf("1e-4")) == loose


def test_trapezoid_mp_accepts_no_sum_of_a_grid_too_coarse_and_stops_after_its_halvings():
    """From a step of 64 the first sums are all 0 (no node near the mean) and agree: none of
    them is accepted before the step is RESOLVED_STEP.  14 halvings by default: an integrand with
    a kink (|z|, algebraic convergence) never reaches the working precision."""
    with mpmath.workdps(20):
        vals, _ = q.gaussian_trapezoid_mp(lambda z: [mpmath.cos(z)], 1, start_step=64)
        assert abs(vals[0] - mpmath.exp(mpmath.mpf(-1) / 2)) < mpmath.mpf(10) ** -17
        with pytest.raises(ArithmeticError, match="did not converge in 14 halvings"):
            q.gaussian_trapezoid_mp(lambda z: [abs(z)], 1, start_step=64)


def test_gaussian_expect_mp_nodes_are_one_full_grid_from_z_over_8():
    """Each node once; together the grid of the last step, the first step being Z/8 with
    Z = sqrt(2 D ln 10), D = dps + guard; the change reported is below 10^-(dps+2)."""
    dps = 20
    seen, (vals, rel) = _nodes(q.gaussian_expect_mp, dps)
    with mpmath.workdps(dps + 10):
        assert len(set(seen)) == len(seen)
        grid = sorted(seen)
        h = grid[1] - grid[0]
        assert all(abs((b - a) - h) < mpmath.mpf(10) ** -(dps + 5) for a, b in zip(grid, grid[1:]))
        Z = mpmath.sqrt(2 * (dps + 10) * mpmath.log(10))
        halvings = int(round(math.log2(float(Z / 8 / h))))
        assert halvings >= 1 and abs(h - Z / 8 / 2**halvings) < mpmath.mpf(10) ** -(dps + 5)
        assert grid[-1] == -grid[0] and grid[-1] >= Z - h
        assert abs(vals[1] - mpmath.exp(mpmath.mpf(-1) / 2)) < mpmath.mpf(10) ** -(dps + 1)
        assert 0 <= rel <= mpmath.mpf(10) ** -(dps + 2)
    # a pole near the real axis (+-i/5): slow convergence, the change still below 10^-(dps+2)
    vals, rel = q.gaussian_expect_mp(lambda z: [1 / (1 + 25 * z * z)], 1, 6)
    with mpmath.workdps(30):
        exact = mpmath.quad(lambda z: mpmath.npdf(z) / (1 + 25 * z * z), [-mpmath.inf, 0, mpmath.inf])
        assert abs(vals[0] / exact - 1) < mpmath.mpf(10) ** -7 and rel <= mpmath.mpf(10) ** -8


def test_gaussian_expect_mp_predicts_the_grid_it_refuses():
    """The refusal names the grid the rule would need: the next one (4K + 1 nodes) before two
    changes are known, then the one extrapolated from them (log error linear in 1/h), within a
    factor 2 of the grid the rule does end on, and the digits reachable with max_nodes
    (nodes grow like dps^1.5)."""
    import re

    f = lambda z: [1 / (1 + 400 * z * z)]  # noqa: E731  (poles at +-i/20)
    seen = []
    q.gaussian_expect_mp(lambda z: seen.append(z) or f(z), 1, 30, max_nodes=2**22)
    used = len(seen)  # every node of the final grid, each evaluated once
    for max_nodes, nodes in ((2**10, 1025), (2**12, None)):
        with pytest.raises(ArithmeticError) as e:
            q.gaussian_expect_mp(f, 1, 30, max_nodes=max_nodes)
        m = re.fullmatch(r"the trapezoidal rule would need about (\d+) nodes \(> (\d+)\) for 30 digits \(a "
                         r"singularity close to the real axis\); about (\d+) digits are reachable here: lower --dps",
                         str(e.value))
        assert m and int(m[2]) == max_nodes, str(e.value)
        predicted = int(m[1])
        assert predicted == nodes if nodes else used / 2 <= predicted <= 2 * used
        assert int(m[3]) == int(30 * (max_nodes / predicted) ** (2 / 3))
