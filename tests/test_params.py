"""Parameter validation: clear one-line errors naming the parameter and its range."""
import math

import pytest
from hypothesis import given, strategies as st

from numerics.core.params import (
    ALPHA0, L, PI, R, THETA, Param, ParameterError, ParamSpace, parse_assignments, r_le_l,
)

SPACE = ParamSpace((L.with_default(10), R.with_default(3), PI.with_default(0.2), THETA.with_default(6.0),
                    ALPHA0.with_default(1.0)), (r_le_l,))


@pytest.mark.parametrize(
    "given_, name",
    [({"pi": "1.5"}, "pi"), ({"pi": "0"}, "pi"), ({"pi": "1"}, "pi"), ({"R": "11"}, "R"),
     ({"R": "0"}, "R"), ({"theta": "-1"}, "theta"), ({"alpha0": "0"}, "alpha0"),
     ({"pi": "nan"}, "pi"), ({"theta": "inf"}, "theta"), ({"L": "abc"}, "L"), ({"L": "2.5"}, "L"),
     ({"pi": "x"}, "pi")],
)
def test_invalid_values_name_the_parameter(given_, name):
    with pytest.raises(ParameterError) as info:
        SPACE.validate(given_)
    msg = str(info.value)
    assert name in msg and "\n" not in msg
    assert ("in [" in msg) or ("in (" in msg)


def test_wrong_types_and_unknown_names():
    with pytest.raises(ParameterError, match="pi"):
        SPACE.validate({"pi": [0.3]})
    with pytest.raises(ParameterError, match="pi"):
        SPACE.validate({"pi": True})
    with pytest.raises(ParameterError, match="unknown parameter"):
        SPACE.validate({"gamma": 1})
    with pytest.raises(ParameterError, match="k=v"):
        parse_assignments(["pi"])


def test_defaults_and_conversion():
    v = SPACE.validate({"L": "12", "R": "4.0"})
    assert v == {"L": 12, "R": 4, "pi": 0.2, "theta": 6.0, "alpha0": 1.0}
    assert isinstance(v["L"], int) and isinstance(v["theta"], float)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_open_unit_interval(x):
    ok = math.isfinite(x) and 0 < x < 1
    if ok:
        assert PI.parse(x) == x
    else:
        with pytest.raises(ParameterError, match="pi"):
            PI.parse(x)


@given(st.integers(-5, 50), st.integers(-5, 50))
def test_r_at_most_l(r, l):
    if l >= 2 and 1 <= r <= l:
        assert SPACE.validate({"L": l, "R": r})["R"] == r
    else:
        with pytest.raises(ParameterError):
            SPACE.validate({"L": l, "R": r})


def test_range_text():
    assert Param("x", float, 0, 1, True, False).range_text() == "a real number in (0, 1]"
