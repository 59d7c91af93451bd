"""numerics.core.special: the special functions compiled expressions call by name."""
import math

import mpmath
import numpy as np
import pytest

from numerics.core.special import MPMATH, NUMPY, lambertw_real, namespace


def test_numpy_softplus_and_sigmoid_do_not_overflow():
    sp, sig = NUMPY["softplus"], NUMPY["sigmoid"]
    assert sp(0.0) == pytest.approx(math.log(2.0))
    assert sp(1000.0) == 1000.0 and sp(-1000.0) == 0.0
    assert np.allclose(sp(np.array([-2.0, 3.0])), np.log1p(np.exp([-2.0, 3.0])))
    assert sig(0.0) == 0.5 and sig(-1000.0) == 0.0 and sig(1000.0) == 1.0


@pytest.mark.parametrize("x", ["-3.25", "0", "0.5", "3", "40"])
def test_mpmath_softplus_and_sigmoid_at_fifty_digits(x):
    with mpmath.workdps(60):
        x = mpmath.mpf(x)
        want_sp, want_sig = mpmath.log(1 + mpmath.exp(x)), 1 / (1 + mpmath.exp(-x))
    with mpmath.workdps(50):
        assert abs(MPMATH["softplus"](x) - want_sp) <= mpmath.mpf(10) ** -48 * max(1, abs(want_sp))
        assert abs(MPMATH["sigmoid"](x) - want_sig) <= mpmath.mpf(10) ** -48
        assert MPMATH["softplus"](str(x)) == MPMATH["softplus"](x)  # strings and floats as mpf


def test_mpmath_softplus_and_sigmoid_far_out():
    with mpmath.workdps(30):
        big = mpmath.mpf(10) ** 6
        assert MPMATH["softplus"](big) == big  # log1p(exp(-1e6)) is below the last digit
        assert abs(MPMATH["softplus"](-big) / mpmath.exp(-big) - 1) < mpmath.mpf(10) ** -25
        assert abs(MPMATH["sigmoid"](-big) / mpmath.exp(-big) - 1) < mpmath.mpf(10) ** -25
        assert MPMATH["sigmoid"](big) == 1 / (1 + mpmath.exp(-big))


def test_mpmath_erfcx_is_the_scaled_complementary_error_function():
    with mpmath.workdps(40):
        for x in ("-1.5", "0", "2", "12"):
            x = mpmath.mpf(x)
            assert abs(MPMATH["erfcx"](x) - mpmath.exp(x * x) * mpmath.erfc(x)) <= mpmath.mpf(10) ** -38
        assert MPMATH["erfc"] is mpmath.erfc


def test_lambertw_real_branches_and_domain():
    z = np.array([-1.0, -0.3, -0.1, 0.0, 0.5, math.e, 50.0])
    w0 = lambertw_real(z)
    assert math.isnan(w0[0])  # below -1/e: no real branch
    assert w0[3] == 0.0 and w0[5] == pytest.approx(1.0)
    for zi, wi in zip(z[1:], w0[1:]):
        assert wi * math.exp(wi) == pytest.approx(zi, rel=1e-13, abs=1e-15) and wi >= -1
    wm = lambertw_real(z, -1)
    assert np.isnan(wm[[0, 3, 4, 5, 6]]).all()  # the lower branch lives on [-1/e, 0)
    for zi, wi in zip(z[1:3], wm[1:3]):
        assert wi * math.exp(wi) == pytest.approx(zi, rel=1e-13) and wi < -1
    assert lambertw_real(0.5).shape == () and lambertw_real(0.5) == pytest.approx(0.35173371124919584)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(0) on the way to W(0) = 0: no warning
        assert lambertw_real(np.array([0.0, 1.0])).tolist() == [0.0, pytest.approx(0.5671432904097838)]


def test_namespaces():
    assert namespace("numpy") is NUMPY and namespace("mpmath") is MPMATH
    assert set(NUMPY) == {"softplus", "sigmoid", "erfc", "erfcx", "LambertW", "binomial"}
    assert set(MPMATH) == {"softplus", "sigmoid", "erfc", "erfcx"}
    assert NUMPY["binomial"](5, 2) == 10 and NUMPY["erfcx"](0.0) == 1.0
    assert NUMPY["LambertW"] is lambertw_real
    with pytest.raises(KeyError):
        namespace("torch")
