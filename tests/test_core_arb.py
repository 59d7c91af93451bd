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
        assert core_arb.arb_of(sp.Rational(1, 2)) == arb(1) / 2 and core_arb.arb_of(0.5) == arb(1) / 2
        long = core_arb.arb_of("0.1234567890123456789012345")  # every digit of a string, not a double's 17
        assert long.contains(arb(1234567890123456789012345) / 10**25) and long.rad() < 1e-50
    with pytest.raises(TypeError, match="^a boolean is not a number here$"):
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
    # a wide ball is bounded by its upper end, not its midpoint or lower end
    assert core_arb._up(arb(1, "0.5")) == "1.51" and core_arb._up(arb(0, 1)) == "1.01"
    # read at sig + 5 digits, rounded to the nearest: 1.230000005 reads 1.2300000, bounded by 1.24
    # (read at more digits it would take a unit more: 1.25)
    assert core_arb._up(arb("1.230000005")) == "1.24" and core_arb._up(arb("1.2300000151")) == "1.24"


def test_a_printed_ball_covers_a_midpoint_whose_decimal_is_not_binary():
    """The printed midpoint is a decimal of digits + 10 places, read back in binary with a radius
    of its own: the printed radius covers both roundings.  An exact x = 0.1 - k 10^-62 printed to
    20 digits (the decimal 0.1 read back 7.8e-62 off) lies 3e-61 to 4e-61 from its printed
    midpoint; a radius without the read-back's own radius, or with the lower end of the gap,
    would fall short of it."""
    for k in (20, 36, 39):
        with core_arb.precision(500):
            x = (core_arb.arb_of(sp.Rational(1, 10)) - arb(k) * arb(10) ** -62).mid()
            exact = x.str(200, radius=False, more=True)
        b = core_arb.ball(x, 20)
        assert b.mid == "0.1" + "0" * 29 and b.contains(exact), (k, str(b), exact)


def test_a_ball_tells_a_number_of_any_type_and_sign_by_its_exact_value():
    b = core_arb.Ball("-0.5", "0.01", "-0.5", None)
    assert b.contains(mpmath.mpf(-0.5)) and b.contains(-0.5) and b.contains("-0.505") and not b.contains(0.5)
    assert not b.contains(mpmath.mpf(-0.25)) and not b.contains(-1)
    three, half = core_arb.Ball("3", "0.5", "3", None), core_arb.Ball("0.5", "0.01", "0.5", None)
    assert three.contains("3") and three.contains(3) and half.contains("0.5") and half.contains("1/2")
    assert not half.contains("1") and not three.contains("4")
    long = "0.1234567890123456789012345678901234567890123456789"
    near = core_arb.Ball(long, "1e-50", long, None)  # 2e-50 beyond is outside
    assert near.contains(long) and not near.contains(long + "2")


def test_a_ball_compares_a_fraction_of_huge_or_tiny_terms_at_their_own_precision():
    """The working precision grows with the bits of the number's numerator and denominator, so
    that (10^60 + 1)/3 is told apart to 10^-5 and 1/(3 10^60) to 10^-71."""
    from decimal import Decimal, localcontext

    with localcontext() as c:
        c.prec = 80
        big = str(Decimal(10**60 + 1) / 3)
    assert core_arb.Ball(big, "1e-5", big, None).contains(f"{10**60 + 1}/3")
    assert not core_arb.Ball(big, "1e-5", big, None).contains(f"{10**60 + 4}/3")
    short = "3.3333333333e-61"
    assert core_arb.Ball(short, "1e-71", short, None).contains(f"1/{3 * 10**60}")


def test_a_ball_is_closed_at_its_printed_radius():
    """The printed ball [mid - rad, mid + rad] contains its ends, though 0.1 is not a binary
    number (the radius is enclosed from above, never below), and nothing a billionth of the
    radius beyond them (an arb's radius has a 30-bit mantissa, rounded up)."""
    b = core_arb.Ball("1", "0.1", "1", None)
    assert b.contains("1.1") and b.contains("0.9") and b.contains("1")
    assert not b.contains("1.1000000001") and not b.contains("0.8999999999")
    # a radius just above a binary number (0.5 + 10^-45, finer than the working precision): its
    # upper end is taken, so its end is inside
    tail = "0" * 43 + "1"
    assert core_arb.Ball("1", "0.5" + tail, "1", None).contains("1.5" + tail)


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
    # the double's exact midpoint to digits + 10 = 40 places, not its shortest 16-digit form
    assert coarse.mid == "0.3333333333333333148296162562473909929395"


# ---- Krawczyk: a root proved in a box, and the second-order condition on a box -----------------
def _shrinking(c=2):
    """F(x) = x - c with a Jacobian enclosure [1 ± 2/5]: the Krawczyk operator of a box of radius
    r around c is c ± 2r/5 (up to arb's rounding), so the steps to a width can be counted."""
    return (lambda x: [x - c]), (lambda x: [[arb(1, 0.4)]])


def test_krawczyk_proves_a_root_of_a_system():
    """x^2 + y^2 = 4, x = y: the box holds (sqrt 2, sqrt 2), each side at most 10^-40 wide."""
    F = lambda x, y: [x * x + y * y - 4, x - y]  # noqa: E731
    J = lambda x, y: [[2 * x, 2 * y], [arb(1), arb(-1)]]  # noqa: E731
    with core_arb.precision(200):
        box, _ = core_arb.krawczyk(F, J, [arb("1.41"), arb("1.42")], 1e-2, 40)
        assert all(b.contains(arb(2).sqrt()) and 2 * b.rad() <= arb(10) ** -40 for b in box)


def test_krawczyk_counts_its_steps_and_stops_at_max_iter():
    """The box of radius 0.6 has radius 0.6 (2/5)^k after k steps: width 10^-d needs the
    smallest k >= log(1.2 10^d) / log(5/2): 56 for d = 22 (55.5, within the default 60), 61 for
    d = 24 (60.5, beyond it); the iteration count is the steps' count."""
    F, J = _shrinking()
    with core_arb.precision(200):
        box, it = core_arb.krawczyk(F, J, [arb(2)], 0.6, 22)
        assert it == 56 and box[0].contains(2) and 2 * box[0].rad() <= arb(10) ** -22 < 5 * box[0].rad()
        assert core_arb.krawczyk(F, J, [arb(2)], 0.6, 22, max_iter=56)[1] == 56
        with pytest.raises(core_arb.CertifyError, match="^Krawczyk: the box did not shrink to the asked width$"):
            core_arb.krawczyk(F, J, [arb(2)], 0.6, 22, max_iter=55)
        with pytest.raises(core_arb.CertifyError, match="^Krawczyk: the box did not shrink to the asked width$"):
            core_arb.krawczyk(F, J, [arb(2)], 0.6, 24)  # 61 steps > the default 60


def test_krawczyk_stops_when_the_width_is_met_not_before_or_after():
    """A box within 10^-digits is returned at once; an enclosure that cannot shrink below its
    width 2 w is refused with that width."""
    J = lambda x: [[arb(1)]]  # noqa: E731
    F = lambda x: [x - 2 + arb(0, 4e-11)]  # noqa: E731  (width 8e-11 <= 1e-10 < 11^-10 * 2)
    assert core_arb.krawczyk(F, J, [arb(2)], 1e-3, 10)[1] == 1
    F = lambda x: [x - 2 + arb(0, 1e-10)]  # noqa: E731
    with pytest.raises(core_arb.CertifyError,
                       match=r"^Krawczyk: no contraction below width 2e-10 at this working precision$"):
        core_arb.krawczyk(F, J, [arb(2)], 1e-3, 20)


def test_krawczyk_tries_the_radii_in_order_and_refuses_without_a_root():
    """x^2 + 1 has no real root: the inclusion fails for every starting box, tried at radius
    r, 100 r, 1000 r, r/100, r/10^4, r/10^6, and the refusal says so."""
    seen = []

    def J(x):
        if x.rad() > 0:
            seen.append(float(x.rad()))
        return [[2 * x]]

    with pytest.raises(core_arb.CertifyError, match="^Krawczyk: no box around the guess passed the inclusion test$"):
        core_arb.krawczyk(lambda x: [x * x + 1], J, [arb("0.5")], 1e-1, 10)
    assert seen == pytest.approx([1e-1, 10.0, 100.0, 1e-3, 1e-5, 1e-7], rel=1e-6)


def test_krawczyk_refuses_a_singular_jacobian_and_an_inconsistent_function():
    with pytest.raises(core_arb.CertifyError, match="^Krawczyk: the Jacobian at the midpoint is singular$"):
        core_arb.krawczyk(lambda x: [x * x], lambda x: [[2 * x]], [arb(0)], 1e-1, 10)
    calls = []

    def moving(x):  # a function that is not one function: its root moves after the proof
        calls.append(1)
        return [x - (2 if len(calls) == 1 else 5)]

    with pytest.raises(core_arb.CertifyError, match=r"^Krawczyk: K\(X\) left the proved box \(should not happen\)$"):
        core_arb.krawczyk(moving, lambda x: [[arb(1, 0.4)]], [arb(2)], 1e-3, 10)


@pytest.mark.parametrize("H, definite", [
    ([[-1]], True), ([["-0.5"]], True), ([[1]], False), ([[arb(0, 0.1)]], False),
    ([[-2, 1], [1, -2]], True), ([[-1, 2], [2, -1]], False), ([[-1, 0], [0, 1]], False),
    ([[-1, 0], [0, 0]], False), ([[1, 0], [0, 1]], False),
    ([[-2, 1, 0], [1, -2, 1], [0, 1, -2]], True), ([[-2, 1, 0], [1, -2, 1], [0, 1, 2]], False),
])
def test_negative_definite_by_sylvester_on_balls(H, definite):
    """(-1)^k det of every leading block > 0, each decided by the balls: a block whose
    determinant is zero or a ball around zero is not proved, and every block is checked."""
    M = [[arb(v) for v in row] for row in H]
    assert core_arb.negative_definite(lambda *X: M, [arb(0)] * len(M)) is definite


def test_gaussian_expectation_passes_the_analytic_flag_to_branch_cuts():
    """E sqrt(zeta^2 + 1/100) exp(-zeta^2/2) (at most 1 on the real line): the branch points sit at
    ±i/10, near the segment; the ball must hold the value (without the analytic flag the
    quadrature steps over the branch cut and returns a ball 6e-19 off, excluding it)."""
    x = sp.Symbol("x", real=True)
    f = core_arb.compile_acb(sp.sqrt(x**2 + sp.Rational(1, 100)) * sp.exp(-x**2 / 2), (x,))
    with mpmath.workdps(50):
        exact = mpmath.quad(lambda z: mpmath.sqrt(z * z + mpmath.mpf(1) / 100) * mpmath.exp(-z * z / 2) * mpmath.npdf(z),
                            [-mpmath.inf, -0.1, 0, 0.1, mpmath.inf])
    with core_arb.precision(120):
        v = core_arb.gaussian_expectation(f, arb(0), arb(1), arb(1), 20)
        assert v.contains(arb(mpmath.nstr(exact, 40))) and v.rad() < 1e-25


def test_real_line_bound_of_a_constant_and_its_depth_of_splitting():
    """A constant bounds itself; 1 / ((e^x - 1/3)^2 + 2^-k) (sup 2^k at x = -log 3) needs k
    halvings of [0, 1] before every piece's ball is finite: k = 8 is bounded within the default
    8 levels, k = 9 is refused."""
    x = sp.Symbol("x", real=True)
    assert core_arb.real_line_bound(sp.Rational(-3, 2), x) == arb(1.5)
    assert core_arb.real_line_bound(-sp.pi, x).contains(arb.pi())
    # from above: the upper end of pi's ball, whose own upper end is at least pi
    assert sp.Rational(core_arb.real_line_bound(-sp.pi, x).upper().mid().str(60, radius=False, more=True)) >= sp.pi
    # both half-lines: sup of the sigmoid is 1 (x -> +inf), of a bump at e^x = 3/2 is 4 (x > 0);
    # a small function is bounded by a small number (no floor at 1)
    assert core_arb.real_line_bound(1 / (1 + sp.exp(-x)), x) >= 1
    assert core_arb.real_line_bound(1 / ((sp.exp(x) - sp.Rational(3, 2)) ** 2 + sp.Rational(1, 4)), x) >= 4
    assert core_arb.real_line_bound(1 / (10 * (1 + sp.exp(x))), x) < 0.2
    bumped = [1 / ((sp.exp(x) - sp.Rational(1, 3)) ** 2 + sp.Rational(1, 2**k)) for k in (8, 9)]
    assert core_arb.real_line_bound(bumped[0], x) >= 256
    with pytest.raises(core_arb.CertifyError, match="is not bounded on the real line"):
        core_arb.real_line_bound(bumped[1], x)
    # a rational function of exp(x) with another symbol in it, or not rational: refused, named
    y = sp.Symbol("y")
    for f in (y / (1 + sp.exp(x)), x / (1 + sp.exp(x))):
        with pytest.raises(core_arb.CertifyError, match=r"^cannot bound \|.*\| on the real line: not a rational "
                                                        r"function of exp\(x\)$"):
            core_arb.real_line_bound(f, x)


@pytest.mark.parametrize("name", ["limit at +inf", "peak at x = log 1.4", "peak at x = log 0.135"])
def test_real_line_bound_is_close_on_either_half_line_and_for_narrow_peaks(name):
    """The bound holds the supremum and is within 20 % of it, where the supremum is the limit
    at +inf (1000 e^4x / (10^4 + e^4x): the x >= 0 half-line alone sees it), or a narrow peak
    on either half-line (height 1: the fine splits of [0, 1] bound it closely, the coarse ones
    by thousands)."""
    x = sp.Symbol("x", real=True)
    E = sp.exp(x)
    f = {"limit at +inf": 1000 * E**4 / (10**4 + E**4),
         "peak at x = log 1.4": 2 * (E / sp.Rational(14, 10)) ** 20 / (1 + (E / sp.Rational(14, 10)) ** 40),
         "peak at x = log 0.135": 2 * (E / sp.Rational(135, 1000)) ** 6 / (1 + (E / sp.Rational(135, 1000)) ** 12)}[name]
    fn = sp.lambdify(x, f, "mpmath")
    with mpmath.workdps(30):
        sup = max(abs(fn(mpmath.mpf(t) / 200)) for t in range(-2000, 2000))
    bound = core_arb.real_line_bound(f, x)
    assert bound >= arb(mpmath.nstr(sup, 20)) and bound < 1.2 * float(sup)


def test_real_line_bound_compares_its_pieces_as_balls_beyond_the_float_range():
    """Bounds above 1e308 are all inf as floats: the largest piece is found in balls, so
    10^500 e^2x / (1 + e^4x) (supremum 10^500 / 2) and 10^500 times a narrow peak of height 1 are
    bounded from above (compared as floats they were bounded by 1.5e495 and 1.1e455)."""
    x = sp.Symbol("x", real=True)
    E, C = sp.exp(x), sp.Integer(10) ** 500
    assert core_arb.real_line_bound(C * E**2 / (1 + E**4), x) >= arb(10) ** 500 / 2
    peak = 2 * (E / sp.Rational(14, 10)) ** 20 / (1 + (E / sp.Rational(14, 10)) ** 40)
    assert core_arb.real_line_bound(C * peak, x) >= arb(10) ** 500 * arb("0.997")


def test_gaussian_expectation_refuses_an_integrand_that_is_not_real():
    """E i sigmoid(zeta): a finite ball whose imaginary part is not 0 is refused (the real part
    alone would be a wrong answer)."""
    x = sp.Symbol("x", real=True)
    f = core_arb.compile_acb(sp.I / (1 + sp.exp(-x)), (x,))
    with pytest.raises(core_arb.CertifyError, match=r"^Gaussian expectation: quadrature did not give a finite real ball \("):
        core_arb.gaussian_expectation(f, arb(0), arb(1), arb(1), 10)


@pytest.mark.parametrize("bound, digits", [(1e6, 14), (0.5, 64), (arb(1e6, 5e5), 20), (1, 100)])
def test_gaussian_cutoff_is_the_documented_integer_and_its_tail_an_upper_bound(bound, digits):
    """Z = ceil(sqrt(2 (digits + 6) ln 10 + 2 ln(max(B, 1) + 1))) for B the upper end of the
    bound, and the tail an upper bound of B P(|zeta| > Z) below 10^-(digits + 6) (mpmath's erfc
    at more digits).  (The cases sit where a changed constant of the formula moves the ceiling.)"""
    B = float(arb(bound).upper().mid())
    with mpmath.workdps(digits + 30):
        want = int(mpmath.ceil(mpmath.sqrt(2 * (digits + 6) * mpmath.log(10) + 2 * mpmath.log(max(1.0, B) + 1))))
        with core_arb.precision(core_arb.bits(digits + 30)):
            Z, tail = core_arb.gaussian_cutoff(bound, digits)
            assert Z == want and tail < arb(10) ** (-(digits + 6))
            exact = B * mpmath.erfc(want / mpmath.sqrt(2))
            assert tail >= arb(mpmath.nstr(exact, digits + 20)) * (1 - arb(10) ** -(digits + 10))
            exact = arb(mpmath.nstr(exact, digits + 20))
        with core_arb.precision(53):  # a wide ball of the tail: its upper end is taken, not its middle
            assert core_arb.gaussian_cutoff(bound, digits)[1] >= exact


def test_width_ok_is_relative_to_the_smallest_magnitude_of_the_ball():
    """[0.5 ± 0.025] is 0.05 wide: within 10^-1 absolutely, and within 10^-1 of |x| at its upper
    end (0.0525) but not at its lower end (0.0475): not narrow enough."""
    assert not core_arb.width_ok(arb("0.5", "0.025"), 1)
    assert core_arb.width_ok(arb("0.5", "0.02"), 1) and core_arb.width_ok(arb(0, "0.04"), 1)
