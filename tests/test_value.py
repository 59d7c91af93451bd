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
    assert f"{A}" == "86.82 ± 0.65" and f"{A:.1f}" == "86.8" and round(A, 1) == 86.8 and math.sqrt(A) > 9


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
