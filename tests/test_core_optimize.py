"""numerics.core.optimize: the generic maximiser reports through Solution and never hands back
a non-converged, non-maximal or boundary point."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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


# --- the one solver package: every entry of the alias table answers with a typed Solution -------
def _cube_root_system(x):
    return [x[0] ** 3 - 2], [[3 * x[0] ** 2]]


SOLVE_CASES = {
    "newton": ((_cube_root_system, (True,)), dict(x0=[1.0])),
    "damped": ((_cube_root_system, (False,)), dict(x0=[1.0])),
    "rtsafe": ((lambda z: z**3 - 2, lambda z: 3 * z**2, 0.0, 3.0, 1e-14), dict(x0=1.0)),
    "brent": ((lambda z: z**3 - 2, 0.0, 3.0), dict(xtol=1e-14)),
    "increasing": ((lambda h, a: (h**3 - a, 3 * h**2 + 1e-300), (np.array([2.0, 2.0]),)), dict(x0=np.ones(2))),
    "increasing-scalar": ((lambda h: (h**3 - 2, 3 * h**2),), dict(x0=1.0, tol=1e-15)),
    "golden": ((lambda z: (z - 2 ** (1 / 3)) ** 2, 0.0, 3.0, 1e-9), {}),
}


@pytest.mark.parametrize("method", sorted(SOLVE_CASES))
def test_every_solver_of_the_table_finds_the_cube_root(method):
    from numerics.core.solve import SOLVERS, solve

    assert method in SOLVERS
    args, kw = SOLVE_CASES[method]
    sol = solve(method, *args, **kw)
    assert sol.ok and sol.iterations >= 1 and math.isfinite(sol.residual)
    assert np.allclose(np.ravel(sol.value), 2 ** (1 / 3), rtol=1e-8)


def test_the_solver_table_covers_every_solver():
    from numerics.core.solve import SOLVERS

    assert set(SOLVERS) == set(SOLVE_CASES) | {"mdnewton", "newton-ascent"}  # those two: below and above


def test_mdnewton_reports_its_calls_and_residual():
    from numerics.core.solve import solve

    with mpmath.workdps(40):
        sol = solve("mdnewton", lambda x: [x**3 - 2], lambda x: [[3 * x**2]], x0=[mpmath.mpf(1)],
                    tol=mpmath.mpf(10) ** -70)
        assert sol.ok and sol.iterations > 1
        assert abs(sol.value[0] - mpmath.cbrt(2)) < mpmath.mpf(10) ** -35


def test_solvers_fail_typed():
    from numerics.core.solve import increasing_root, increasing_root_scalar, solve

    with pytest.raises(ValueError, match="expected one of"):
        solve("secant", lambda z: z, x0=0.0)
    with pytest.raises(SolveError) as err:
        solve("brent", lambda z: z**2 + 1, -1.0, 1.0)
    assert err.value.solution.result is RESULTS.no_bracket
    sol = solve("newton", lambda x: ([x[0] ** 2 + 1], [[2 * x[0]]]), (False,), x0=[0.5], max_steps=5, throw=False)
    assert not sol.ok
    with pytest.raises(SolveError):
        _ = sol.value
    with pytest.raises(SolveError, match="proximal points did not converge"):
        increasing_root(lambda h, a: (h**3 - a, 3 * h**2 + 1e-300), (np.array([2.0, 3.0]),), np.ones(2), max_iter=1)
    with pytest.raises(SolveError, match="not bracketed"):
        increasing_root_scalar(lambda h: (mpmath.mpf(-1), mpmath.mpf(0)), mpmath.mpf(0), tol=1e-10, max_expand=5)


def test_brent_residual_is_f_at_the_root():
    from numerics.core.solve import solve

    f = lambda z: z**3 - 2  # noqa: E731
    sol = solve("brent", f, 0.0, 3.0, xtol=1e-14)
    assert sol.residual == abs(f(sol.value)) and sol.residual < 1e-12


# --- the step limit and the tolerance: exactly as declared -----------------------------------------
class _Countdown:
    """A solver that converges after exactly ``k`` steps, counting the steps it is asked for."""

    def __init__(self, k):
        self.k, self.calls = k, 0

    def init(self, _x0):
        return 0

    def step(self, s):
        self.calls += 1
        return s + 1

    def terminate(self, s):
        return (True, RESULTS.successful) if s >= self.k else (False, RESULTS.failed)

    def residual(self, s):
        return 0.0 if s >= self.k else 1.0

    def value(self, s):
        return s


@pytest.mark.parametrize("k", [0, 1, 2, 7])
def test_iterate_runs_exactly_max_steps_and_no_more(k):
    """``max_steps = k`` lets a solve that needs k steps converge in k; with ``k - 1`` it is
    reported as not converged after k - 1 steps (never a value), and throws by default."""
    from numerics.core.solve import iterate

    s = _Countdown(k)
    sol = iterate(s, None, max_steps=k, throw=False)
    assert sol.ok and sol.iterations == k == s.calls and sol.value == k
    if k == 0:
        return
    s = _Countdown(k)
    sol = iterate(s, None, max_steps=k - 1, throw=False)
    assert sol.result is RESULTS.max_steps_reached and sol.iterations == k - 1 == s.calls
    with pytest.raises(SolveError):
        _ = sol.value
    with pytest.raises(SolveError, match="iteration limit"):
        iterate(_Countdown(k), None, max_steps=k - 1)


#: the solvers whose steps the driver counts (brent and mdnewton run in one library call)
STEPPED = ("newton", "damped", "rtsafe", "increasing", "increasing-scalar", "golden")


@pytest.mark.parametrize("method", STEPPED)
def test_each_solver_converges_within_its_own_step_count_and_not_one_less(method):
    """The steps a solve took are enough to repeat it (the same value), and one fewer is not
    converged: each solver's count is the driver's limit, with no step off the books."""
    from numerics.core.solve import solve

    args, kw = SOLVE_CASES[method]
    k = solve(method, *args, **kw).iterations
    assert k >= 2
    again = solve(method, *args, max_steps=k, **kw)
    assert again.iterations == k and np.array_equal(np.ravel(again.value), np.ravel(solve(method, *args, **kw).value))
    short = solve(method, *args, max_steps=k - 1, throw=False, **kw)
    assert short.result is RESULTS.max_steps_reached and short.iterations == k - 1
    with pytest.raises(SolveError):
        _ = short.value


@pytest.mark.parametrize("x0", [7.0, 3.0, -3.5, None])
def test_rtsafe_from_a_start_outside_its_bracket_or_at_its_midpoint_finds_the_root(x0):
    """A start outside the bracket (or at its end) begins at the midpoint; there Newton leaves
    the bracket (tanh is flat far from its root), so the first step bisects and lands on the
    midpoint again: a bisection is a step of half the bracket, not of the distance moved (0),
    or the solver stops at the midpoint as converged, with |f| near 1."""
    from numerics.core.solve import solve

    s = solve("rtsafe", lambda z: mpmath.tanh(z - 2), lambda z: 1 / mpmath.cosh(z - 2) ** 2,
              mpmath.mpf(-10), mpmath.mpf(3), mpmath.mpf(10) ** -30, x0=None if x0 is None else mpmath.mpf(x0))
    assert s.ok and abs(s.value - 2) < mpmath.mpf(10) ** -29 and s.residual < mpmath.mpf(10) ** -29


@settings(max_examples=150, deadline=None)
@given(root=st.floats(-9.5, 2.5), scale=st.floats(0.05, 20.0), shift=st.floats(-0.9, 0.9),
       x0=st.one_of(st.none(), st.floats(-30.0, 30.0)), increasing=st.booleans())
def test_rtsafe_finds_the_root_of_any_monotone_function_from_any_start(root, scale, shift, x0, increasing):
    """f(z) = +-(tanh(scale (z - root)) + shift tanh(scale (z - root))^2): monotone, flat far from
    its root or steep at it, with the root anywhere in the bracket [-10, 3] and the start
    anywhere (inside, outside, none): the value is the root to the tolerance, and |f| there is
    as small as the slope allows."""
    from numerics.core.solve import solve

    sign = 1 if increasing else -1
    r, a, c = mpmath.mpf(root), mpmath.mpf(scale), mpmath.mpf(shift) / 2

    def f(z):
        t = mpmath.tanh(a * (z - r))
        return sign * (t + c * t**2)

    def df(z):
        t = mpmath.tanh(a * (z - r))
        return sign * a * (1 - t**2) * (1 + 2 * c * t)

    with mpmath.workdps(40):
        s = solve("rtsafe", f, df, mpmath.mpf(-10), mpmath.mpf(3), mpmath.mpf(10) ** -30,
                  x0=None if x0 is None else mpmath.mpf(x0), max_steps=400)
        assert s.ok and abs(s.value - r) <= mpmath.mpf(10) ** -28 * (1 + abs(r)) and s.residual < 1e-25 * (1 + a)


def test_increasing_root_max_iter_is_the_limit():
    """``increasing_root`` / ``increasing_root_scalar``: ``max_iter`` iterations can run and no more."""
    from numerics.core.solve import increasing_root, increasing_root_scalar, solve

    args, kw = SOLVE_CASES["increasing"]
    k = solve("increasing", *args, **kw).iterations
    assert np.allclose(increasing_root(*args, kw["x0"], max_iter=k), 2 ** (1 / 3))
    with pytest.raises(SolveError, match="did not converge"):
        increasing_root(*args, kw["x0"], max_iter=k - 1)
    (gg,), kw = SOLVE_CASES["increasing-scalar"]
    k = solve("increasing-scalar", gg, **kw).iterations
    assert increasing_root_scalar(gg, kw["x0"], tol=kw["tol"], max_iter=k) == pytest.approx(2 ** (1 / 3), rel=1e-14)
    with pytest.raises(SolveError, match="did not converge"):
        increasing_root_scalar(gg, kw["x0"], tol=kw["tol"], max_iter=k - 1)


@pytest.mark.parametrize("tol", [1e-4, 1e-8, 1e-12])
def test_newton_stops_at_its_declared_tolerance(tol):
    """On a double root (x^2 = 0: Newton halves x, so each correction is half the last) the
    solve stops at the first correction below the declared tolerance: its residual is below
    ``tol`` and above tol/2, and the root is within twice the residual."""
    from numerics.core.solve import solve

    sol = solve("newton", lambda x: ([x[0] ** 2], [[2 * x[0]]]), (False,), x0=[1.0], tol=tol, max_steps=200)
    assert sol.ok and tol / 2 < sol.residual <= tol
    assert abs(sol.value[0]) <= 2 * sol.residual


# --- the whole Solution of maximize and polish_mp: what a caller reads of a failure as well ------
def test_maximize_reports_every_run_and_the_maximiser(recwarn):
    from threadpoolctl import threadpool_info

    threads = []

    def watched(x, order=2):
        threads.append(max([i["num_threads"] for i in threadpool_info()] or [1]))
        return quad(x, order)

    starts = [(0.0, 0.0), (-0.9, 2.0)]
    sol = maximize(watched, starts, [(-1.0, 1.0), (None, None)], names=("a", "b"))
    assert set(threads) == {1}  # BLAS single-threaded inside
    assert sol.result is RESULTS.successful and sol.message == ""
    assert sol.iterations == sol.stats["newton_steps"] and 0 <= sol.iterations <= 50
    assert sol.stats["names"] == ("a", "b") and sol.stats["value"] == pytest.approx(3.0)
    runs = sol.stats["lbfgs"]
    assert [r["start"] for r in runs] == [[0.0, 0.0], [-0.9, 2.0]]
    for r in runs:
        assert set(r) == {"start", "value", "nit", "message"}
        assert r["value"] == pytest.approx(3.0) and isinstance(r["nit"], int) and r["nit"] >= 1
        assert isinstance(r["message"], str) and r["message"].startswith("CONVERGENCE")  # L-BFGS-B's own
    eigs = np.linalg.eigvalsh(np.array([[-2.0, 0.5], [0.5, -1.0]]))
    assert np.allclose(sol.stats["hessian_eigenvalues"], eigs)
    assert not [w for w in recwarn if "Unknown solver options" in str(w.message)]


def test_maximize_picks_the_best_start_and_stops_inside_open_bounds():
    # two local maxima near x = -1 and x = +1, the higher at +1: the best run wins, whatever the order
    def two(x, order=2):
        t = x[0]
        return (-(t * t - 1) ** 2 + 0.5 * t, np.array([-4 * t * (t * t - 1) + 0.5]),
                np.array([[-12 * t * t + 4]]))
    sol = maximize(two, [(-1.2,), (1.2,)], [(None, None)])
    assert sol.ok and sol.value[0] > 0.9
    assert sol.stats["lbfgs"][0]["value"] < sol.stats["lbfgs"][1]["value"]
    sol = maximize(two, [(1.2,), (-1.2,)], [(None, None)])
    assert sol.ok and sol.value[0] > 0.9
    # a maximum at 1.5 inside the open domain (-inf, 1.5 + 1e-9), closer to its end than 1e-8:
    # refused, on the boundary
    edge = lambda x, order=2: (-(x[0] - 1.5) ** 2, np.array([-2 * (x[0] - 1.5)]), np.array([[-2.0]]))
    sol = maximize(edge, [(0.0,)], [(None, 1.5 + 1e-9)])
    assert sol.result is RESULTS.failed and sol.message.startswith("maximum on the boundary of the domain at [")
    sol = maximize(edge, [(2.0,)], [(1.5 - 1e-9, None)])
    assert sol.result is RESULTS.failed and "boundary" in sol.message
    assert maximize(edge, [(0.0,)], [(None, 1.5 + 1e-6)]).ok
    # a maximum beyond the open domain's end: L-BFGS-B keeps inside, Newton does not converge there
    up = lambda x, order=2: (float(x[0]), np.array([1.0]), np.array([[-1.0]]))
    sol = maximize(up, [(0.0,)], [(-2.0, 1.5)])
    assert not sol.ok and sol.stats["lbfgs"][0]["value"] < 1.5


def test_maximize_failures_say_why():
    nan = lambda x, order=2: (math.nan, np.zeros(1), np.zeros((1, 1)))
    sol = maximize(nan, [(0.0,), (1.0,)], [(None, None)], names=("t",))
    assert (sol.result, sol.iterations, sol.residual, sol.raw) == (RESULTS.nonfinite, 0, math.inf, None)
    assert sol.message == "objective not finite from any start"
    assert len(sol.stats["lbfgs"]) == 2 and sol.stats["names"] == ("t",)
    flat = lambda x, order=2: (-x[0] ** 2, np.array([-2 * x[0], 0.0]), np.array([[-2.0, 0.0], [0.0, 0.0]]))
    sol = maximize(flat, [(0.3, 0.2)], [(None, None), (None, None)])
    assert sol.result is RESULTS.failed and sol.message.startswith("not a strict maximum (Hessian eigenvalues [")
    assert sol.raw is not None and sol.iterations == sol.stats["newton_steps"]
    # a non-finite Hessian at the end: eigenvalues nan, never a strict maximum
    nanH = lambda x, order=2: (-x[0] ** 2, np.array([-2 * x[0]]), np.array([[math.nan]]))
    sol = maximize(nanH, [(0.3,)], [(None, None)])
    assert not sol.ok and all(math.isnan(e) for e in sol.stats["hessian_eigenvalues"])
    # the Newton stage's own limit: max_newton steps, then the Solution says so
    slow = lambda x, order=2: (-(x[0] ** 4), np.array([-4 * x[0] ** 3]), np.array([[-12 * x[0] ** 2]]))
    sol = maximize(slow, [(0.5,)], [(None, None)], max_newton=1, gtol=1e-300)
    assert not sol.ok and sol.iterations <= 1


def test_strict_maximum_threshold():
    from numerics.core.optimize import _strict_max

    assert _strict_max([-1.0, -2.0]) and not _strict_max([-1.0, 0.0]) and not _strict_max([-1.0, math.nan])
    assert not _strict_max([-1e-9, -1.0])  # relative to the largest |eigenvalue| (at least 1)
    assert _strict_max([-2e-9, -1.0]) and not _strict_max([-5e-10, -0.5]) and _strict_max([-2e-9])
    assert not _strict_max([-1e-8, -100.0]) and _strict_max([-1.1e-7, -100.0])
    assert _strict_max(np.array([-3, -1]))  # integers too


def test_sample_average_orders_and_no_warning_on_a_zero_average():
    import warnings

    z, w = np.array([-1.0, 1.0]), np.array([1, 1])  # integer weights

    def inner(x, order):
        h = (x[0] * z) ** 2
        return h, np.array([2 * x[0] * z**2]), np.array([[2 * z**2]])

    def outer(x, D, order):
        return (-np.log(D), np.array([0.0, -1 / D]), np.array([[0.0, 0.0], [0.0, 1 / D**2]])) if order else \
            (-np.log(D), None, None)

    fn = sample_average(inner, outer, w)
    v, g, H = fn(np.array([0.5]))
    assert v == pytest.approx(-math.log(0.5)) and H.shape == (1, 1)
    assert fn(np.array([0.5]), 0)[1:] == (None, None)
    v1, g1, H1 = fn(np.array([0.5]), 1)
    assert H1 is None and g1 == pytest.approx(g) and g[0] == pytest.approx(-2 / 0.5)
    # H = d2g_xx + 2 d2g_xD dD + d2g_DD dD^2 + dg_D d2D: here 1/D^2 (2x z^2 w)^2 - 1/D (2 z^2 w)
    assert H[0, 0] == pytest.approx((2 * 0.5 * 2) ** 2 / 0.25 - 4 / 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v0, g0, H0 = fn(np.array([0.0]))  # D = 0: inf/nan for the caller's check, no warning
        huge = sample_average(inner, outer, np.array([1e308, 1e308]))
        assert huge(np.array([2.0]))[0] == -np.inf  # D overflows to inf: no warning either
    assert not np.isfinite(v0)


def test_sample_average_cross_terms():
    """g(x, D) = x0 x1 D + x0 D^2 with D = x0 + 2 x1 (one point, weight 1): every term of the
    chain rule, against the composed function's exact derivatives."""
    def inner(x, order):
        return (np.array([x[0] + 2 * x[1]]), np.array([[1.0], [2.0]]), np.zeros((2, 2, 1)))

    def outer(x, D, order):
        g = x[0] * x[1] * D + x[0] * D**2
        dg = np.array([x[1] * D + D**2, x[0] * D, x[0] * x[1] + 2 * x[0] * D])
        H = np.array([[0.0, D, x[1] + 2 * D], [D, 0.0, x[0]], [x[1] + 2 * D, x[0], 2 * x[0]]])
        return g, dg, H

    fn = sample_average(inner, outer, [1.0])
    x0, x1 = 0.7, -0.4
    v, g, H = fn(np.array([x0, x1]))
    # f(x) = x0 x1 (x0 + 2 x1) + x0 (x0 + 2 x1)^2
    D = x0 + 2 * x1
    assert v == pytest.approx(x0 * x1 * D + x0 * D**2)
    assert g == pytest.approx([2 * x0 * x1 + 2 * x1**2 + D**2 + 2 * x0 * D, x0**2 + 4 * x0 * x1 + 4 * x0 * D])
    want = np.array([[2 * x1 + 4 * D + 2 * x0, 6 * x0 + 4 * x1 + 4 * D],
                     [6 * x0 + 4 * x1 + 4 * D, 12 * x0]])
    assert np.allclose(H, want)


def test_polish_mp_failures_say_why():
    grad = lambda r, b: [-2 * r / (1 - r * r) - b, -2 * (b - mpmath.mpf(1) / 3) - r]
    hess = lambda r, b: [[-2 * (1 + r * r) / (1 - r * r) ** 2, -1], [-1, -2]]
    sol = polish_mp(grad, hess, (0.0, 0.3), 30, [(-1, 1), (None, None)])
    assert sol.result is RESULTS.successful and sol.iterations >= 1 and 0 <= sol.residual < 1e-30
    assert len(sol.stats["hessian_eigenvalues"]) == 2 and max(sol.stats["hessian_eigenvalues"]) < 0
    assert sol.raw[0].context.prec >= mpmath.mp.prec  # the root at dps + 15 digits
    # a minimum, not a maximum
    up = polish_mp(lambda t: [2 * t], lambda t: [[mpmath.mpf(2)]], (0.5,), 20, [(None, None)])
    assert up.result is RESULTS.failed and up.raw is not None and up.residual < 1e-20
    assert up.message.startswith("no strict interior maximum (residual ") and "max=False, inside=True" in up.message
    # the root outside the domain (lo, hi): open at both ends
    for bounds in ([(1, None)], [(None, 1)], [(1, 2)], [(0, 1)]):
        out = polish_mp(lambda t: [-2 * (t - 1)], lambda t: [[mpmath.mpf(-2)]], (0.5,), 20, bounds)
        assert out.result is RESULTS.failed and "inside=False" in out.message and "max=True" in out.message
    assert polish_mp(lambda t: [-2 * (t - 1)], lambda t: [[mpmath.mpf(-2)]], (0.5,), 20, [(0, 2)]).ok
    # no root: Newton fails, nothing handed back
    none = polish_mp(lambda t: [mpmath.mpf(1)], lambda t: [[mpmath.mpf(0)]], (0.0,), 20, [(None, None)])
    assert (none.result, none.residual, none.raw) == (RESULTS.failed, math.inf, None) and none.message
    # a complex iterate (the objective's log of a negative number): non-finite, said so
    cplx = polish_mp(lambda t: [mpmath.log(t) + 1], lambda t: [[1 / t]], (-0.5,), 20, [(None, None)])
    assert cplx.result is RESULTS.nonfinite and cplx.residual == math.inf
    assert cplx.message == "complex iterate (objective not positive)"
    # what a failure still carries: the iterations, and the iterate where there is one
    assert isinstance(none.iterations, int) and isinstance(up.iterations, int) and up.iterations >= 1
    assert isinstance(cplx.iterations, int) and cplx.raw is not None
    # a curvature in (0, 1) is a minimum too
    shallow = polish_mp(lambda t: [t / 2], lambda t: [[mpmath.mpf(1) / 2]], (0.5,), 20, [(None, None)])
    assert shallow.result is RESULTS.failed and "max=False" in shallow.message
    # Newton's steps vanish while the gradient does not (a gradient of scale 1e50: the root to
    # 35 digits leaves |grad| ~ 1e15): refused, the residual printed to 3 digits
    steep = polish_mp(lambda t: [-mpmath.mpf(10) ** 50 * (t - mpmath.mpf(1) / 3)],
                      lambda t: [[-mpmath.mpf(10) ** 50]], (0.5,), 20, [(None, None)])
    assert steep.result is RESULTS.failed and steep.residual > 1 and isinstance(steep.iterations, int)
    printed = mpmath.nstr(mpmath.mpf(steep.residual), 3)
    assert steep.message == f"no strict interior maximum (residual {printed}, max=True, inside=True)"
    assert len(printed.replace(".", "").split("e")[0]) == 3


# --- the bracket solvers, step by step (numerics/core/solve/bracket.py) --------------------------
def _logged(f):
    """f, recording the points it is evaluated at."""
    calls = []

    def g(z):
        calls.append(z)
        return f(z)
    return g, calls


@pytest.mark.parametrize("x0, start", [(2.5, 2.5), (None, -3.5), (7.0, -3.5), (-10.0, -3.5), (3.0, -3.5)])
def test_rtsafe_starts_at_its_start_inside_the_bracket_else_at_the_midpoint(x0, start):
    """f is evaluated at the two ends, then at the start: x0 strictly inside the bracket, or
    the midpoint (no start, a start outside, a start at an end)."""
    from numerics.core.solve import solve

    f, calls = _logged(lambda z: mpmath.tanh(z - 2))
    solve("rtsafe", f, lambda z: 1 / mpmath.cosh(z - 2) ** 2, mpmath.mpf(-10), mpmath.mpf(3),
          mpmath.mpf(10) ** -30, x0=None if x0 is None else mpmath.mpf(x0))
    assert calls[:2] == [-10, 3] and calls[2] == start


def test_rtsafe_takes_newton_steps_near_the_root_and_refuses_a_bracket_without_a_sign_change():
    """From a start near the root Newton converges in a few steps (bisection alone would take
    about 100 for 10^-30); a root at an end of the bracket is found; f of one sign at both ends
    (their product 0.25, or 4) is no bracket."""
    from numerics.core.solve import solve

    one = mpmath.mpf(10) ** -30
    with mpmath.workdps(40):
        s = solve("rtsafe", lambda z: z**3 - 2, lambda z: 3 * z**2, mpmath.mpf(0), mpmath.mpf(3), one,
                  x0=mpmath.mpf("1.3"))
        assert s.ok and s.iterations <= 7 and abs(s.value - mpmath.cbrt(2)) < one
        for lo, hi in ((-1, 0), (0, 1)):  # the root 0 at the lower, then the upper end
            e = solve("rtsafe", lambda z: z, lambda z: mpmath.mpf(1), mpmath.mpf(lo), mpmath.mpf(hi), one)
            assert e.ok and abs(e.value) < one, (lo, hi)
        for c in ("0.25", "4"):
            bad = solve("rtsafe", lambda z: mpmath.mpf(c) ** 0.5 + 0 * z, lambda z: mpmath.mpf(0),
                        mpmath.mpf(0), mpmath.mpf(1), one, throw=False)
            assert bad.result is RESULTS.no_bracket, c


def test_brent_counts_scipys_iterations_says_its_bound_and_refuses_what_scipy_refuses():
    """``brent``: the value and iteration count of scipy's brentq (its iterations + the call
    that checks the root) and |f| there; at 3 iterations it is not converged (and does not
    raise); f of one sign at both ends is no bracket, with scipy's words."""
    from scipy.optimize import brentq

    from numerics.core.solve import solve

    f = lambda z: z**3 - 2  # noqa: E731
    x, r = brentq(f, 0.0, 3.0, xtol=2e-12, rtol=8.881784197001252e-16, full_output=True)
    s = solve("brent", f, 0.0, 3.0)
    assert s.ok and s.value == x and s.iterations == r.iterations + 1
    assert s.residual == abs(f(x))
    short = solve("brent", f, 0.0, 3.0, maxiter=3, throw=False)
    assert short.result is RESULTS.max_steps_reached
    bad = solve("brent", f, 2.0, 3.0, throw=False)
    assert bad.result is RESULTS.no_bracket and bad.iterations == 0 and bad.residual == math.inf
    assert "f(a) and f(b) must have different signs" in bad.message


def test_golden_section_on_a_bracket_away_from_zero():
    """The minimiser of a parabola on [-1, 3] (a bracket whose ends do not sum to its width),
    the residual is the final bracket's width, below tol (1 + |x|); the value is the better of
    the two inner points; a non-finite objective stops it at once."""
    from numerics.core.solve import solve

    s = solve("golden", lambda z: (z - 2.2) ** 2, -1.0, 3.0, 1e-9)
    assert s.ok and abs(s.value - 2.2) < 1e-8 and 0 < s.residual <= 1e-9 * (1 + abs(s.value))
    down = solve("golden", lambda z: -z, -1.0, 3.0, 1e-9)  # decreasing: the minimum at the right end
    assert down.ok and 3.0 - down.value < 1e-8
    nan = solve("golden", lambda z: math.nan if z > 0 else z * z, -1.0, 3.0, 1e-9, throw=False)
    assert nan.result is RESULTS.nonfinite and nan.iterations == 0


def test_bracket_solvers_far_from_zero_and_where_f_is_not_finite():
    """The tolerance scales as 1 + |x| (a root near 1e6 is found to 1e-12 relative, not to
    1e-12 absolute, which float64 cannot hold); a value that is not finite stops rtsafe and
    golden section with the status that says so; golden section that runs out of steps fails."""
    from numerics.core.solve import solve

    far = solve("rtsafe", lambda z: z * z - 1e12, lambda z: 2 * z, 0.0, 3e6, 1e-12, max_steps=200, throw=False)
    assert far.ok and abs(far.value - 1e6) <= 1e-5 and far.iterations < 60
    # Newton's steps towards sqrt(2) 1e6 from 1.5e6: 8.6e4, 2.5e3, 2.2, 1.7e-6, 0: with tol 1e-6
    # the solver stops after the first step below tol (1 + |x|) = 1.4, the fourth
    loose = solve("rtsafe", lambda z: z * z - 2e12, lambda z: 2 * z, 0.0, 3e6, 1e-6, throw=False)
    assert loose.ok and loose.iterations == 4 and abs(loose.value - math.sqrt(2e12)) < 1e-6
    low = solve("golden", lambda z: (z - 1e6) ** 2, 0.0, 3e6, 1e-12, max_steps=400, throw=False)
    assert low.ok and abs(low.value - 1e6) < 1.0

    def nan_inside(z):  # a sign change on [-1, 3], and no number at the midpoint 1
        return math.nan if z == 1.0 else z - 2.0

    bad = solve("rtsafe", nan_inside, lambda z: 1.0, -1.0, 3.0, 1e-12, throw=False)
    assert bad.result == RESULTS.nonfinite
    # golden section's first inner points are 0.53 and 1.47: no number at the second
    ugly = solve("golden", lambda z: math.nan if 1.4 < z < 1.5 else (z - 0.3) ** 2, -1.0, 3.0, 1e-12, throw=False)
    assert ugly.result == RESULTS.nonfinite
    short = solve("golden", lambda z: (z - 0.3) ** 2, -1.0, 3.0, 1e-12, max_steps=3, throw=False)
    assert short.result == RESULTS.max_steps_reached


def test_the_solvers_shared_checks_finite_and_inside():
    """``finite``: every entry finite (None is not; lists and tuples entry by entry, mpmath and
    numpy numbers alike); ``inside``: the open box, ``margin`` from its faces (0 by default)."""
    import mpmath

    from numerics.core.solve.driver import finite, inside

    assert finite(1.0) and finite([1, mpmath.mpf(2)]) and finite((np.ones(3), 2.0)) and finite(mpmath.mpf(-3))
    assert not finite(None) and not finite([1.0, None]) and not finite((1.0, np.inf)) and not finite(mpmath.inf)
    assert not finite([np.array([1.0, np.nan])]) and not finite(mpmath.nan)
    box = [(0.0, 1.0), (None, 2.0), (-1.0, None)]
    assert inside([0.5, -1e9, 1e9], box) and inside([1e-12, 2 - 1e-12, -1 + 1e-12], box)
    for x in ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.5, 0.0, -1.0]):
        assert not inside(x, box)  # a face is outside the open box
    assert inside([0.5, 0.0, 0.0], box, margin=0.4) and not inside([0.5, 0.0, 0.0], box, margin=0.5)
    assert not inside([0.2, 0.0, 0.0], box, margin=0.2) and not inside([0.8, 0.0, 0.0], box, margin=0.2)


def _ascent(fn, x0, bounds, steps, gtol=1e-12):
    from numerics.core.solve import solve

    return solve("newton-ascent", fn, bounds, gtol, x0=x0, max_steps=steps, throw=False)


def test_newton_ascent_steps_halve_into_the_box_and_uphill_on_finite_values_only():
    """A Newton step of the ascent is halved until the point is inside the open box, its value,
    gradient and Hessian are finite and the value does not fall by more than 1e-12 max(1, |v|)."""
    asked = []

    def parabola(x, order):  # -(x - 2)^2, its Hessian not finite beyond x = 1.3
        asked.append(order)
        return -(x[0] - 2) ** 2, [-2 * (x[0] - 2)], [[-2.0 if x[0] < 1.3 else math.nan]]

    for bounds in ([(0.0, 1.5)], [(None, None)]):  # outside the box, or its Hessian not finite
        sol = _ascent(parabola, [0.5], bounds, 1)
        assert sol.raw.x.tolist() == [1.25] and sol.raw.x.dtype == float and set(asked) == {2}
    assert _ascent(parabola, [0.5], [(0.0, 3.0)], 2).raw.failure == ""
    assert _ascent(parabola, [1], [(0.0, 1.0)], 1).raw.failure == "line search failed"  # nothing inside
    assert _ascent(parabola, [1], [(0.0, 3.0)], 0).raw.x.dtype == float  # an integer start, as it is kept

    def stepper(values):  # a fixed ascent direction +1 (gradient 1, Hessian -1); value by the point
        return lambda x, order: (values.get(float(x[0]), -1e300), [1], [[-1]])  # elsewhere: far below

    def first_step(v0, v1):
        raw = _ascent(stepper({0.0: v0, 1.0: v1}), [0.0], [(None, None)], 1).raw
        assert raw.grad.dtype == float and raw.hess.dtype == float
        return raw.x.tolist()

    assert first_step(0.0, 0.0) == [1.0]  # a value that does not change: accepted
    assert first_step(1e6, 1e6 - 1e-7) == [1.0]  # a fall within 1e-12 |v|: rounding
    assert first_step(0.5, 0.5 - 0.9e-12) == [1.0] and first_step(0.5, 0.5 - 1.5e-12) == [0.0]  # 1e-12 below |v| = 1
    assert first_step(1e6, 1e6 - 1e-5) == [0.0] and first_step(0.5, 0.0) == [0.0]
    assert first_step(0.5, 0.5 - 1e-12 * 1.0) == [1.0]  # a fall of exactly the slack: still accepted
    # sixty halvings: tau = 1, 1/2, ..., 2^-59 are tried, 2^-60 is not
    tried = lambda values: _ascent(stepper(values), [0.0], [(None, None)], 1).raw.x.tolist()  # noqa: E731
    assert tried({0.0: 0.0, 2.0**-59: 1.0}) == [2.0**-59] and tried({0.0: 0.0, 2.0**-60: 1.0}) == [0.0]


def test_newton_ascent_says_why_it_stopped():
    def fixed(g, H):
        return lambda x, order: (0.0, g, H)

    singular = _ascent(fixed([1.0], [[0.0]]), [0.0], [(None, None)], 5)
    assert singular.result is RESULTS.failed and singular.raw.failure == "singular Hessian"
    convex = _ascent(lambda x, order: (x[0] ** 2, [2 * x[0]], [[2.0]]), [1.0], [(None, None)], 5)
    assert convex.raw.failure == "Hessian not negative definite (no Newton ascent direction)"
    # a Newton direction orthogonal to the gradient: not an ascent direction either
    saddle = _ascent(fixed([1.0, 1.0], [[1.0, 0.0], [0.0, -1.0]]), [0.0, 0.0], [(None, None)] * 2, 5)
    assert saddle.result is RESULTS.failed and saddle.raw.failure.startswith("Hessian not negative definite")
    from numerics.core.solve.newton import AscentState, NewtonAscent

    for g, H in (([1.0], [[math.nan]]), ([math.inf], [[-1.0]])):  # not finite where it starts
        assert _ascent(fixed(g, H), [0.0], [(None, None)], 5).result is RESULTS.nonfinite
    at_gtol = _ascent(fixed([1e-8], [[-1.0]]), [0.0], [(None, None)], 5, gtol=1e-8)
    assert at_gtol.ok and at_gtol.iterations == 0  # a gradient of exactly gtol has converged
    nan = AscentState(np.zeros(1), 0.0, np.array([math.nan]), np.zeros((1, 1)))
    assert NewtonAscent(None, [(None, None)], 1e-8).residual(nan) == math.inf


def test_mdnewton_counts_every_call_stops_at_its_limits_and_refuses_a_complex_root():
    from numerics.core.solve import solve

    calls = []

    def f(x):
        calls.append(x)
        return [x**2 - 2]

    with mpmath.workdps(30):
        jacobians = []
        sol = solve("mdnewton", f, lambda x: jacobians.append(x) or [[2 * x]], x0=[mpmath.mpf(1)],
                    tol=mpmath.mpf(10) ** -50)
        assert sol.ok and sol.iterations == len(calls) and abs(sol.residual) < mpmath.mpf(10) ** -25
        assert 0 < len(jacobians) < len(calls)  # the exact Jacobian is the one used
        loose = solve("mdnewton", f, lambda x: [[2 * x]], x0=[mpmath.mpf(1)], tol=mpmath.mpf(10) ** -3)
        assert loose.ok and mpmath.mpf(10) ** -25 < loose.residual < mpmath.mpf(10) ** -2
        short = solve("mdnewton", f, lambda x: [[2 * x]], x0=[mpmath.mpf(1)], tol=mpmath.mpf(10) ** -50,
                      maxsteps=2, throw=False)
        assert not short.ok
        from numerics.core.solve.newton import MPNewton

        assert MPNewton(f, None, tol=1).maxsteps == 100  # mpmath.findroot's steps unless told
        # x^2 + 1 = 0 from a complex start: the root is complex, refused as not finite
        cx = solve("mdnewton", lambda x: [x**2 + 1], lambda x: [[2 * x]], x0=[mpmath.mpc(0.5, 0.5)],
                   tol=mpmath.mpf(10) ** -20, throw=False)
        assert cx.result is RESULTS.nonfinite and cx.message == "complex iterate"


def _scalar_root(GG, h0, steps, tol=1e-14):
    from numerics.core.solve.driver import iterate
    from numerics.core.solve.increasing import IncreasingRootScalar

    return iterate(IncreasingRootScalar(GG, tol=tol), h0, max_steps=steps, throw=False)


def test_the_scalar_increasing_root_takes_newton_steps_inside_its_bracket_only():
    """``IncreasingRootScalar``: the start's slope sets the first probe (here the bracket
    [0, 1/2], midpoint 1/4); a Newton step onto an end of the bracket is replaced by the midpoint
    of what is left; a root hit exactly ends the search with a zero step."""
    def slopes(root, at_start):  # G(h) = h - root, its slope 1/32.. at the start and 15/16 elsewhere
        return lambda h: (h - root, at_start if h == 0 else 0.9375)

    low = _scalar_root(slopes(1 / 64, 1 / 32), 0.0, 1)  # Newton from 1/4 lands on 0 = lo
    assert low.raw == 0.125
    high = _scalar_root(slopes(31 / 64, 31 / 32), 0.0, 1)  # Newton from 1/4 lands on 1/2 = hi
    assert high.raw == 0.375
    exact = _scalar_root(slopes(0.25, 0.5), 0.0, 5)  # the midpoint 1/4 is the root
    assert exact.ok and exact.raw == 0.25 and exact.residual == 0 and exact.iterations == 1
    # a Newton step inside the bracket is taken only while |G| at least halves each step
    def table(at_three_eighths):
        values = {0.0: (-1 / 64, 1 / 32), 0.5: (0.25, 1.0), 0.25: (-0.25, 2.0), 0.375: (at_three_eighths, 4.0)}
        return lambda h: values[h]

    assert _scalar_root(table(-0.2), 0.0, 2).raw == 0.4375  # |G| fell from 1/4 to 1/5: bisected
    # converged when the step is at most tol (1 + |h|): here exactly, 1/32 = tol (1 + 9/32)
    short = {0.0: (-1 / 64, 1 / 32), 0.5: (0.25, 1.0), 0.25: (-0.0625, 2.0)}
    at_tol = _scalar_root(lambda h: short[h], 0.0, 1, tol=0.03125 / 1.28125)
    assert at_tol.ok and at_tol.raw == 0.28125 and at_tol.iterations == 1
    assert _scalar_root(table(-0.125), 0.0, 2).raw == 0.40625  # exactly halved: Newton's 3/8 + 1/32
    # the tolerance is relative: at a triple root 10^6 (Newton's error shrinking by 2/3 a step)
    # the search stops at the first step below tol (1 + |h|) = 1e-6, far before the root itself
    triple = _scalar_root(lambda h: ((h - 1e6) ** 3, 3 * (h - 1e6) ** 2), 0.0, 500, tol=1e-12)
    assert triple.ok and triple.residual <= 1e-12 * (1 + 1e6) and 1e-7 < abs(triple.raw - 1e6) < 1e-5
    # ... and its first such step: the step before it (3/2 of it, at a triple root) was above tol (1 + |h|)
    half = _scalar_root(lambda h: ((h - 0.5) ** 3, 3 * (h - 0.5) ** 2), 0.0, 500, tol=1e-12)
    assert half.ok and 1.5e-12 < 1.5 * half.residual and half.residual <= 1.5e-12
    # Newton steps on a smooth function: about a dozen steps (11 here), not the 50 of a bisection
    cubic = _scalar_root(lambda h: (h**3 + h - 3, 3 * h**2 + 1), 0.0, 60)
    assert cubic.ok and abs(cubic.raw**3 + cubic.raw - 3) < 1e-12 and cubic.iterations <= 12


def test_increasing_roots_iterate_their_last_points_on_arguments_broadcast_to_the_start():
    """Once half the points have converged, the rest are iterated alone, on the arguments
    broadcast to the start's shape and flattened: a row of arguments against a 2-D start, a
    scalar argument, integer arguments."""
    from numerics.core.solve import increasing_root

    a = np.array([1, 2, 10**12])  # one root at the start, one near it, one far: the last alone
    h0 = np.ones((2, 3))
    roots = increasing_root(lambda h, a, c: (h**3 - a * c, 3 * h**2), (a, 1), h0)
    assert roots.shape == (2, 3) and np.allclose(roots, np.cbrt(a.astype(float))[None, :], rtol=1e-13)


def test_the_scalar_increasing_root_gives_up_after_its_default_limits():
    """``increasing_root_scalar``: 400 expanding probes to find a bracket, then 200 steps."""
    from numerics.core.solve import increasing_root_scalar

    calls = []

    def never(h):  # below zero everywhere: no bracket
        calls.append(h)
        return -1.0, 1.0

    with pytest.raises(SolveError) as err:
        increasing_root_scalar(never, 0.0, tol=1e-12)
    assert len(calls) == 1 + 400
    failed = err.value.solution
    assert (failed.result, failed.iterations, failed.message) == (RESULTS.no_bracket, 400, "proximal point not bracketed")
    calls.clear()
    with pytest.raises(SolveError):
        increasing_root_scalar(never, 0.0, tol=1e-12, max_expand=5)
    assert len(calls) == 1 + 5
    calls.clear()
    from numerics.core.solve import solve

    assert solve("increasing-scalar", never, tol=1e-12, x0=0.0, throw=False).result is RESULTS.no_bracket
    assert len(calls) == 1 + 400  # the solver's own default
    calls.clear()
    root = increasing_root_scalar(lambda h: calls.append(h) or (h - 0.5, 1.0), 0.5, tol=1e-12)
    assert root == 0.5 and calls == [0.5]  # a start at the root: asked once
    calls.clear()

    def slow(h):  # a root at 1/3 and a slope that sends every Newton step out of the bracket
        calls.append(h)
        return h - third, mpmath.mpf(10) ** -300 if h else mpmath.mpf(1) / 5  # the probe brackets [0, 5/3]

    with mpmath.workdps(100), pytest.raises(SolveError) as err:  # 330 bisections would be needed
        third = mpmath.mpf(1) / 3
        increasing_root_scalar(slow, mpmath.mpf(0), tol=0)
    assert len(calls) == 2 + 200  # the start, the probe that brackets, then a step each
    failed = err.value.solution
    assert (failed.result, failed.iterations, failed.message) == (RESULTS.max_steps_reached, 200,
                                                                  "proximal point did not converge")


def test_increasing_scalar_brackets_from_its_start():
    """The scalar increasing root's bracket: a start at the root is the answer with 0 iterations
    and residual 0, and so is a probe that lands on it; a flat start (G_h = 0) probes 1, then 4 more (h^3 = 27 from 0: [1, 5], whose
    midpoint is the root, found in one step); a start within tol of the root probes at least
    16 tol (1 + |h|) away."""
    from numerics.core.solve import solve
    from numerics.core.solve.increasing import IncreasingRootScalar

    sol = solve("increasing-scalar", lambda h: (h - 2.0, 1.0), x0=2.0, tol=1e-12)
    assert sol.ok and sol.value == 2.0 and sol.iterations == 0 and sol.residual == 0
    sol = solve("increasing-scalar", lambda h: (h**3 - 27.0, 3 * h**2), x0=0.0, tol=1e-15)
    assert sol.ok and sol.value == 3.0 and sol.iterations == 1
    for x0 in (2.0, 0.0):  # a probe on the root (from either side) is the answer, with no bisection
        sol = solve("increasing-scalar", lambda h: (h - 1.0, 1.0), x0=x0, tol=1e-12)
        assert sol.value == 1.0 and sol.iterations == 0 and sol.residual == 0
    s = IncreasingRootScalar(lambda h: (h - 1.0 - 1e-13, 1.0), tol=1e-10).init(1.0)
    assert (s.lo, s.hi) == (1.0, 1.0 + 16 * 1e-10 * 2.0) and s.result is None


def test_the_driver_stops_a_solver_that_never_ends_at_1000_steps_and_says_only_its_own_reason():
    """``iterate``'s defaults: 1000 steps, and no message of its own (a failure carries the
    caller's message and the solver's ``explain``, nothing else)."""
    from numerics.core.solve.driver import iterate

    class Forever:
        def init(self, x0):
            return x0

        def step(self, s):
            return s + 1

        def terminate(self, s):
            return False, RESULTS.failed

        def residual(self, s):
            return 1.0

        def value(self, s):
            return s

    sol = iterate(Forever(), 0, throw=False)
    assert (sol.result, sol.iterations, sol.raw, sol.message) == (RESULTS.max_steps_reached, 1000, 1000, "")
    from numerics.core.tasks import reporting

    seen = []
    with reporting(lambda label, done, total: seen.append((label, done, total))):
        iterate(Forever(), 0, max_steps=2, throw=False)
    assert seen == [("solver Forever", 1, None), ("solver Forever", 2, None)]  # each step, by the solver's name

    class Diverged(Forever):  # says it is done, with a residual that is not finite
        def terminate(self, s):
            return True, RESULTS.successful

        def residual(self, s):
            return math.inf

    sol = iterate(Diverged(), 0, throw=False)
    assert sol.result is RESULTS.nonfinite and not sol.ok
    Diverged.residual = lambda self, s: 0.0
    assert iterate(Diverged(), 0).message == ""  # a success has no message
    Forever.explain = lambda self, s: f"still going at {s}"
    assert iterate(Forever(), 0, max_steps=3, throw=False).message == "still going at 3"
    assert iterate(Forever(), 0, max_steps=3, throw=False, message="asked").message == "asked; still going at 3"


def test_increasing_root_takes_any_number_type_and_keeps_every_float_error_inside():
    """The vectorised prox root: values of any numeric dtype are taken as float64 (an object
    array from a compiled mpmath-style function would break the bracket tests), and the
    overflow, division by zero and 0/0 of its Newton steps stay inside it, even where the
    caller raises on them: non-convergence is a SolveError, never a FloatingPointError."""
    from numerics.core.results import SolveError
    from numerics.core.solve import increasing_root

    def as_objects(h):
        return np.array(h - 0.5, dtype=object), np.array(np.ones_like(h), dtype=object)

    with np.errstate(all="raise"):
        assert np.allclose(increasing_root(as_objects, (), np.zeros(3)), 0.5)
        cases = [(lambda h: (np.exp(h) - 2, np.exp(h)), 800.0),  # exp overflows
                 (lambda h: (h**3 - 1, 3 * h**2), 0.0),  # -1 / 0
                 (lambda h: (h**3, 3 * h**2), 0.0)]  # 0 / 0
        for gg, h0 in cases:
            try:
                increasing_root(gg, (), np.full(2, h0), max_iter=3)
            except SolveError:
                pass


def test_increasing_root_tolerance_and_limit_reach_the_solver():
    """``tol`` is the solver's (a loose one stops sooner, farther from the root); ``max_iter``
    defaults to 200 and is the count the refusal reports."""
    from numerics.core.results import SolveError
    from numerics.core.solve import increasing_root

    def gg(h):
        return np.exp(h) - 2, np.exp(h)

    exact = np.log(2.0)
    assert abs(increasing_root(gg, (), np.full(1, 3.0))[0] - exact) < 1e-15
    assert abs(increasing_root(gg, (), np.full(1, 3.0), tol=0.1)[0] - exact) > 1e-12

    def never(h):  # increasing, no root: every step bisects or walks on
        return np.arctan(h) + 2.0, 1.0 / (1.0 + h**2)

    with pytest.raises(SolveError) as e:
        increasing_root(never, (), np.zeros(1))
    assert e.value.solution.iterations == 200 and e.value.solution.residual == float("inf")


def test_increasing_root_states_its_residual_and_lower_bracket():
    """No point: done at once with residual 0.  A point approached from above: Newton's first
    step is inside the bracket (-inf, h0], so a linear G takes one step to its root and one to
    see it."""
    from numerics.core.solve.driver import iterate
    from numerics.core.solve.increasing import IncreasingRoot, IncreasingRootScalar

    empty = iterate(IncreasingRoot(lambda h: (h - 1, np.ones_like(h)), ()), np.zeros(0))
    assert empty.ok and empty.residual == 0.0 and empty.iterations == 0
    lin = iterate(IncreasingRoot(lambda h: (h - 1, np.ones_like(h)), ()), np.full(1, 3.0))
    assert lin.ok and lin.raw[0] == 1.0 and lin.iterations == 2
    # the scalar root's first bracket: its width is the state's residual until the first step
    start = iterate(IncreasingRootScalar(lambda h: (h**3 - 2, 3 * h**2), tol=1e-12), 1.0, max_steps=0, throw=False)
    assert start.result is RESULTS.max_steps_reached and 0 < start.residual < 1
    lo_hi = IncreasingRootScalar(lambda h: (h**3 - 2, 3 * h**2), tol=1e-12).init(1.0)
    assert start.residual == lo_hi.hi - lo_hi.lo and lo_hi.lo < 2 ** (1 / 3) < lo_hi.hi


def test_increasing_root_is_newton_where_newton_works_and_stops_at_its_relative_tolerance():
    """From starts where Newton converges, each step is Newton's (quadratic: a handful of
    steps, also for a root of size 1e6), and a root stops at its first step no longer than
    tol * (1 + |u|): for h^3 = 8 from 2.2 with tol = 0.047 the first step (0.182) is longer than
    0.047 * 3.2 = 0.150 and the second (0.017) is not, so two steps end at 2.000154."""
    from numerics.core.solve.driver import iterate
    from numerics.core.solve.increasing import IncreasingRoot

    def run(gg, h0, tol=1e-14):
        return iterate(IncreasingRoot(gg, (), tol=tol), np.array(h0, dtype=float), max_steps=200)

    cube = run(lambda h: (h**3 - 2, 3 * h**2), [1.0, 1.5, 3.0])
    assert cube.iterations <= 8 and np.allclose(cube.raw, 2 ** (1 / 3), rtol=1e-15, atol=0)
    big = run(lambda h: (h**3 - 2e18, 3 * h**2), [1e6])
    assert big.iterations <= 6 and big.raw[0] == pytest.approx(2e18 ** (1 / 3), rel=1e-15)
    loose = run(lambda h: (h**3 - 8, 3 * h**2), [2.2], tol=0.047)
    assert loose.iterations == 2 and loose.raw[0] == pytest.approx(2.000153618, rel=1e-9)


def _kinked(h):
    """Increasing, steep below 0 and nearly flat above: from the flat side Newton jumps far
    past the other end of the bracket while |G| has halved."""
    s = np.where(h <= 0, 1.0, 0.01)
    return s * np.arctan(20 * h), s * 20 / (1 + 400 * h**2)


@pytest.mark.parametrize("gg, h0, root, steps", [
    (lambda h: (np.arctan(h), 1 / (1 + h**2)), [2.0, -3.0, 10.0], 0.0, 10),  # Newton diverges: walk, then bisect
    (lambda h: (np.arctan(h - 1), 1 / (1 + (h - 1) ** 2)), [5.0], 1.0, 9),
    (lambda h: (h**3 - 8, 3 * h**2), [0.5], 2.0, 10),  # overshoot far right, |G| grows: bisection
    (lambda h: (np.sinh(h) - 5, np.cosh(h)), [10.0, -10.0], np.arcsinh(5.0), 21),  # |G| halves slowly
    (_kinked, [-0.2], 0.0, 13),  # a step out of the bracket with |G| halved: bisection
    # G' = 0 at the start (no Newton step): steps of 4 x 1e-3 (1 + |h|) towards the root, growing
    (lambda h: (h**3 + 0.5, 3 * h**2), [0.0], -(0.5 ** (1 / 3)), 34),
    (lambda h: (h**3 - 0.5, 3 * h**2), [0.0], 0.5 ** (1 / 3), 34),
    (lambda h: ((h - 1000) ** 3 + 0.5, 3 * (h - 1000) ** 2), [1000.0], 1000 - 0.5 ** (1 / 3), 10),
    # a jump across 0 (Newton always overshoots): bisection until the bracket is tol (1 + |h|) wide
    (lambda h: (np.where(h >= 0.3, 0.5, -0.5) + (h - 0.3), np.ones_like(h)), [1.0], 0.3, 49),
    (lambda h: (np.where(h >= 1000.3, 0.5, -0.5) + (h - 1000.3), np.ones_like(h)), [1001.0], 1000.3, 39),
])
def test_increasing_root_safeguards_take_their_documented_path(gg, h0, root, steps):
    """Where Newton alone fails (it diverges, overshoots, or leaves the bracket [lo, hi] that the
    signs of G have given), a step is replaced by bisection once both ends are known, and by a
    step four times longer towards the root before; a step that does not halve |G| is replaced
    too.  The step counts pin that path: each rule changed changes them."""
    from numerics.core.solve.driver import iterate
    from numerics.core.solve.increasing import IncreasingRoot

    sol = iterate(IncreasingRoot(gg, (), tol=1e-14), np.array(h0, dtype=float), max_steps=200)
    assert sol.iterations == steps and np.allclose(sol.raw, root, rtol=1e-13, atol=1e-14)


def test_increasing_root_reports_its_last_relative_step_its_count_left_and_an_exact_zero():
    """The residual of a converged root is the largest relative step |u' - u| / (1 + |u|) of
    its last iteration, inf while points are left; a refusal names how many are left; a start
    where G = G' = 0 is the root (0/0 is not taken as a step)."""
    from numerics.core.results import SolveError
    from numerics.core.solve import increasing_root
    from numerics.core.solve.driver import iterate
    from numerics.core.solve.increasing import IncreasingRoot

    def cube(h):
        return h**3 - 8, 3 * h**2

    x1 = 2.2 - (2.2**3 - 8) / (3 * 2.2**2)
    x2 = x1 - (x1**3 - 8) / (3 * x1**2)
    loose = iterate(IncreasingRoot(cube, (), tol=0.047), np.array([2.2]))
    assert loose.raw[0] == x2 and loose.residual == pytest.approx(abs(x2 - x1) / (1 + x1), rel=1e-12)
    cut = iterate(IncreasingRoot(cube, ()), np.array([2.2, 5.0]), max_steps=1, throw=False)
    assert not cut.ok and cut.residual == math.inf
    with pytest.raises(SolveError, match=r": 2 proximal points did not converge \(iterations 1, residual inf\)$"):
        increasing_root(cube, (), np.array([2.2, 5.0]), max_iter=1)
    flat = iterate(IncreasingRoot(lambda h: (h**3, 3 * h**2), ()), np.zeros(2))
    assert flat.ok and flat.raw.tolist() == [0.0, 0.0] and flat.iterations == 1


def test_newton_computes_with_the_ops_it_is_given():
    """``ops``: "numpy", "mpmath" or an :class:`Ops` of one's own, which is then what every
    linear solve, log and exp of the iteration goes through."""
    from numerics.core.solve import solve
    from numerics.core.solve.newton import FLOAT64_OPS, MPMATH_OPS, Ops

    calls = []

    def counting_solve(J, F):
        calls.append(len(F))
        return FLOAT64_OPS.solve(J, F)

    mine = Ops(counting_solve, FLOAT64_OPS.log, FLOAT64_OPS.exp, FLOAT64_OPS.isfinite)
    sol = solve("newton", lambda x: ([x[0] ** 2 - 2], [[2 * x[0]]]), (True,), tol=1e-10, x0=[1.0], ops=mine)
    assert sol.ok and sol.raw[0] == pytest.approx(math.sqrt(2), rel=1e-10) and calls and set(calls) == {1}
    with mpmath.workdps(40):
        mp = solve("newton", lambda x: ([x[0] ** 2 - 2], [[2 * x[0]]]), (True,), tol=mpmath.mpf(10) ** -30,
                   x0=[mpmath.mpf(1)], ops=MPMATH_OPS)
        assert type(mp.raw[0]) is mpmath.mpf and abs(mp.raw[0] - mpmath.sqrt(2)) < mpmath.mpf(10) ** -30


def test_newton_scales_its_correction_evaluates_once_a_step_and_keeps_a_nonfinite_start():
    """The convergence norm is |du| for a log unknown (relative already) and |du| / max(1, |x|)
    for a free one; an accepted trial's F and J are the next state's (one evaluation a step); a
    start where F is not finite ends as ``nonfinite`` with the start as its iterate."""
    from numerics.core.solve import solve
    from numerics.core.solve.newton import Newton

    assert Newton(None, (True, False))._norm([0.5, 3.0], [100.0, 10.0]) == 0.5
    assert Newton(None, (True, False))._norm([0.05, 30.0], [100.0, 10.0]) == 3.0
    calls = []

    def fun(x):
        calls.append(1)
        return [x[0] ** 2 - 2], [[2 * x[0]]]

    sol = solve("newton", fun, (False,), tol=1e-10, x0=[1.0])
    assert sol.ok and len(calls) == sol.iterations + 1
    bad = solve("newton", lambda x: ([float("nan")], [[1.0]]), (False,), x0=[1.5], throw=False)
    assert bad.result is RESULTS.nonfinite and bad.raw == [1.5] and bad.iterations == 0


def test_newton_ends_singular_with_its_iterate_where_the_correction_cannot_be_solved():
    """A Jacobian that cannot be solved (float64: LinAlgError; mpmath: ZeroDivisionError) or a
    correction that is not finite ends as ``singular``, at the iterate where it happened, with an
    infinite residual: never a step from there."""
    from numerics.core.solve import MPMATH_OPS, solve

    for J in ([[0.0]], [[1e-320]]):  # no solve at all; a solve whose correction overflows
        bad = solve("newton", lambda x, J=J: ([1e10], J), (False,), x0=[1.5], throw=False)
        assert bad.result is RESULTS.singular and bad.raw == [1.5] and bad.iterations == 0
        assert bad.residual == float("inf") and not bad.ok
    with mpmath.workdps(30):
        bad = solve("newton", lambda x: ([mpmath.mpf(1)], [[mpmath.mpf(0)]]), (False,), x0=[mpmath.mpf(2)],
                    ops=MPMATH_OPS, throw=False)
    assert bad.result is RESULTS.singular and bad.raw == [2] and bad.residual == float("inf")
    # after a step: x^3 - 1 from 1 + 1e-3 jumps past the root, then J = 0 at x = 0 is met on the way
    seen = []

    def fun(x):
        seen.append(x[0])
        return [x[0] ** 3 - 1], [[0.0 if abs(x[0] - 1.0) < 1e-9 else 3 * x[0] ** 2]]

    sol = solve("newton", fun, (False,), tol=1e-14, x0=[1.5], throw=False)
    assert sol.result is RESULTS.singular and sol.raw == [seen[-1]] and sol.iterations >= 1


def _path(f, x0, positive=False, **kw):
    """A Newton solve and the points its function was evaluated at, in order."""
    from numerics.core.solve import solve

    seen = []

    def fun(x):
        seen.append(float(x[0]))
        return f(x[0])
    return solve("newton", fun, (positive,), x0=[x0], throw=False, **kw), seen


def _atan(x):
    return [math.atan(x)], [[1 / (1 + x * x)]]


def test_newton_damps_in_the_scaling_of_the_iterate_and_doubles_t_after_a_damped_step():
    """arctan from 3 and 10: a full step overshoots to the other side, farther out. Measured in
    the trial's own scaling |du| / max(1, |x_trial|) the simplified correction looked smaller, so
    every overshoot was accepted and the iterates ran off to 10^292, where J underflowed
    (``singular``). In the scaling of x the overshoots are refused and t halves; the next step
    starts at twice the t accepted. The paths are pinned point by point."""
    sol, seen = _path(_atan, 3.0, tol=1e-12)
    assert sol.ok and sol.iterations == 5 and len(seen) == 8 and abs(sol.raw[0]) < 1e-12
    # t = 1 and 1/2 refused, 1/4 accepted; then t = 1/2 (twice 1/4) accepted, then t = 1
    assert [round(v, 4) for v in seen[:5]] == [3.0, -9.4905, -3.2452, -0.1226, -0.0607]
    sol, seen = _path(_atan, 10.0, tol=1e-12)
    assert sol.ok and sol.iterations == 7 and len(seen) == 12
    # arctan from 1.5: the full step (to -1.69) is refused by 1 - t/4, not by more or less
    sol, seen = _path(_atan, 1.5, tol=1e-12)
    assert sol.ok and sol.iterations == 4 and [round(v, 4) for v in seen[:3]] == [1.5, -1.6941, -0.097]
    # from 1.11 the full step's simplified correction is 0.775 of |du|: above 1 - 1/4, refused
    sol, seen = _path(_atan, 1.11, tol=1e-12)
    assert sol.ok and sol.iterations == 4 and [round(v, 4) for v in seen[:3]] == [1.11, -0.7593, 0.1753]
    # from 1.06 it is 0.724 of |du|: below 1 - 1/4, the full step is taken
    sol, seen = _path(_atan, 1.06, tol=1e-12)
    assert sol.ok and sol.iterations == 5 and [round(v, 4) for v in seen[:3]] == [1.06, -0.6697, 0.1851]


def test_newton_halves_t_past_an_overflow_or_a_function_that_raises_and_stops_at_t_min():
    # a log unknown whose full step (u = 1400, its Jacobian half the true one) overflows exp and
    # is never evaluated; t = 1/2 lands on the root u = 700
    sol, seen = _path(lambda x: ([1e-3 * (math.log(x) - 700)], [[0.5e-3 / x]]), 1.0, positive=True, tol=1e-12)
    assert sol.ok and sol.iterations == 1 and len(seen) == 2 and math.log(sol.raw[0]) == pytest.approx(700)

    def guarded(x):  # arctan that raises beyond |x| = 5: the trial at -9.49 is refused
        if abs(x) > 5:
            raise ZeroDivisionError("outside the model's domain")
        return _atan(x)
    sol, seen = _path(guarded, 3.0, tol=1e-12)
    assert sol.ok and [round(v, 4) for v in seen[:4]] == [3.0, -9.4905, -3.2452, -0.1226]
    # t_min is the least t tried: 1/4 is tried at t_min = 1/4, not at t_min = 1/2
    assert _path(_atan, 3.0, tol=1e-12, t_min=0.25)[0].ok
    failed, seen = _path(_atan, 3.0, tol=1e-12, t_min=0.5)
    assert failed.result is RESULTS.failed and failed.raw == [3.0] and len(seen) == 3


def test_solve_names_its_solvers_and_passes_its_message_on():
    from numerics.core.solve import SOLVERS, solve

    with pytest.raises(ValueError) as err:
        solve("newtn", None)
    assert str(err.value) == f"solver 'newtn': expected one of {', '.join(sorted(SOLVERS))}"
    assert ", newton, " in str(err.value)
    failed = solve("newton", _atan_fun, (False,), x0=[3.0], t_min=0.5, throw=False, message="arctan root")
    assert failed.result is RESULTS.failed and failed.message.startswith("arctan root")
    assert failed.raw == [3.0] and type(failed.raw) is list


def _atan_fun(x):
    return _atan(x[0])


def test_solve_stops_at_1000_steps_by_default():
    from numerics.core.solve import solve

    # F = x with a Jacobian twice the true one: each step halves x, and 2^-1000 is far above tol
    sol = solve("newton", lambda x: ([x[0]], [[2.0]]), (False,), x0=[1.0], tol=1e-320, throw=False)
    assert sol.result is RESULTS.max_steps_reached and sol.iterations == 1000 and sol.raw[0] == 2.0 ** -1000
