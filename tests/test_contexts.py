"""One compiled chain, three number systems (``numerics.core.backends``): the Theorem-3 and
Corollary-1 chains of Paper A run under numpy (vectorised over arrays), mpmath (any dps) and
arb (balls), and the three agree: each ball contains the mpmath value, numpy agrees to float64
accuracy elementwise, and the mpmath trapezoid and tanh-sinh rules agree to the digits."""
import numpy as np
import pytest
import sympy as sp

from derivations.core import MUTANTS, mutated
from numerics.core import arb
from numerics.core import backends
from numerics import registry
from numerics.theory.paper_a import alignment as AL
from derivations.paper_a.losses import LOGISTIC, SQUARE

P = AL.ALIGNMENT_SPACE.validate({})
OTHER = AL.ALIGNMENT_SPACE.validate(dict(L=6, R=2, pi=0.3, theta=3.0, alpha0=5.0, eta_w=1.0, eta_b=0.0,
                                         eta_q=0.25, beta=2.0))


@pytest.mark.parametrize("loss", AL.LOSSES)
def test_numpy_is_vectorised_and_agrees_with_mpmath(loss):
    alphas = np.array([0.5, 2.0, 8.0])
    out = AL.limits_under(backends.NumpyContext(), loss, dict(P, alpha0=alphas))
    for k in AL.OUTPUTS:
        assert out[k].shape == alphas.shape
        for a, v in zip(alphas, out[k]):
            ref = AL.limits_under(backends.MpContext(20), loss, dict(P, alpha0=float(a)))[k]
            assert v == pytest.approx(float(ref), rel=1e-12, abs=1e-14), (k, a)
    # a grid in two parameters broadcasts
    grid = AL.limits_under(backends.NumpyContext(), loss, dict(P, alpha0=alphas[:, None], pi=np.array([0.3, 0.5])))
    assert grid["q2_cosine"].shape == (3, 2)


@pytest.mark.parametrize("params", [P, OTHER])
@pytest.mark.parametrize("loss", AL.LOSSES)
def test_the_ball_contains_the_mpmath_value(loss, params):
    with arb.precision(arb.bits(30) + 24):
        balls = AL.limits_under(backends.ArbContext(30), loss, params)
    ref = AL.limits_under(backends.MpContext(50, "tanh-sinh"), loss, params)
    for k in AL.OUTPUTS:
        b = arb.ball(balls[k], 30)
        assert b.contains(ref[k]) and b.width() < 1e-28, (k, str(b))


def test_two_gaussian_rules_agree():
    a = AL.limits_under(backends.MpContext(40), LOGISTIC, P)
    b = AL.limits_under(backends.MpContext(40, "tanh-sinh"), LOGISTIC, P)
    for k in AL.OUTPUTS:
        assert backends.agree_digits(a[k], b[k]) >= 38


def test_the_rate_chain_in_three_systems():
    rp = {k: v for k, v in P.items() if k != "alpha0"}
    mp = AL.rates_under(backends.MpContext(60), LOGISTIC, rp)
    npv = AL.rates_under(backends.NumpyContext(), LOGISTIC, rp)
    with arb.precision(arb.bits(30) + 24):
        ball = AL.rates_under(backends.ArbContext(30), LOGISTIC, rp)
    for k in ("C", "C_w"):
        assert float(npv[k]) == pytest.approx(float(mp[k]), rel=1e-12)
        assert arb.ball(ball[k], 30).contains(mp[k])


def test_a_memoised_run_never_masks_a_mutant():
    true = AL.limits_under(backends.MpContext(20), SQUARE, P)["q2_cosine"]
    with mutated(MUTANTS["A.thm3.self_shift:dropped"]):
        mutated_value = AL.limits_under(backends.MpContext(20), SQUARE, P)["q2_cosine"]
    assert mutated_value != true
    assert AL.limits_under(backends.MpContext(20), SQUARE, P)["q2_cosine"] == true


def test_a_chains_runs_are_remembered_by_context_and_values(monkeypatch):
    """Runs under a context with a key are remembered by the chain, the context's key and the
    values: the same run again computes nothing and returns a copy; other values, another
    precision or inputs given by name compute or find their own; unhashable values (arrays) are
    computed, not remembered; the memo keeps the 128 latest runs, the oldest dropped first."""
    x, y = sp.symbols("x y", real=True)
    ch = backends.Chain((x,), (backends.Closed(y, x**2),), (("out", y + 1),))
    calls = []
    run = backends.Chain._run
    monkeypatch.setattr(backends.Chain, "_run", lambda self, ctx, values: calls.append(list(values)) or run(self, ctx, values))
    monkeypatch.setattr(backends, "_RUNS", {})
    mp = backends.MpContext(30)
    first = ch.run(mp, [3])
    assert first["out"] == 10 and calls == [[3]]
    first["out"] = -1  # the caller's copy
    assert ch.run(mp, [3])["out"] == 10 and ch.run(mp, {"x": 3})["out"] == 10 and ch.run(mp, {x: 3})["out"] == 10
    assert calls == [[3]]
    assert ch.run(mp, [4])["out"] == 17 and ch.run(backends.MpContext(40), [3])["out"] == 10 and len(calls) == 3
    zero_d = np.array(2.0)  # an array, unhashable: computed every time
    assert ch.run(backends.MpContext(30), [zero_d])["out"] == 5 and len(calls) == 4 and len(backends._RUNS) == 3
    assert ch.run(backends.MpContext(30), [zero_d])["out"] == 5 and len(calls) == 5
    for v in range(5, 5 + 125):  # 3 + 125 runs: full
        ch.run(mp, [v])
    assert len(backends._RUNS) == 128 and (ch, mp.key(), (3,)) in backends._RUNS
    ch.run(mp, [1000])
    assert len(backends._RUNS) == 128 and (ch, mp.key(), (3,)) not in backends._RUNS  # the oldest went
    assert (ch, mp.key(), (4,)) in backends._RUNS and (ch, mp.key(), (1000,)) in backends._RUNS


def test_a_chains_blocks_of_closed_forms_and_of_expectations_by_law():
    """Consecutive closed forms are compiled as one block; consecutive expectations over one
    variable as one block, grouped by their Gaussian law (mean and scale each from the right
    group); the run reports every step's value and the largest quadrature error."""
    x, y1, y2, y3, z1, z2, z3, t = sp.symbols("x y1 y2 y3 z1 z2 z3 t", real=True)
    ch = backends.Chain((x,), (backends.Closed(y1, x + 1), backends.Closed(y2, 3 * x), backends.Closed(y3, x**2),
                               backends.Expect(z1, t**2, t, y1, 1), backends.Expect(z2, t**2, t, y2, 2),
                               backends.Expect(z3, t, t, y1, 1)),
                        (("a", z1), ("b", z2), ("c", z3 + y3)))
    res = ch.run(backends.MpContext(30), [1])
    # E(2 + z)^2 = 5, E(3 + 2 z)^2 = 13, E(2 + z) + 1 = 3
    assert [backends.agree_digits(res[k], v) >= 25 for k, v in (("a", 5), ("b", 13), ("c", 3))] == [True] * 3
    assert {k: round(float(v), 12) for k, v in res["_steps"].items()} == {"y1": 2, "y2": 3, "y3": 1, "z1": 5,
                                                                           "z2": 13, "z3": 2}
    assert 0 < res["_quad_err"] < 1e-25
    # an expectation, a closed form of it, an expectation of that: three blocks
    mixed = backends.Chain((x,), (backends.Expect(z1, t**2, t, x, 1), backends.Closed(y1, z1 + 1),
                                  backends.Expect(z2, t, t, y1, 1)), (("out", z2),)).run(backends.MpContext(30), [1])
    assert backends.agree_digits(mixed["out"], 3) >= 25  # E(1 + z)^2 + 1 = 3
    closed = backends.Chain((x,), (backends.Closed(y1, x + 1),), (("out", y1),)).run(backends.MpContext(30), [1])
    assert closed == {"out": 2, "_quad_err": 0, "_steps": {"y1": 2}}


def test_a_context_s_defaults_and_its_refusal():
    assert (backends.MpContext().dps, backends.MpContext().rule, backends.ArbContext().digits) == (30, "trapezoid", 30)
    with pytest.raises(ValueError, match="^rule must be trapezoid or tanh-sinh, got 'simpson'$"):
        backends.MpContext(30, "simpson")


def test_a_user_number_becomes_an_mpf_without_losing_digits():
    """Integers and decimal strings exactly, a SymPy number at the working precision (plus five
    guard digits), a float by its shortest decimal (0.1 is 1/10, not the double)."""
    import mpmath

    with mpmath.workdps(50):
        third = backends.to_mpf(sp.Rational(1, 3))
        assert backends.agree_digits(third, mpmath.mpf(1) / 3) > 50 and backends.to_mpf(sp.pi) == +mpmath.pi
        assert backends.to_mpf(10**30 + 1) == mpmath.mpf(10) ** 30 + 1 and backends.to_mpf(np.int64(7)) == 7
        digits = "0.12345678901234567890123456789"
        assert backends.to_mpf(digits) == mpmath.mpf(digits) and backends.to_mpf(0.1) == mpmath.mpf("0.1")
        assert backends.to_mpf(mpmath.mpf(2) / 7) == mpmath.mpf(2) / 7


def test_an_evaluator_runs_its_own_algorithm_under_the_context_class_it_names():
    """``own`` maps a context class to another run: chosen by the context's type; the reference
    runs the tanh-sinh rule at the given point; keys starting with _ are not values."""
    seen = []

    def run(ctx, params):
        seen.append(("run", type(ctx).__name__, getattr(ctx, "rule", None), dict(params)))
        return {"v": 1, "_private": 0}

    def polish(ctx, params):
        seen.append(("polish", type(ctx).__name__, ctx.rule, dict(params)))
        return {"v": 2}

    ev = backends.Evaluator(run, own={backends.MpContext: polish}, name="toy")
    assert ev.under(backends.NumpyContext(), {"a": 1}) == {"v": 1} and ev({"a": 2}, 20) == {"v": 2}
    assert ev.reference({"a": 3}, 20) == {"v": 2}
    assert seen == [("run", "NumpyContext", None, {"a": 1}), ("polish", "MpContext", "trapezoid", {"a": 2}),
                    ("polish", "MpContext", "tanh-sinh", {"a": 3})]
    assert backends.Evaluator(run).under(backends.MpContext(), {}) == {"v": 1}


def test_a_chain_is_generic():
    x, y, z, t = sp.symbols("x y z t", real=True)
    # y = x^2, z = E (y + zeta)^2 = y^2 + 1: out = x^2 + x^4 + 1
    ch = backends.Chain((x,), (backends.Closed(y, x**2), backends.Expect(z, t**2, t, y, 1)), (("out", y + z),))
    for ctx in (backends.MpContext(30), backends.MpContext(30, "tanh-sinh")):
        assert backends.agree_digits(ch.run(ctx, [2])["out"], 21) >= 28
    assert ch.run(backends.NumpyContext(), [np.array([1.0, 2.0])])["out"] == pytest.approx([3.0, 21.0], rel=1e-13)
    with pytest.raises(ValueError, match="put them in mu and s"):
        backends.Expect(z, t * y, t, 0, 1)


def test_the_claims_evaluators_declare_their_contexts():
    for cid in ("A.thm3.q2_cosine", "A.cor1.alignment_rate", "A.cor2.ridgeless_rate"):
        ev = registry.claim(cid).evaluate
        assert all(ev.supports(c) for c in ("numpy", "mpmath", "arb"))
    ev = registry.claim("A.capacity.pool_vec_ratio").evaluate
    assert ev.supports("arb") and not ev.supports("numpy")
    with pytest.raises(ValueError, match="does not run under the numpy context"):
        ev.under(backends.NumpyContext(), registry.claim("A.capacity.pool_vec_ratio").param_space.validate({}))
    hard = registry.claim("A.thm2.attention_threshold").evaluate  # Krawczyk balls and mpmath, no arrays
    assert hard.supports("arb") and hard.supports("mpmath") and not hard.supports("numpy")
    assert not getattr(registry.claim("A.capacity.ordering").evaluate, "supports", lambda c: False)("arb")


def test_compile_options_are_part_of_the_cache_key():
    """``compile`` compiles once per (exprs, args, extra, cse, raw) and number system: the same
    call returns the same function (no recompilation in a loop, whatever the context's dps),
    and a call differing in one option alone gets its own function."""
    import inspect

    x, y = sp.symbols("x y", real=True)
    e = [x * y + sp.exp(x * y), sp.sin(x * y)]
    for ctx in (backends.NumpyContext(), backends.MpContext(20)):
        f = ctx.compile(e, (x, y))
        assert ctx.compile(list(e), (x, y)) is f and type(ctx)().compile(e, (x, y)) is f
        # cse: the common subexpression x*y is computed once, in the generated code
        plain, cse = (ctx.compile(e, (x, y), cse=c, raw=True) for c in (False, True))
        assert cse is not plain and "x0 = " in inspect.getsource(cse) and "x0 = " not in inspect.getsource(plain)
        # raw: the backend's own output (Python ints here), in the expressions' own shape
        lin, rows = [x, 2 * x], sp.Tuple(sp.Tuple(x, y), sp.Tuple(y, x))
        assert ctx.compile(lin, (x,), raw=True)(3) == (3, 6) and type(ctx.compile(lin, (x,), raw=True)(3)[0]) is int
        assert type(ctx.compile(lin, (x,))(3)[0]) is not int
        assert ctx.compile(rows, (x, y), raw=True)(1, 2) == ((1, 2), (2, 1))
        assert ctx.compile(x * y, (x, y), raw=True)(2, 3) == 6  # one expression: one value
        # extra: two implementations of one name are two functions
        g = sp.Function("g")
        twice = ctx.compile([g(x)], (x,), extra={"g": lambda t: 2 * t})
        thrice = ctx.compile([g(x)], (x,), extra={"g": lambda t: 3 * t})
        assert float(twice(1)[0]) == 2 and float(thrice(1)[0]) == 3
        # the special functions are always there; extra adds to them
        assert float(ctx.compile([sp.erfc(x)], (x,), extra={"g": abs})(0)[0]) == 1
    with pytest.raises(ValueError, match="^the arb context compiles its own functions: no extra implementations$"):
        backends.ArbContext().compile([x], (x,), extra={"g": abs})
    # outputs as a list of balls by default (any iterable of expressions), one ball when raw
    balls = backends.ArbContext().compile((e for e in (x, 2 * x)), (x,))
    assert balls(arb.arb(3)) == (3, 6)
    assert backends.ArbContext().compile(x**2, (x,), raw=True)(arb.arb(3)) == 9


def test_numpy_expectations_on_the_contexts_grid_with_the_step_halving_error():
    """``NumpyContext.expect``: each group's integrands on the context's own grid (step h and
    width), the error estimate the largest difference between the sums at 2h and h."""
    import mpmath

    from numerics.core.quadrature import gaussian_trapezoid

    t = sp.Symbol("t", real=True)
    mu, s = np.array([0.5, -1.0]), np.array([2.0, 0.5])
    (m1, m2, m4), err = backends.NumpyContext().expect([((t, t**2), mu, s), ((t**4,), mu, s)], t)
    assert m1 == pytest.approx(mu, rel=1e-13) and m2 == pytest.approx(mu**2 + s**2, rel=1e-13)
    assert m4 == pytest.approx(mu**4 + 6 * mu**2 * s**2 + 3 * s**4, rel=1e-13) and 0 <= err < 1e-12

    def rule(h, width=9.0):
        z, w = gaussian_trapezoid(h, width)
        return np.sum(w * (mu[:, None] + s[:, None] * z) ** 4, axis=-1)

    (coarse,), err = backends.NumpyContext(step=0.5).expect([((t**4,), mu, s)], t)
    assert coarse == pytest.approx(rule(0.5), rel=1e-14)
    assert err == pytest.approx(np.max(np.abs(rule(1.0) - rule(0.5))), rel=1e-9) and err > 1e-10
    (narrow,), _ = backends.NumpyContext(width=3.0).expect([((t**2,), 0.0, 1.0)], t)
    assert narrow < 0.98  # the rule truncated at the context's width (its weights renormalised)
    (third,), _ = backends.NumpyContext().expect([((t**2,), mpmath.mpf(1) / 3, 1)], t)
    assert third.dtype == np.float64 and backends.NUMPY.number(mpmath.mpf(1) / 3).dtype == np.float64


def test_an_evaluator_takes_its_name_and_doc_from_its_run():
    import functools

    def run(ctx, params):
        """The doubled input."""
        return {"y": ctx.number(2) * params["x"], "_kept_out": 0}

    ev = backends.Evaluator(run, contexts=iter(["numpy", "mpmath"]))
    assert (ev.__name__, ev.__doc__, ev.contexts) == ("run", "The doubled input.", ("numpy", "mpmath"))
    assert repr(ev) == "Evaluator(run, contexts=('numpy', 'mpmath'))"
    assert ev({"x": 3}, 20) == {"y": 6} and ev.under(backends.NumpyContext(), {"x": np.array([1.0, 2.0])})["y"].tolist() == [2, 4]
    assert backends.Evaluator(run, name="double").__name__ == "double"
    assert backends.Evaluator(functools.partial(run)).__name__ == "evaluate"
    with pytest.raises(ValueError, match=r"^double does not run under the arb context \(it runs under numpy, mpmath\)$"):
        backends.Evaluator(run, contexts=("numpy", "mpmath"), name="double").under(backends.ArbContext(20), {"x": 1})

    x, y = sp.symbols("x y", real=True)
    chain = backends.Chain((x,), (backends.Closed(y, x**2),), (("out", y + 1),))

    def square_chain():
        return chain

    ce = backends.chain_evaluator(square_chain, iter(["a"]))
    assert ce.__name__ == "square_chain" and ce({"a": 2}, 30) == {"out": 5} and ce({"a": 3}, 30) == {"out": 10}
    assert backends.chain_evaluator(functools.partial(square_chain), ["a"]).__name__ == "chain"
    assert backends.chain_evaluator(square_chain, ["a"], name="named").__name__ == "named"


def test_the_evalf_reference_takes_decimals_as_written_at_twenty_more_digits():
    import mpmath

    x = sp.Symbol("x", real=True)
    with mpmath.workdps(80):
        fifteenth = mpmath.mpf(1) / 15
        for given in (0.2, "0.2", sp.Rational(1, 5)):  # a float is its shortest decimal, 1/5
            assert backends.agree_digits(backends.evalf_reference(x / 3, {x: given}, 50), fifteenth) >= 50
        long = "0.12345678901234567890123456789"  # more digits than a float holds: kept
        assert backends.agree_digits(backends.evalf_reference(x, {x: long}, 40), mpmath.mpf(long)) >= 40
        assert backends.evalf_reference(x**2, {x: np.int64(3)}, 30) == 9


def test_the_ball_context_encloses_each_expectation_with_no_quadrature_error():
    """E sigmoid(zeta') and E sigmoid'(zeta') at zeta' ~ N(1/2, 2^2): each a ball holding mpmath's
    tanh-sinh value, the tail bounded from the integrand itself (at 300 bits the balls are far
    narrower than the mass beyond the cutoff, so a tail left out shows), and the quadrature error
    the balls already carry (reported as 0)."""
    import mpmath
    from flint import arb as ball

    z = sp.Symbol("z", real=True)
    fs = [1 / (1 + sp.exp(-z)), sp.exp(z) / (1 + sp.exp(z)) ** 2]
    with mpmath.workdps(70):
        want = [mpmath.quad(lambda t: g(mpmath.mpf(1) / 2 + 2 * t) * mpmath.npdf(t), [-mpmath.inf, 0, mpmath.inf])
                for g in (lambda u: 1 / (1 + mpmath.exp(-u)), lambda u: mpmath.exp(u) / (1 + mpmath.exp(u)) ** 2)]
    with arb.precision(300):
        out, err = backends.ArbContext(25).expect([(fs, ball("0.5"), ball(2))], z)
        assert err == 0 and len(out) == 2 and all(v.rad() < 1e-24 for v in out)
        assert all(v.overlaps(ball(mpmath.nstr(w, 65))) for v, w in zip(out, want))


def test_the_tanh_sinh_context_integrates_each_integrand_alone_with_its_own_error():
    """``MpContext(rule="tanh-sinh")`` is the independent reference: mpmath.quad one integrand at
    a time (never the shared trapezoid nodes), its error the largest of their estimates."""
    from numerics.core import quadrature

    z = sp.Symbol("z", real=True)
    calls = []
    real = quadrature.expect_mp_err

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(quadrature, "expect_mp_err", counted)
        mp.setattr(quadrature, "gaussian_expect_mp", lambda *a, **k: pytest.fail("the trapezoid ran"))
        ctx = backends.MpContext(30, "tanh-sinh")
        with ctx.scope():
            out, err = ctx.expect([([z**2, z**4], 0, 1), ([sp.exp(z)], 0, 2)], z)
    assert len(calls) == 3 and 0 <= err < 1e-25
    assert [float(v) for v in out] == pytest.approx([1.0, 3.0, float(sp.exp(2))], rel=1e-14)


def test_the_mpmath_context_integrates_beyond_its_digits():
    """The shared trapezoid of ``MpContext(dps)`` works at dps + 5 digits, so E exp(zeta) =
    e^{1/2} comes out right well past dps digits."""
    import mpmath

    z = sp.Symbol("z", real=True)
    ctx = backends.MpContext(40)
    with ctx.scope():
        (v,), err = ctx.expect([([sp.exp(z)], 0, 1)], z)
        assert abs(v - mpmath.exp(mpmath.mpf(1) / 2)) < mpmath.mpf(10) ** -43 and err < 1e-43


def test_an_evaluators_reference_is_the_tanh_sinh_context():
    """``Evaluator.reference``: the run under ``MpContext(dps, "tanh-sinh")``, the independent
    quadrature, not the evaluator's own trapezoid."""
    seen = []
    ev = backends.Evaluator(lambda ctx, params: seen.append(ctx.key()) or {"v": ctx.number(1)}, name="probe")
    ev.reference({}, 25)
    ev({}, 25)
    assert seen == [("mpmath", 25, "tanh-sinh"), ("mpmath", 25, "trapezoid")]
