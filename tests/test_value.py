"""The one number type: arithmetic with first-order error propagation, comparison, conversion
to float / mpf / numpy, and the one printer (only the digits the uncertainty supports)."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from numerics.core import value as V
from numerics.core.value import Value

A = Value(mpmath.mpf("86.8185546"), "0.648", "rqmc_se", 30)


def test_printer_keeps_the_digits_the_error_supports():
    out = {"a": mpmath.mpf("86.8185546"), "a_rqmc_se": mpmath.mpf("0.648"), "exact": mpmath.pi}
    vals = V.values(out, 30)
    assert set(vals) == {"a", "exact"}  # the se rides on its estimate, not on a key
    assert vals["a"].digits == 4 and vals["a"].kind == "rqmc_se" and vals["exact"].digits == 30
    assert V.flatten(vals) == {"a": "86.82", "a_rqmc_se": "0.65", "exact": "3.14159265358979323846264338328"}
    as_float = V.flatten({**vals, "note": "text"}, as_float=True)  # for tables and plots: floats, no text
    assert as_float == {"a": float(out["a"]), "a_rqmc_se": float(out["a_rqmc_se"]), "exact": float(mpmath.pi)}
    assert str(vals["a"]) == "86.82 ± 0.65" and repr(vals["a"]) == "Value(86.82, rqmc_se=0.65)"
    dangling = V.values({"slope_se": 0.0123456}, 30)["slope_se"]
    assert str(dangling) == "0.012"
    assert str(Value(True)) == "true" and str(Value(3)) == "3"


def test_a_ball_radius_prints_fewer_digits_than_a_standard_error():
    assert Value(1, "1e-6", "radius").digits == 7 and Value(1, "1e-6", "se").digits == 8


def test_arithmetic_propagates_independent_errors_to_first_order():
    b = Value(2, "0.1", "rqmc_se")
    s = A + b
    assert float(s) == pytest.approx(88.8185546) and float(s.error) == pytest.approx(math.hypot(0.648, 0.1))
    p = A * b
    assert float(p.error) == pytest.approx(math.hypot(2 * 0.648, 86.8185546 * 0.1))
    q = A / b
    assert float(q.error) == pytest.approx(math.hypot(0.648 / 2, 86.8185546 * 0.1 / 4))
    sq = A**2
    assert float(sq.error) == pytest.approx(2 * 86.8185546 * 0.648)
    assert float((1 + A).error) == pytest.approx(0.648) and float(2 - A) == pytest.approx(2 - 86.8185546)
    assert float((2 * A).error) == pytest.approx(2 * 0.648) and (-A).error == A.error
    r = Value(1, "0.01", "radius") + Value(1, "0.02", "radius")  # radii add
    assert r.kind == "radius" and float(r.error) == pytest.approx(0.03)
    assert (A + Value(1, "0.1", "se")).kind == "se"  # mixed statistical kinds


def test_exact_values_keep_their_precision():
    two = Value(mpmath.mpf(2), dps=40)
    root = two**0.5
    assert root.exact and root.dps == 40
    with mpmath.workdps(50):
        assert abs(root.mpf - mpmath.sqrt(2)) < mpmath.mpf(10) ** -38
    assert len(str(root).replace(".", "")) == 40  # whatever mpmath.mp.dps is (15 here)


def test_comparison_and_conversion():
    assert A < 100 and A > 1 and A <= A and A == mpmath.mpf(86.8185546) and A != 1
    assert float(A) == 86.8185546 and mpmath.mpf(A) == mpmath.mpf("86.8185546")
    assert mpmath.sqrt(A) == pytest.approx(math.sqrt(86.8185546))
    assert sorted([A, Value(1)])[0] == 1 and max(A, Value(1)) is A
    assert f"{A}" == "86.82 ± 0.65" and f"{A:.1f}" == "86.8" and float(round(A, 1)) == 86.8 and math.sqrt(A) > 9


def test_numpy_interop():
    arr = np.asarray([A, Value(2)])
    assert arr.dtype == float and arr.tolist() == [86.8185546, 2.0]
    shifted = np.array([1.0, 2.0]) + A
    assert shifted.dtype == object and [float(v) for v in shifted] == [87.8185546, 88.8185546]
    assert all(v.error == A.error for v in shifted)
    assert isinstance(np.float64(2) * A, Value) and float((np.float64(2) * A).error) == pytest.approx(1.296)
    assert isinstance(np.multiply(A, A), Value) and np.less(A, 100)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(0.1, 1e3), y=st.floats(0.1, 1e3), sx=st.floats(1e-6, 1.0), sy=st.floats(1e-6, 1.0))
def test_propagation_matches_the_linearisation(x, y, sx, sy):
    a, b = Value(x, sx, "se"), Value(y, sy, "se")
    for f, (ga, gb) in ((lambda u, v: u * v, (y, x)), (lambda u, v: u / v, (1 / y, -x / y**2)),
                        (lambda u, v: u - v, (1, -1))):
        r = f(a, b)
        assert float(r) == pytest.approx(f(x, y), rel=1e-12)
        assert float(r.error) == pytest.approx(math.hypot(ga * sx, gb * sy), rel=1e-9)


# --- every digit at the operands' precision ------------------------------------------------------
def _pi(dps):
    with mpmath.workdps(dps):
        return +mpmath.pi


def _reference(f, dps, *args):
    """f at dps + 40 digits, printed to dps digits."""
    with mpmath.workdps(dps + 40):
        return mpmath.nstr(f(*args), dps, strip_zeros=False).rstrip(".")


def test_negation_abs_and_sqrt_of_a_50_digit_value_keep_every_digit():
    v = Value(_pi(50), dps=50)
    assert str(v) == "3.1415926535897932384626433832795028841971693993751"
    assert str(-v) == "-" + str(v) and str(abs(-v)) == str(v) and str(+v) == str(v) and str(--v) == str(v)
    assert str(np.negative(v)) == str(-v) and str(np.abs(-v)) == str(v)
    assert str(np.sqrt(v)) == _reference(mpmath.sqrt, 50, v.mpf) == "1.7724538509055160272981674833411451827975494561224"
    for f, g in ((np.exp, mpmath.exp), (np.log, mpmath.log), (np.log10, mpmath.log10), (np.tanh, mpmath.tanh),
                 (np.cos, mpmath.cos), (np.square, lambda x: x * x)):
        assert str(f(v)) == _reference(g, 50, v.mpf), f.__name__
    assert f(v).dps == 50


def test_results_do_not_depend_on_mpmaths_global_precision():
    v, w = Value(_pi(60), "1e-40", "se", 60), Value("0.6666666666666666666666666667", dps=50)

    def everything():
        return [str(x) for x in (v, -v, abs(-v), np.sqrt(v), v**w, w**v, round(v, 20), v - w, v / w, np.log(w),
                                 V.error_text((v - v).error), V.error_text((2 * v - v).error), v > w, float(v),
                                 int(v * 10**30), round(w), f"{v:.8f}")]

    with mpmath.workdps(5):
        low = everything()
    with mpmath.workdps(300):
        assert everything() == low


def test_the_printer_rounds_once_from_the_exact_value():
    # mpmath.nstr truncates to dps + 3 digits before it rounds: it printed 95342306167.1 here
    with mpmath.workdps(40):
        x = mpmath.mpf("95342306167.150000000000006")
        assert V.text(x, 12) == "95342306167.2" and V.text(-x, 12) == "-95342306167.2"
        assert V.text(mpmath.mpf("0.125"), 2) == "0.13" and V.text(mpmath.mpf("-2.5"), 1) == "-3"
        assert str(Value(x, dps=12)) == "95342306167.2" and str(-Value(x, dps=12)) == "-95342306167.2"


def test_the_printer_lays_numbers_out_as_before():
    for x, n, out in ((100, 2, "1.0e+2"), (2, 1, "2"), (0.5, 3, "0.500"), (1e-7, 3, "1.00e-7"), (123456, 3, "1.23e+5"),
                      (-0.012345, 2, "-0.012"), (12.5, 1, "1.e+1"), (0.0001234, 2, "0.00012"), (99.96, 3, "100"),
                      (0, 5, "0.0")):
        assert V.text(mpmath.mpf(x), n) == out == mpmath.nstr(mpmath.mpf(x), n, strip_zeros=False).rstrip(".")


def test_round_float_int_at_the_values_precision():
    from fractions import Fraction

    with mpmath.workdps(50):
        big = Value(mpmath.mpf(10) ** 40 + 1, dps=50)  # 41 digits: a float holds 17
    assert int(big) == 10**40 + 1 and round(big) == 10**40 + 1 and math.floor(big) == 10**40 + 1
    v = Value(_pi(50), dps=50)
    assert str(round(v, 30)) == "3.1415926535897932384626433832800000000000000000000"
    assert round(Value(2.5)) == 2 and round(Value(-3.5)) == -4 and math.ceil(Value(-0.5)) == 0
    assert float(v) == math.pi and round(v, 2).kind == "dps"
    r = round(A, 1)
    assert str(r) == "86.80 ± 0.65" and r.error == A.error and float((r - A).error) == 0  # the same estimate
    with pytest.raises(ValueError, match="float.*does not hold"):
        f"{v:.30f}"
    assert f"{v:.10f}" == "3.1415926536" and f"{v:>53}" == "  " + str(v) and f"{A:*<14}" == "86.82 ± 0.65**"
    with pytest.raises(OverflowError):
        round(Value(mpmath.inf))
    # n decimals beyond the value's precision: rounded at that precision (and its guard digits)
    third = Value(1 / 3)
    assert round(third, 50).mpf == V._mpf(round(Fraction(1 / 3), 50), third.dps + V.GUARD_DPS)
    assert math.trunc(Value(-2.75)) == -2 and math.trunc(Value(mpmath.mpf(10) ** 20 + 0.5)) == 10**20
    assert bool(Value(0.5)) and bool(Value(-1)) and not bool(Value(0)) and not bool(Value(0.0, "0.1", "se"))


def test_comparisons_are_exact():
    from fractions import Fraction

    with mpmath.workdps(40):
        x = Value(mpmath.mpf(1) + mpmath.mpf(2) ** -80, dps=40)  # not a float: 1 + 2^-80
        third = Value(mpmath.mpf(1) / 3, dps=30)
    assert x > 1 and x != 1.0 and x > mpmath.mpf(1) and x > Value(1) and not x == 1 and x >= Value(1, "0.5", "se")
    assert x < 1 + Fraction(1, 2**79) and x == 1 + Fraction(1, 2**80) and x > Fraction(1, 1)
    assert third != Fraction(1, 3) and (third < Fraction(1, 3)) != (third > Fraction(1, 3)) and third > 0.3333333333333333
    assert hash(Value(10**30)) == hash(10**30) and hash(Value(0.5)) == hash(0.5)
    # a rational nearer than any precision an mpf conversion would use: compared as a Fraction
    near = V._fraction(third.mpf) + Fraction(1, 3 * 10**2100)
    assert third < near and third != near and not third >= near
    # the nearest mpf to 1/3 that the conversion of a rational gives is still not 1/3: only a
    # denominator that is a power of two is compared in binary
    closest = Value(V._mpf(Fraction(1, 3)))
    assert closest != Fraction(1, 3) and (closest < Fraction(1, 3)) != (closest > Fraction(1, 3))
    # infinities and nan as floats, an infinite Value against rationals, and what is not a number
    inf = Value(mpmath.inf)
    assert Value(1) < math.inf and Value(1) > -math.inf and not Value(1) == math.nan and Value(1) != math.nan
    assert inf > 1 and inf > 0.5 and inf > Fraction(1, 3) and not inf < 10**400 and inf == math.inf
    assert Value(1) != "1" and not Value(1) == "1" and Value(1) == Value(1.0, "0.5", "se")
    for bad in ("1", None, [1]):
        with pytest.raises(TypeError):
            Value(1) < bad


def test_powers_with_a_value_exponent():
    a, b = Value(3, "0.01", "se", 40), Value(mpmath.mpf("1.5"), "0.02", "se", 40)
    r = a**b  # d/da = b·a^(b-1), d/db = a^b·ln a
    assert float(r) == pytest.approx(3**1.5, rel=1e-15) and r.dps == 40
    assert float(r.error) == pytest.approx(math.hypot(1.5 * 3**0.5 * 0.01, 3**1.5 * math.log(3) * 0.02), rel=1e-12)
    r = b**a
    assert float(r.error) == pytest.approx(math.hypot(3 * 1.5**2 * 0.02, 1.5**3 * math.log(1.5) * 0.01), rel=1e-12)
    assert str(2 ** Value(_pi(50), dps=50)) == _reference(lambda x: 2**x, 50, _pi(50))
    assert str(Value(_pi(50), dps=50) ** Value(_pi(50), dps=50)) == _reference(lambda x: x**x, 50, _pi(50))
    with pytest.raises(ValueError, match="not a real number"):
        Value(-8) ** (1 / 3)
    with pytest.raises(ValueError, match="negative base with an uncertain exponent"):
        Value(-2) ** Value(2, "0.1", "se")


def test_ufuncs_refuse_clearly():
    v = Value(2, "0.1", "se")
    with pytest.raises(TypeError, match=r"numpy\.floor is not supported on a Value; supported: .*sqrt"):
        np.floor(v)
    with pytest.raises(TypeError, match=r"numpy\.add\.reduce"):
        np.add.reduce(v)
    with pytest.raises(ValueError, match=r"numpy\.sqrt\(-1\.0\) is not a real number"):
        np.sqrt(Value(-1))
    with pytest.raises(ValueError, match="no finite derivative"):
        np.sqrt(Value(0, "0.1", "se"))
    assert str(np.sqrt(Value(0))) == "0.0"  # an exact 0 has no error to propagate
    assert np.maximum(v, 5) == 5 and np.minimum(v, 5) is v and np.maximum(mpmath.mpf(1), v) is v


def test_every_ufunc_applies_to_object_arrays_of_values():
    """Each entry of the one table works on a Value, on object arrays of Values (where numpy
    calls the element's method or operator), and gives the same Value both ways."""
    unary = {n for n, op in V.UFUNCS.items() if op.partials is not None and len(op.partials) == 1}
    binary = set(V.UFUNCS) - unary
    assert {"sqrt", "exp", "log", "log10", "sin", "cos", "tanh", "absolute", "negative", "square"} <= unary
    assert {"add", "subtract", "multiply", "divide", "power", "less", "equal"} <= binary
    x, y = Value(mpmath.mpf("0.3"), "0.01", "se", 25), Value(mpmath.mpf("0.7"), "0.02", "se", 25)
    arr = np.array([x, y], dtype=object)
    for name in sorted(V.UFUNCS):
        u = getattr(np, name)
        arg = (x + 1.5) if name == "arccosh" else x
        one = u(arg) if name in unary else u(arg, y)
        many = u(arr + 1.5 if name == "arccosh" else arr) if name in unary else u(arr, arr[::-1])
        comparison = V.UFUNCS[name].partials is None and name not in ("maximum", "minimum")
        assert many.shape == (2,) and many.dtype == (bool if comparison else object), name
        assert (one == many[0]) if isinstance(one, Value) else one == many[0], name
        if isinstance(one, Value) and one.kind != "dps":
            assert one.error == many[0].error, name


# --- correlated operands: linear propagation over independent sources ----------------------------
def test_a_value_minus_itself_has_no_error():
    v = Value(mpmath.mpf("1.25"), "0.1", "se")
    assert (v - v).error == 0 and float((2 * v - v).error) == pytest.approx(0.1)
    assert float((v * v).error) == pytest.approx(float((v**2).error)) == pytest.approx(2 * 1.25 * 0.1)
    assert (v / v).error == 0 and float(v / v) == 1 and (np.exp(np.log(v)) - v).error < 1e-25
    w = Value(mpmath.mpf("1.25"), "0.1", "se")  # the same numbers, another estimate
    assert float((v - w).error) == pytest.approx(math.sqrt(2) * 0.1)
    s = v + w
    assert float((s - v).error) == pytest.approx(0.1) and float((s - v - w).error) == 0
    assert float((s * v - v * v - w * v).error) < 1e-25


def test_sources_survive_pickling_but_not_text():
    import pickle

    v = Value(mpmath.mpf("3.5"), "0.2", "rqmc_se")
    u, s = pickle.loads(pickle.dumps([v, 2 * v]))
    assert (u - v).error == 0 and float((s - 2 * v).error) == 0 and s.kind == "rqmc_se"
    back = V.values({"x": mpmath.mpf(V.flatten({"x": v})["x"]), "x_rqmc_se": mpmath.mpf("0.2")}, 30)["x"]
    assert float((back - v).error) == pytest.approx(math.sqrt(2) * 0.2)  # text carries no sources


def test_estimates_of_one_result_and_balls_are_independent_sources():
    vals = V.values({"a": 1.0, "a_se": 0.1, "b": 1.0, "b_se": 0.1}, 30)
    assert float((vals["a"] - vals["b"]).error) == pytest.approx(math.sqrt(2) * 0.1)

    class Ball:
        mid, rad = "2.0", "1e-20"

    x, y = V.from_ball(Ball, 30), V.from_ball(Ball, 30)
    assert (x - x).error == 0 and float((x + y).error) == pytest.approx(2e-20)
    assert float((x * x - y).error) == pytest.approx(4e-20 + 1e-20) and (x - y).kind == "radius"


def test_long_chains_are_accumulated_without_recursion():
    terms = [Value(1, "0.1", "se") for _ in range(5000)]
    total = Value(0)
    for t in terms:
        total = total + t
    assert float(total.error) == pytest.approx(0.1 * math.sqrt(5000)) and float((total - terms[7]).error) < float(total.error)
    doubled = terms[0]
    for _ in range(200):  # shared operands: 2^200 paths, one visit each
        doubled = doubled + doubled
    assert float(doubled.error) == pytest.approx(0.1 * 2.0**200)


def test_format_specs_check_every_digit_they_show():
    """``format(v, spec)`` formats ``float(v)`` and refuses when a shown digit is not the
    Value's own: each part of a formatted float is read back (thousands separators, an
    exponent in either case, a percent sign, a sign, a bare trailing point), to half a unit of
    its last digit."""
    from numerics.core.digits import _shows

    with mpmath.workdps(50):
        big = Value(mpmath.mpf("1234567.125"), dps=50)
        tiny = Value(-mpmath.mpf(1) / 3 * mpmath.mpf(10) ** -7, dps=50)
        third = Value(mpmath.mpf(1) / 8, dps=50)
        huge = Value(mpmath.mpf(10) ** 400, dps=50)
    assert f"{big:,.3f}" == "1,234,567.125" and f"{big:_.1f}" == "1_234_567.1"
    assert f"{tiny:.3E}" == "-3.333E-08" and f"{tiny:.3e}" == "-3.333e-08"
    assert f"{third:.1%}" == "12.5%" and f"{big:#.0f}" == "1234567."
    with pytest.raises(ValueError, match="does not hold"):
        f"{huge:.3e}"  # float(v) is inf: no digit of it is the Value's
    x = mpmath.mpf("1.007")
    assert not _shows("1.00", x) and _shows("1.01", x)            # half a unit of the last digit
    assert _shows("2", mpmath.mpf("2.5")) and not _shows("2", mpmath.mpf("2.5") + mpmath.mpf(2) ** -40)
    assert _shows("2.2", mpmath.mpf("2.25")) and not _shows("2.2", mpmath.mpf("2.3"))
    assert _shows("-1.5", mpmath.mpf("-1.5")) and not _shows("-1.5", mpmath.mpf("1.5"))
    assert _shows("1,500.0", mpmath.mpf(1500)) and not _shows("1,500.0", mpmath.mpf(1501))
    assert _shows("1_500.0", mpmath.mpf(1500)) and _shows("1.5E+03", mpmath.mpf(1500))
    assert not _shows("1.5E+03", mpmath.mpf(1.5)) and not _shows("1.5e+03", mpmath.mpf(1.5))
    assert _shows("12.50%", mpmath.mpf("0.125")) and not _shows("12.50%", mpmath.mpf("0.1251"))
    assert not _shows("12.50%", mpmath.mpf("12.5")) and _shows("13%", mpmath.mpf("0.126"))
    assert not _shows("13%", mpmath.mpf("0.136"))
    assert not _shows("inf", mpmath.mpf(10) ** 400) and not _shows("nan", mpmath.mpf(1))


def test_a_refused_operation_names_itself_with_its_operands():
    """The one-line refusal of an operation that has no real value, or no finite derivative,
    shows the operation as written (operator, or numpy's name) with its operands to 8 digits."""
    u = Value(-1.23456789123, "0.1", "se")
    with pytest.raises(ValueError, match=r"^-1\.2345679 \*\* 0\.5 is not a real number; a Value is real$"):
        u ** Value(0.5)
    with pytest.raises(ValueError, match=r"^numpy\.sqrt\(-1\.2345679\) is not a real number"):
        np.sqrt(u)
    with pytest.raises(ValueError, match=r"^numpy\.arctan2\(0\.0, 0\.0\) has no finite derivative"):
        np.arctan2(Value(0.0, "0.1", "se"), Value(0.0, "0.1", "se"))
    with pytest.raises(ValueError, match=r"^numpy\.log\(0\.0\) has no finite derivative"):
        np.log(Value(0.0, "0.1", "se"))
    floats, ints = np.array([1.0, 4.0]), np.array([1, 4])
    for arr in (floats, ints, floats.astype(object)):
        out = np.sqrt(arr * Value(1, "0.1", "se"))
        assert out.dtype == object and [str(v) for v in out] == ["1.00 ± 0.050", "2.00 ± 0.10"]


def test_a_raw_result_dict_becomes_values_at_its_precision_with_nothing_lost():
    """``values`` keeps text as it is and goes on past it, gives flags and counts exact Values,
    and every Value (an estimate with its error, a dangling error, an exact number) the
    requested precision."""
    out = {"status": "converged", "n": 7, "ok": True, "a": mpmath.mpf("1.25"), "a_se": mpmath.mpf("0.01"),
           "b_se": 0.5}
    with mpmath.workdps(60):
        out["c"] = mpmath.mpf(1) / 3
    r = V.values(out, 40)
    assert list(r) == ["status", "n", "ok", "a", "b_se", "c"] and r["status"] == "converged"
    for key in ("n", "ok", "a", "b_se", "c"):
        assert isinstance(r[key], Value) and r[key].dps == 40, key
    assert (r["n"].value, r["n"].kind, r["n"].exact) == (7, "dps", True) and r["ok"].value is True
    assert r["a"].kind == "se" and r["b_se"].kind == "dps" and r["c"].kind == "dps"
    assert V.flatten(r) == {"status": "converged", "n": "7", "ok": "true", "a": "1.250", "a_se": "0.010",
                            "b_se": "0.50", "c": "0." + "3" * 40}
    assert V.flatten(V.values(out, 20))["c"] == "0." + "3" * 20


def test_the_rest_of_the_number_type_at_its_edges():
    """Powers at a zero exponent or base, rounding an integer Value, numpy's methods on object
    arrays, a ball's digits, ``numpy.asarray``, pickling a printed precision, and key names
    that are only a suffix."""
    import pickle

    a = Value(2, "0.1", "se")
    assert float(a**0) == 1 and float((a**0).error) == 0                      # d(a^0)/da = 0
    assert float((Value(0, "0.1", "se") ** 0).error) == 0
    z = Value(0) ** Value(2, "0.1", "se")                                       # d(0^b)/db = 0
    assert float(z) == 0 and float(z.error) == 0
    with pytest.raises(ValueError, match="^-2.0 \\*\\* 2.0: a negative base with an uncertain exponent: "
                                         "the power is not real near it$"):
        Value(-2.0) ** Value(2, "0.1", "se")
    assert round(Value(1234), -2) == 1200 and str(round(Value(1234), -2)) == "1200"
    arr = np.array([Value(4, "0.1", "se"), Value(9)], dtype=object)
    assert [str(x) for x in np.sqrt(arr)] == ["2.00 ± 0.025", "3." + "0" * 29]
    with pytest.raises(TypeError, match="numpy.arctan2 of Value, str: a Value combines with numbers and Values"):
        np.arctan2(arr, np.array(["x", "y"], dtype=object))
    assert Value.sqrt.__doc__.startswith("numpy.sqrt of this Value")

    class Ball:  # numerics.core.arb.Ball's interface: decimal strings
        mid = "0." + "1234567890" * 6
        rad = "1e-58"
    b = V.from_ball(Ball, 50)
    assert b.dps == 50 and b.kind == "radius" and str(b).startswith("0." + ("1234567890" * 5)[:50])
    assert np.asarray(Value(1.5)).dtype == np.float64 and float(np.asarray(Value(1.5))) == 1.5
    assert np.asarray(Value(1.5), dtype=np.float32).dtype == np.float32
    dangling = V.values({"slope_se": 0.0123456}, 30)["slope_se"]
    assert str(pickle.loads(pickle.dumps(dangling))) == str(dangling) == "0.012"
    assert V.flatten(V.values({"_se": 0.5}, 30)) == {"_se": "0.5" + "0" * 29}  # a name, not an error
    assert V.flatten({"note": "text", "ok": Value(True), "r": b}) == {
        "note": "text", "ok": "true", "r": V.text(b.value, b.digits), "r_radius": V.error_text(b.error)}


def test_a_precision_bound_is_not_an_error_source_and_numpy_is_refused_in_words():
    """An error of kind ``dps`` bounds the arithmetic, it is not an independent estimate: no
    source; numpy's methods other than a plain call, and ``out=``, are refused naming them; a
    numpy call on a Value and a non-number says what a Value combines with; a Value cannot lose
    an attribute, and it shows in a notebook as its printed digits."""
    assert Value(1, "1e-20", "dps").sources == {}
    assert list(Value(1, "1e-20", "se").sources.values()) == [Value(1, "1e-20", "se").error]
    with pytest.raises(TypeError, match="^numpy.sqrt with out= is not supported on a Value; "
                                        "call numpy.sqrt[(][.][.][.][)] on Values or object arrays"):
        np.sqrt(Value(4), out=np.empty(()))
    with pytest.raises(TypeError, match="^numpy.add.accumulate is not supported on a Value; call numpy.add"):
        np.add.accumulate(Value(4))
    with pytest.raises(TypeError, match="^numpy.arctan2 of Value, str: a Value combines with numbers and Values$"):
        np.arctan2(Value(1), "x")
    with pytest.raises(AttributeError, match="^a Value is immutable [(]cannot delete value[)]$"):
        del Value(1).value
    assert Value(1.5, "0.1", "se")._repr_latex_() == "$1.50 \\pm 0.10$"
    assert Value(2)._repr_latex_() == "$2$" and Value("0.25", None, "dps", 5)._repr_latex_() == "$0.25000$"


# --- the printer against an exact reference --------------------------------------------------------
def _printed(x, digits):
    """``x`` (an mpf) rounded once to ``digits`` significant digits from its exact value, ties away
    from zero, computed here with Fractions, laid out by ``mpmath.nstr`` from the rounded decimal."""
    from fractions import Fraction

    sign, man, exp, _ = x._mpf_
    a = Fraction(int(man)) * Fraction(2) ** int(exp)
    with mpmath.workdps(30):
        e = int(mpmath.floor(mpmath.log10(abs(x))))  # within one of floor(log10(a)), made exact:
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    q = math.floor(a / Fraction(10) ** (e - digits + 1) + Fraction(1, 2))
    if q == 10**digits:
        q, e = q // 10, e + 1
    with mpmath.workdps(digits + 20):
        out = mpmath.nstr(mpmath.mpf(f"{q}e{e - digits + 1}"), digits, strip_zeros=False).rstrip(".")
    return ("-" if sign else "") + out


@settings(max_examples=300, deadline=None)
@given(man=st.integers(1, 2**120), exp=st.one_of(st.integers(-140, 60), st.integers(-20_300, 20_300)),
       digits=st.integers(1, 40), negative=st.booleans())
def test_the_printer_rounds_every_binary_value_once(man, exp, digits, negative):
    """Every digit against the exact value (binary exponents beyond 10^±6000 too, where the
    printer rounds from 25 guard digits), and every exact tie (an odd multiple of 2^-k with one
    digit more than is printed: away from zero)."""
    x = mpmath.mpf((-1) ** negative * man) * mpmath.mpf(2) ** exp
    assert V.text(x, digits) == _printed(x, digits)
    odd = man | 1
    tie = mpmath.mpf(odd) / 2**12  # all of its decimal digits are exact; the last is 5
    n = len(str(odd * 5**12).rstrip("0"))
    assert V.text(tie, n - 1) == _printed(tie, n - 1) and V.text(-tie, n - 1) == "-" + V.text(tie, n - 1)


def test_the_printer_at_the_ends_of_its_exact_range():
    """Just inside and just beyond the binary exponent where the printer stops rounding from the
    exact value (2^±20000), and a nine rounded up into a new digit there."""
    for e in (19_990, 20_000, 20_001, 20_010, -20_000, -20_001, -20_010, -20_030):
        for man in (1, 3, 2**53 - 1, 10**15 + 1):
            x = mpmath.mpf(man) * mpmath.mpf(2) ** e
            for digits in (1, 2, 7, 16, 30):
                assert V.text(x, digits) == _printed(x, digits), (man, e, digits)
    with mpmath.workdps(60):
        nines = mpmath.mpf("9.99999999999999999999999e7000")
        assert V.text(nines, 5) == "1.0000e+7001" == _printed(nines, 5)
        assert V.text(-nines, 5) == "-1.0000e+7001"
        small = mpmath.mpf("9.99996e-7000")
        assert V.text(small, 5) == "1.0000e-6999" == _printed(small, 5)
        assert V.text(small, 6) == "9.99996e-7000"


def test_an_infinite_derivative_is_refused_not_propagated():
    """An uncertain operand next to an infinite one (or an infinite uncertain operand) has an
    infinite derivative: the operation refuses, naming itself, rather than carry an infinite
    error; the same operation with exact operands is the infinity it is."""
    se = Value(2, "0.1", "se")
    for make, shown in ((lambda: Value(mpmath.inf, "0.1", "se") * se, r"\+inf \* 2\.0"),
                        (lambda: se * Value(mpmath.inf), r"2\.0 \* \+inf"),
                        (lambda: se * mpmath.inf, r"2\.0 \* \+inf"),
                        (lambda: np.exp(Value(mpmath.inf, "0.1", "se")), r"numpy\.exp\(\+inf\)")):
        with pytest.raises(ValueError, match=f"^{shown} has no finite derivative there: its error has no "
                                             "first-order propagation$"):
            make()
    assert Value(2) * Value(mpmath.inf) == math.inf and str(np.exp(Value(mpmath.inf))) == "+inf"


def test_what_an_error_cannot_say_leaves_the_working_digits():
    """The printed digits follow a standard error or a radius only when it says something: none
    for a ``dps`` Value or a flag (even with an error given), and the working precision when the
    error is zero, infinite or nan, or the value is zero."""
    for v in (Value(1.5, "0.01", "dps"), Value(True, "0.5", "se"), Value(1.5, mpmath.inf, "se"),
              Value(1.5, mpmath.nan, "radius"), Value(1.5, 0, "se"), Value(mpmath.mpf(0), "0.1", "se")):
        assert v.digits == 30, v
    assert str(Value(1.5, mpmath.inf, "se")) == "1." + "5" + "0" * 28 + " ± +inf"
    assert Value(1.5, "0.01", "se").digits == 4 and Value(1.5, "0.01", "radius").digits == 3


def test_binary_numbers_are_taken_exactly_at_any_precision():
    """A float, an integer or a rational with a power-of-two denominator is its exact value
    even in a Value of 3 digits; other rationals are rounded to the Value's digits."""
    from fractions import Fraction

    assert Value(0.1, dps=3).value == mpmath.mpf(0.1) and float(Value(0.1, dps=3)) == 0.1
    assert Value(Fraction(3, 1024), dps=2).value == mpmath.mpf(3) / 1024
    assert Value(2**80 + 1, "1", "se", dps=3).value == 2**80 + 1
    third = Value(Fraction(1, 3), dps=40)
    with mpmath.workdps(80):
        assert abs(third.value - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -40 and str(third) == "0." + "3" * 40


def test_a_format_spec_at_a_tie_shows_the_value():
    """A float formatted at exactly half a unit from the value (Python rounds half to even) shows
    it within half a unit: allowed, in fixed, exponent and percent form."""
    eighth = Value(mpmath.mpf("0.125"))
    assert f"{eighth:.2f}" == "0.12" and f"{eighth:.0%}" == "12%" and f"{eighth:.1e}" == "1.2e-01"
    assert f"{-eighth:.2f}" == "-0.12" and f"{-eighth:.0%}" == "-12%"
    with pytest.raises(ValueError, match=r"^format spec '\.2f' shows digits that float\(v\) does not hold"):
        f"{Value('0.125000000000000000000000001', dps=30):.2f}"  # 0.13 is nearer


def test_a_value_and_a_numpy_array_combine_elementwise_from_either_side():
    """``v * array`` (the Value's operator) and ``array * v`` (numpy's ufunc) give the same object
    array of Values, shaped as the array; an element that is no number is refused by name, on
    either side and through either route."""
    v = Value(2, "0.1", "se")
    for r in (v * np.array([1.0, 3.0]), np.array([1.0, 3.0]) * v, np.multiply(v, np.array([1.0, 3.0]))):
        assert r.dtype == object and [str(x) for x in r] == ["2.00 ± 0.10", "6.00 ± 0.30"]
    d = v - np.array([[1, 3]])
    assert d.shape == (1, 2) and [str(x) for x in d.ravel()] == ["1.00 ± 0.10", "-1.00 ± 0.10"]
    words = np.array(["x"], dtype=object)
    for make, types in ((lambda: v + words, "Value, str"), (lambda: np.add(v, words), "Value, str"),
                        (lambda: words + v, "str, Value")):
        with pytest.raises(TypeError, match=f"^numpy.add of {types}: a Value combines with numbers and Values$"):
            make()


def test_what_a_value_is_made_of_is_kept_at_its_precision():
    """A rational given to a Value is rounded (to nearest) at the Value's precision, its error
    too; an integer or a binary float is taken exactly at any precision; a number combined with
    a Value at the largest precision keeps the guard digits; a new error source carries its kind."""
    from fractions import Fraction

    from numerics.core.precision import MAX_DPS

    with mpmath.workdps(20):
        two_thirds, one_third = mpmath.mpf(2) / 3, mpmath.mpf(1) / 3
    v = Value(Fraction(2, 3), Fraction(1, 3), "se", dps=20)
    assert v.mpf == two_thirds and v.error == one_third and V._mpf(Fraction(2, 3), 20) == two_thirds
    assert int(V._mpf(10**40 + 1, 15)) == 10**40 + 1 and int(Value(10**40 + 1, dps=15)) == 10**40 + 1
    top = Value(1, dps=MAX_DPS) + Fraction(1, 3)
    with mpmath.workdps(MAX_DPS + V.GUARD_DPS):
        assert top.mpf == 1 + mpmath.mpf(1) / 3
    assert [kind for kind, _ in Value(1, 0.1, "rqmc_se").sources] == ["rqmc_se"]
    with pytest.raises(ValueError) as err:
        Value(1, 0.1, "sd")
    assert str(err.value) == "kind must be one of dps, radius, se, rqmc_se, qmc_se, mc_se, got 'sd'"
    # mpmath's layout: exponent form from 10^-5 down at 16 digits, fixed point above
    assert V.text(mpmath.mpf("1.25e-5"), 16) == "1.250000000000000e-5"
    assert V.text(mpmath.mpf("1.25e-5"), 18) == "0.0000125000000000000006"


def test_numpy_on_values_refuses_what_it_does_not_support_by_name():
    from numerics.core.value_ops import UFUNCS

    with pytest.raises(TypeError) as err:
        np.fmod(Value(1), 2)
    assert str(err.value) == f"numpy.fmod is not supported on a Value; supported: {', '.join(sorted(UFUNCS))}"
    with pytest.raises(TypeError) as err:
        np.sqrt(Value(2), dtype=object, casting="unsafe")
    assert str(err.value) == ("numpy.sqrt with dtype, casting= is not supported on a Value; call numpy.sqrt(...) "
                              "on Values or object arrays of Values")
    mixed = np.array([Value(1), 2.0], dtype=object) + 3.0  # an element that is a plain number stays one
    assert mixed[0] == 4 and isinstance(mixed[0], Value) and mixed[1] == 5.0 and type(mixed[1]) is float
