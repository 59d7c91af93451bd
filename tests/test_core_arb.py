"""numerics.core.arb: user numbers as balls, the width test, and balls printed as strings that
still enclose the value."""
import math
from decimal import Decimal

import mpmath
import pytest
import sympy as sp
from flint import arb, ctx

from numerics.core import arb as core_arb


def test_user_numbers_become_balls_around_their_exact_value():
    assert core_arb.arb_of(3) == arb(3) and core_arb.arb_of(arb(2)) == arb(2)
    with core_arb.precision(200):
        fifth = core_arb.arb_of("0.2")
        assert fifth.contains(arb(1) / 5) and not fifth.contains(arb(0.2))  # 1/5, not the double
        assert core_arb.arb_of(0.2).contains(arb(1) / 5)  # a float by its decimal representation
        assert core_arb.arb_of(sp.Rational(2, 3)).contains(arb(2) / 3) and core_arb.arb_of(sp.Integer(7)) == arb(7)
        assert core_arb.arb_of("5") == arb(5) and core_arb.arb_of(2.0) == arb(2)
    with pytest.raises(TypeError, match="a boolean is not a number here"):
        core_arb.arb_of(True)
    with pytest.raises(TypeError, match="arb_of takes numbers, got the expression x"):
        core_arb.arb_of(sp.Symbol("x"))


def test_bits_and_precision():
    assert core_arb.bits(30) == math.ceil(30 * math.log2(10)) == 100 and core_arb.bits(1) == 4
    old = ctx.prec
    with core_arb.precision(333.0):
        assert ctx.prec == 333
    assert ctx.prec == old
    with pytest.raises(RuntimeError):
        with core_arb.precision(100):
            raise RuntimeError
    assert ctx.prec == old


def test_width_is_twice_the_radius_absolutely_and_relatively():
    with core_arb.precision(200):
        tol = arb(10) ** -5
        assert core_arb.width_ok(arb(1, tol / 2 * arb("0.999")), 5)  # width just below 1e-5
        assert not core_arb.width_ok(arb(1, tol / 2 * arb("1.001")), 5)
        assert not core_arb.width_ok(arb(1, tol * 3 / 4), 5)  # the radius alone is below 1e-5, the width is not
        # relative to |x| (unless the ball holds 0): a ball around 1e-3 needs width 1e-8
        assert not core_arb.width_ok(arb("0.001", tol / 4), 5) and core_arb.width_ok(arb("0.001", tol / 4000), 5)
        assert core_arb.width_ok(arb(0, tol / 4), 5)  # around 0: absolute only
        assert core_arb.width_ok(arb("100", tol / 4), 5)
    assert not core_arb.width_ok(arb("inf"), 5) and not core_arb.width_ok(arb("nan"), 5)


def test_upper_bounds_as_short_decimals():
    assert core_arb._up(arb(0)) == "0"
    for x in ("1.23456", "0.001", "100", "9.99e-7"):
        s = core_arb._up(arb(x))
        assert Decimal(s) >= Decimal(x) and Decimal(s) <= Decimal(x) * Decimal("1.02")
        assert len(Decimal(s).as_tuple().digits) <= 4
    assert core_arb._up(arb("1.23456")) == "1.25" and core_arb._up(arb("1.23456"), sig=5) == "1.2347"


def test_a_printed_ball_encloses_the_value_and_its_rounding():
    with core_arb.precision(core_arb.bits(60)):
        third = arb(1) / 3
        b = core_arb.ball(third, 40)
    assert b.value is third and str(b) == f"{b.digits}  [{b.mid} ± {b.rad}]"
    assert b.digits.startswith("0.3333") and len(b.digits.replace("0.", "")) == 40
    assert len(b.mid.replace("0.", "")) == 50 and b.width() == 2 * float(Decimal(b.rad))
    with mpmath.workdps(80):
        one_third = mpmath.mpf(1) / 3
        assert b.contains(one_third) and b.contains(b.mid) and not b.contains("0.3333333333333333333333333333333")
        assert not b.contains(one_third + mpmath.mpf(10) ** -45) and not b.contains("0.3334")
        assert not b.contains(mpmath.inf) and not b.contains(mpmath.nan)
    assert b.contains(mpmath.mpf(1) / 3) is False  # a double is not 1/3 to 40 digits
    with pytest.raises(core_arb.CertifyError, match="non-finite ball"):
        core_arb.ball(arb("inf"), 10)
    with core_arb.precision(53):  # the ball's midpoint printed with more digits than its precision
        coarse = core_arb.ball(arb(1) / 3, 30)
    assert coarse.contains(mpmath.mpf(1) / 3) and len(coarse.digits.replace("0.", "")) <= 17
