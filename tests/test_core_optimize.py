"""numerics.core.optimize: the generic maximiser reports through Solution and never hands back
a non-converged, non-maximal or boundary point."""
import math

import mpmath
import numpy as np
import pytest

from numerics.core.optimize import maximize, polish_mp, sample_average
from numerics.core.results import RESULTS, SolveError


def quad(x, order=2):
    """A concave quadratic with maximum 3 at (0.5, -1)."""
    d = np.asarray(x) - [0.5, -1.0]
    A = np.array([[-2.0, 0.5], [0.5, -1.0]])
    return 3 + 0.5 * d @ A @ d, A @ d, A


def test_concave_quadratic():
    sol = maximize(quad, [(0.0, 0.0), (-0.9, 2.0)], [(-1.0, 1.0), (None, None)])
    assert sol.ok and sol.residual < 1e-10
    assert np.allclose(sol.value, [0.5, -1.0], atol=1e-10)
    assert sol.stats["value"] == pytest.approx(3.0)


def test_boundary_maximum_is_refused():
    line = lambda x, order=2: (float(x[0]), np.array([1.0]), np.array([[0.0]]))
    sol = maximize(line, [(0.0,)], [(-1.0, 1.0)])
    assert not sol.ok
    with pytest.raises(SolveError):
        sol.value


def test_flat_direction_is_not_a_strict_maximum():
    flat = lambda x, order=2: (-x[0] ** 2, np.array([-2 * x[0], 0.0]), np.array([[-2.0, 0.0], [0.0, 0.0]]))
    sol = maximize(flat, [(0.3, 0.2)], [(None, None), (None, None)])
    assert not sol.ok and ("negative definite" in sol.message or "strict" in sol.message)


def test_nonfinite_everywhere():
    sol = maximize(lambda x, order=2: (math.nan, np.zeros(1), np.zeros((1, 1))), [(0.0,)], [(None, None)])
    assert sol.result is RESULTS.nonfinite and not sol.ok


def test_sample_average_chain_rule():
    """g(x, D) = log(1 - x0^2) - log D, D = sum_i w_i (x0 z_i + x1)^2 + 1: the composed
    gradient and Hessian against central differences."""
    rng = np.random.default_rng(0)
    z, w = rng.standard_normal(50), np.full(50, 1 / 50)

    def inner(x, order):
        u = x[0] * z + x[1]
        return u**2 + 1, np.array([2 * u * z, 2 * u]), np.array([[2 * z * z, 2 * z], [2 * z, np.full(50, 2.0)]])

    def outer(x, D, order):
        g = math.log(1 - x[0] ** 2) - math.log(D)
        dg = np.array([-2 * x[0] / (1 - x[0] ** 2), 0.0, -1 / D])
        H = np.zeros((3, 3))
        H[0, 0] = -2 * (1 + x[0] ** 2) / (1 - x[0] ** 2) ** 2
        H[2, 2] = 1 / D**2
        return g, dg, H

    fn = sample_average(inner, outer, w)
    x = np.array([0.3, -0.2])
    v, g, H = fn(x)
    eps = 1e-6
    for i in range(2):
        e = np.eye(2)[i] * eps
        assert g[i] == pytest.approx((fn(x + e)[0] - fn(x - e)[0]) / (2 * eps), rel=1e-6)
        assert np.allclose(H[i], (fn(x + e)[1] - fn(x - e)[1]) / (2 * eps), rtol=1e-5)


def test_polish_mp_to_many_digits():
    # max of log(1 - r^2) - (b - 1/3)^2 - r b: grad = (-2r/(1-r^2) - b, -2(b - 1/3) - r)
    grad = lambda r, b: [-2 * r / (1 - r * r) - b, -2 * (b - mpmath.mpf(1) / 3) - r]
    hess = lambda r, b: [[-2 * (1 + r * r) / (1 - r * r) ** 2, -1], [-1, -2]]
    sol = polish_mp(grad, hess, (0.0, 0.3), 40, [(-1, 1), (None, None)])
    assert sol.ok and sol.residual < 1e-40
    with mpmath.workdps(50):
        r, b = sol.value
        assert all(abs(v) < mpmath.mpf(10) ** -45 for v in grad(r, b))
    bad = polish_mp(lambda r: [mpmath.mpf(1)], lambda r: [[mpmath.mpf(0)]], (0.0,), 20, [(None, None)])
    assert not bad.ok
