"""The ball printer (numerics/core/arb_compile.py), construct by construct: what it prints is
evaluated at points on each side of every decision, and what it refuses is refused with the
message that names the construct and the reason."""
import re

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

from numerics.core import arb_compile
from numerics.core.arb_compile import ArbPrintError, ArbPrinter, CertifyError, compile_acb, compile_arb

x, k = sp.symbols("x k", real=True)


def _exactly(message: str) -> str:
    return "^" + re.escape(message) + "$"


# ---- conditions of a Piecewise: each comparison on each side, at the boundary, undecided -------
@pytest.mark.parametrize("cond, below, at, above", [
    (x < 2, 1, 0, 0), (x <= 2, 1, 1, 0), (x > 2, 0, 0, 1), (x >= 2, 0, 1, 1),
])
def test_each_comparison_is_decided_on_each_side_and_at_its_boundary(cond, below, at, above):
    f = compile_arb(sp.Piecewise((1, cond), (0, True)), (x,))
    assert (f(arb(1)), f(arb(2)), f(arb(3))) == (below, at, above)
    with pytest.raises(CertifyError, match="the balls overlap"):
        f(arb(2, 0.5))  # a ball across the boundary: an error, never a guess


def test_an_undecided_comparison_names_both_balls():
    a, b = arb(2, 0.5), arb(2)
    for fn in (arb_compile._lt, arb_compile._le):
        with pytest.raises(CertifyError, match=_exactly(f"cannot decide the comparison of {a} and {b}: the balls overlap")):
            fn(a, b)
    for fn in (arb_compile._gt, arb_compile._ge):  # a > b is b < a
        with pytest.raises(CertifyError, match=_exactly(f"cannot decide the comparison of {b} and {a}: the balls overlap")):
            fn(a, b)
    # a ball whose lower end is b: it may equal b, so a <= b is undecided (and a < b is False)
    edge = arb(2.5, 0.5)
    with pytest.raises(CertifyError, match="the balls overlap"):
        arb_compile._le(edge, edge.lower())
    assert arb_compile._lt(edge, edge.lower()) is False
    assert arb_compile._gt(arb(3), arb(2)) and not arb_compile._gt(arb(2), arb(3))
    assert arb_compile._ge(arb(2), arb(2)) and not arb_compile._ge(arb(1), arb(2))


def test_and_or_and_the_order_of_the_branches():
    f = compile_arb(sp.Piecewise((1, (x > 0) & (x < 1)), (2, (x < -1) | (x > 5)), (3, True)), (x,))
    assert [f(arb(v)) for v in (0.5, 6, -2, 3, 1)] == [1, 2, 2, 3, 3]


def test_a_piecewise_with_no_branch_that_holds_is_an_error():
    f = compile_arb(sp.Piecewise((1, x > 0)), (x,))
    assert f(arb(1)) == 1
    with pytest.raises(CertifyError, match=_exactly("no branch of the Piecewise holds")):
        f(arb(-1))


def test_a_condition_that_is_not_a_comparison_is_refused():
    with pytest.raises(ArbPrintError, match=_exactly("cannot decide the condition Eq(x, 1) in ball arithmetic")):
        compile_arb(sp.Piecewise((1, sp.Eq(x, 1)), (0, True)), (x,))


# ---- refusals: the construct and the reason ---------------------------------------------------
@pytest.mark.parametrize("expr, message", [
    (sp.Heaviside(x), "refused: Heaviside (Heaviside(x)) (discontinuous: excluded from ball evaluation)"),
    (sp.Integral(sp.exp(-x**2), (x, 0, 1)),
     "refused: Integral (Integral(exp(-x**2), (x, 0, 1))) (integrate with gaussian_expectation / acb.integral instead)"),
    (sp.gamma(x), "refused: gamma (gamma(x)) (no rigorous ball implementation)"),
    (sp.Function("g")(x), "refused: g (g(x)) (no rigorous ball implementation)"),
    (sp.oo * x, "refused: Infinity (oo)"),
    (sp.LambertW(x, 1), "refused: LambertW (LambertW(x, 1)) (LambertW branch other than 0, -1)"),
    (sp.LambertW(x, -2), "refused: LambertW (LambertW(x, -2)) (LambertW branch other than 0, -1)"),
    (sp.I * x, "refused: ImaginaryUnit (I) (imaginary unit in real ball arithmetic)"),
    (sp.EulerGamma * x, "cannot print EulerGamma (EulerGamma) rigorously in ball arithmetic"),
])
def test_what_cannot_be_printed_rigorously_is_refused_with_its_reason(expr, message):
    with pytest.raises(ArbPrintError, match=_exactly(message)):
        compile_arb(expr, (x,))


def test_a_log_with_a_base_is_refused():
    # SymPy rewrites log(x, 2) as log(x)/log(2) when the expression is rebuilt (as the common
    # subexpressions are); kept unevaluated, the printer refuses it
    with pytest.raises(ArbPrintError, match=_exactly("refused: log (log(x, 2)) (log with a base)")):
        compile_arb(sp.log(x, 2, evaluate=False), (x,), cse=False)
    assert compile_arb(sp.log(x, 2, evaluate=False), (x,))(arb(8)).overlaps(arb(3))


@pytest.mark.parametrize("expr", [sp.Max(x, 0), sp.Min(x, 0), sp.Piecewise((x, x > 0), (0, True))])
def test_max_min_and_piecewise_are_real_only(expr):
    with pytest.raises(ArbPrintError, match=_exactly(f"refused: {type(expr).__name__} ({expr}) (not analytic: real balls only)")):
        compile_acb(expr, (x,))


def test_the_printer_knows_two_kinds():
    with pytest.raises(ValueError, match=_exactly("kind must be 'arb' or 'acb', got 'float'")):
        ArbPrinter({}, kind="float")


def test_a_printer_is_real_by_default_and_a_function_of_no_argument_compiles():
    assert ArbPrinter({}).kind == "arb"
    assert compile_arb(sp.sqrt(2), ())().overlaps(arb(2).sqrt())
    assert compile_acb(sp.sqrt(2), ())().real.overlaps(arb(2).sqrt())  # its analytic flag still there


def test_a_free_symbol_that_is_not_an_argument_is_refused_by_name():
    y = sp.Symbol("y")
    with pytest.raises(ArbPrintError, match=_exactly("free symbol y is not an argument")):
        compile_arb(x + y, (x,))


# ---- what is printed: values --------------------------------------------------------------------
def test_lambertw_on_both_real_branches_in_real_and_complex_balls():
    with mpmath.workdps(40), _precision(150):
        for branch in (0, -1):
            ref = mpmath.lambertw(mpmath.mpf("-0.2"), branch).real
            want = arb(mpmath.nstr(ref, 40), "1e-38")
            assert compile_arb(sp.LambertW(x, branch), (x,))(arb("-0.2")).overlaps(want)
            z = compile_acb(sp.LambertW(x, branch), (x,))(acb(arb("-0.2")))
            assert z.real.overlaps(want) and z.real.rad() < 1e-30
        assert compile_arb(sp.LambertW(x), (x,))(arb(1)).overlaps(arb("0.56714329040978387299996866221035554975", "1e-38"))


def test_lambertw_is_indeterminate_on_its_branch_cut_under_the_analytic_flag():
    principal, lower = compile_acb(sp.LambertW(x), (x,)), compile_acb(sp.LambertW(x, -1), (x,))
    with _precision(100):
        on_cut, off_cut = acb(-1, 0), acb(-1, "0.5")
        assert principal(on_cut).is_finite() and not principal(on_cut, _an=True).is_finite()
        assert principal(off_cut, _an=True).is_finite() and principal(acb("-0.3"), _an=True).is_finite()
        assert not lower(acb("-0.3"), _an=True).is_finite() and lower(acb("0.3"), _an=True).is_finite()
        assert not principal(acb(arb("-0.3678", "0.001")), _an=True).is_finite()  # touches -1/e
        # the integral of W_0 over [0, e] is e - 1 (W(e) = 1; the antiderivative x (W - 1 + 1/W))
        v = acb.integral(lambda z, an: principal(z, _an=an), 0, arb.const_e())
        assert v.real.overlaps(arb.const_e() - 1) and v.real.rad() < 1e-20


def test_log1p_and_expm1_keep_their_digits_near_zero_and_log1p_has_the_analytic_flag():
    """Real balls: log1p and expm1 at 1e-30 are 1e-30 to 15 digits (log(1 + x) would give 0 +/-
    1e-16).  Complex balls: log1p is log(1 + x) on the principal branch, indeterminate on its
    cut x < -1 under the analytic flag, as acb.integral needs."""
    from sympy.codegen.cfunctions import expm1, log1p

    tiny = arb("1e-30")
    for f in (log1p, expm1):
        got = compile_arb(f(x), (x,))(tiny)
        assert got.overlaps(tiny) and got.rad() < 1e-44, (f, got)
    for f, want in ((log1p, mpmath.log(1.5)), (expm1, mpmath.expm1(0.5))):
        assert compile_acb(f(x), (x,))(acb("0.5")).real.overlaps(arb(mpmath.nstr(want, 15), "1e-14")), f
    on_cut = compile_acb(log1p(x), (x,))
    assert on_cut(acb(-2)).imag.overlaps(arb.pi()) and not on_cut(acb(-2), _an=True).is_finite()
    assert on_cut(acb("-0.5"), _an=True).real.overlaps(arb(mpmath.nstr(mpmath.log(0.5), 15), "1e-14"))


def test_sign_is_exact_where_the_ball_decides_it_and_real_only():
    f = compile_arb(sp.sign(x), (x,))
    assert [f(arb(v)) for v in (2, -2, 0)] == [1, -1, 0] and f(arb(0)).rad() == 0 and f(arb(0)).is_exact()
    across = arb(0, 1)
    with pytest.raises(CertifyError, match=_exactly(f"cannot decide the comparison of {across} and 0: the balls "
                                                    "overlap")):
        f(across)
    with pytest.raises(ArbPrintError, match=_exactly("refused: sign (sign(x)) (not analytic: real balls only)")):
        compile_acb(sp.sign(x), (x,))


def test_a_condition_named_by_common_subexpressions_is_decided_only_when_reached():
    """Common-subexpression elimination names a condition shared by two Piecewise; it is
    evaluated when a branch asks for it, so that a ball undecided by a condition no branch
    reaches (y around 1, with x > 0 decided first) is no error; where it is reached, it is."""
    y = sp.Symbol("y", real=True)
    pw = lambda a, b, c: sp.Piecewise((a, x > 0), (b, y > 1), (c, True))  # noqa: E731
    f = compile_arb(pw(1, 2, 3) + pw(10, 20, 30) * y, (x, y))
    assert "lambda" in arb_compile._source([pw(1, 2, 3) + pw(10, 20, 30) * y], (x, y), "arb", True)
    assert f(arb(1), arb(1, "0.5")).contains(11) and f(arb(-1), arb(3)) == 62 and f(arb(-1), arb(0)) == 3
    with pytest.raises(CertifyError, match="the balls overlap"):
        f(arb(-1), arb(1, "0.5"))


def test_powers_and_the_imaginary_unit_in_complex_balls():
    with _precision(120):
        assert compile_acb(x ** sp.Rational(1, 3), (x,))(acb(8)).real.overlaps(arb(2))
        assert compile_acb(x ** sp.Rational(1, 3), (x,))(acb(8)).real.rad() < 1e-30
        assert compile_acb(x ** -sp.Rational(1, 2), (x,))(acb(4)).real.overlaps(arb(0.5))
        assert compile_arb(x ** -sp.Rational(1, 2), (x,))(arb(4)).overlaps(arb(0.5))
        assert compile_arb(x ** sp.Rational(1, 3), (x,))(arb(8)).overlaps(arb(2))
        assert compile_arb(x ** sp.pi, (x,))(arb(2)).overlaps(arb(2) ** arb.pi())
        assert compile_acb(x ** sp.pi, (x,))(acb(2)).real.overlaps(arb(2) ** arb.pi())
        assert compile_acb(sp.I * x, (x,))(acb(2)) == acb(0, 2)
        # under acb.integral's analytic flag a power is indeterminate on its branch cut
        assert compile_acb(x ** sp.pi, (x,))(acb(-1)).is_finite()
        assert not compile_acb(x ** sp.pi, (x,))(acb(-1), _an=True).is_finite()


def test_max_and_min_fold_every_argument():
    f = compile_arb(sp.Max(x, 1, k), (x, k))
    assert f(arb(3), arb(2)) == 3 and f(arb(0), arb(2)) == 2 and f(arb(0), arb(-5)) == 1
    g = compile_arb(sp.Min(x, 1, k), (x, k))
    assert g(arb(3), arb(2)) == 1 and g(arb(0), arb(2)) == 0 and g(arb(3), arb(-5)) == -5


@pytest.mark.parametrize("lower, value", [(0, 1), (2, 10), (5, 1)])
def test_binomial_with_an_exact_non_negative_integer_lower_argument(lower, value):
    assert compile_arb(sp.binomial(x, k), (x, k))(arb(5), arb(lower)) == value
    assert compile_acb(sp.binomial(x, k), (x, k))(acb(5), acb(lower)).real == value


@pytest.mark.parametrize("lower", [arb(-1), arb(2.5), arb(2, 1e-10), acb(2, 1)])
def test_binomial_refuses_any_other_lower_argument(lower):
    kind = acb if isinstance(lower, acb) else arb
    f = (compile_acb if kind is acb else compile_arb)(sp.binomial(x, k), (x, k))
    with pytest.raises(CertifyError, match=_exactly(f"binomial({kind(5)}, {lower}): the lower argument must be an "
                                                    "exact non-negative integer")):
        f(kind(5), lower)


def test_integer_powers_by_squaring():
    assert arb_compile._ipow(arb(2), 5) == 32 and arb_compile._ipow(arb(2), -3) == arb(1) / 8
    assert arb_compile._ipow(arb(3), 0) == 1 and arb_compile._ipow(arb(3), 1) == 3


def test_a_list_compiles_to_a_tuple_and_an_expression_to_a_value():
    assert compile_arb([x, 2 * x], (x,))(arb(3)) == (3, 6)
    assert compile_arb(2 * x, (x,))(arb(3)) == 6


def _precision(bits):
    from numerics.core import arb as core_arb

    return core_arb.precision(bits)


def test_abs_and_log_in_complex_balls_are_indeterminate_where_not_analytic():
    """In complex balls |x| is acb's real_abs and log acb's log, each under the analytic flag of
    acb.integral: indeterminate where the function is not analytic (|x| at 0, log on its cut)."""
    absolute, log = compile_acb(sp.Abs(x), (x,)), compile_acb(sp.log(x), (x,))
    with _precision(100):
        assert absolute(acb(-2)).real.overlaps(arb(2)) and absolute(acb(-2), _an=True).real.overlaps(arb(2))
        assert absolute(acb(arb(0, "0.1"))).is_finite() and not absolute(acb(arb(0, "0.1")), _an=True).is_finite()
        assert log(acb(2), _an=True).real.overlaps(arb(2).log()) and log(acb(-2)).is_finite()
        assert not log(acb(-2), _an=True).is_finite()
        # the integral of |x| over [-1, 1] is 1: only with real_abs split at the kink
        v = acb.integral(lambda z, an: absolute(z, _an=an), -1, 1)
        assert v.real.overlaps(arb(1)) and v.real.rad() < 1e-20


def test_an_integer_power_of_a_real_ball_comes_from_its_ends():
    """x^n of a real ball is monotone on each side of 0: [0, 1]^2 is [0, 1] (a product of balls
    gives [-0.5, 1]), so 1 / (1 + 10^4 x^4) on [0, 1] is finite; odd powers keep the sign, even
    powers of a ball around 0 reach 0 and of a negative ball are positive; complex balls and
    negative exponents keep working."""
    x = sp.Symbol("x", real=True)

    def ball(lo, hi):
        return arb(arb(lo + hi) / 2, arb(hi - lo) / 2)

    with _precision(80):
        sq = compile_arb(x**2, (x,))(ball(0, 1))
        assert sq.lower() > -1e-6 and sq.contains(0) and sq.contains(1) and sq.upper() < 1 + 1e-6
        assert compile_arb(1 / (1 + 10**4 * x**4), (x,))(ball(0, 1)).is_finite()
        cube = compile_arb(x**3, (x,))(ball(-1, 2))
        assert cube.contains(-1) and cube.contains(8) and cube.lower() > -1 - 1e-6 and cube.upper() < 8 + 1e-6
        even = compile_arb(x**4, (x,))(ball(-2, 1))
        assert even.contains(0) and even.contains(16) and even.lower() > -1e-6 and even.upper() < 16 + 1e-6
        neg = compile_arb(x**2, (x,))(ball(-3, -2))
        assert neg.contains(4) and neg.contains(9) and neg.lower() > 4 - 1e-6 and neg.upper() < 9 + 1e-6
        inv = compile_arb(x**-2, (x,))(ball(2, 4))
        assert inv.contains(arb(1) / 16) and inv.contains(arb(1) / 4) and inv.upper() < 0.25 + 1e-6
        assert compile_arb(x**5, (x,))(arb(3)).contains(243) and compile_arb(x**0 + x, (x,))(arb(2)) == 3
        z = compile_acb(x**3, (x,))(acb(1, 1))
        assert z.real.contains(-2) and z.imag.contains(2)
        # a ball around 0 whose ends have one square: the even power still reaches 0
        small = compile_arb(x**2, (x,))(ball(-0.5, 0.5))
        assert small.contains(0) and small.contains(0.25) and small.upper() < 0.25 + 1e-6
