"""Parameter validation: clear one-line errors naming the parameter and its range."""
import math

import pytest
from hypothesis import given, strategies as st

from numerics.core.params import Dep, Param, ParameterError, ParamSpace, parse_assignments
from numerics.experiments.paper_a.sparse_token import ALPHA0, L, PI, R, THETA

SPACE = ParamSpace((L.with_default(10), R.with_default(3), PI.with_default(0.2), THETA.with_default(6.0),
                    ALPHA0.with_default(1.0)))


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


@given(st.integers(-5, 50), st.integers(-5, 50))  # out-of-domain values too: not a draw()
def test_r_at_most_l(r, l):
    if l >= 2 and 1 <= r <= l:
        assert SPACE.validate({"L": l, "R": r})["R"] == r
    else:
        with pytest.raises(ParameterError):
            SPACE.validate({"L": l, "R": r})


def test_range_text():
    assert Param("x", float, 0, 1, True, False).range_text() == "a real number in (0, 1]"


# --- dependent endpoints --------------------------------------------------------------------------
def test_dependent_endpoint_error_names_the_actual_range():
    with pytest.raises(ParameterError) as info:
        SPACE.validate({"L": "6", "R": "8"})
    assert str(info.value) == "parameter R: must be an integer in [1, L] = [1, 6], got '8'"
    assert SPACE["R"].range_text() == "an integer in [1, L]"
    assert SPACE.describe()[1]["range"] == "an integer in [1, L]"


def test_a_computed_dependent_endpoint():
    space = ParamSpace((Param("n", int, 2, 50, default=5),
                        Param("k", int, 0, Dep(("n",), lambda v: v["n"] - 1, "n-1"), default=1),
                        Param("t", float, Dep(("k",), lambda v: -v["k"], "-k"), "k", default=0.0)))
    assert space.validate({"n": 3, "k": 2, "t": -2}) == {"n": 3, "k": 2, "t": -2.0}
    with pytest.raises(ParameterError, match=r"parameter k: must be an integer in \[0, n-1\] = \[0, 2\], got 3"):
        space.validate({"n": 3, "k": 3})
    with pytest.raises(ParameterError, match=r"parameter t: must be a real number in \[-k, k\] = \[-1, 1\]"):
        space.validate({"t": 1.5})
    with pytest.raises(ValueError, match="declared before"):
        ParamSpace((Param("k", int, 0, "n"), Param("n", int, 1)))


def test_fixed_parameters_are_named_with_their_reason():
    space = ParamSpace((L.with_default(4),), fixed=(("d", "set by --quick/--full"),))
    assert space.free_text() == "free: L; fixed: d (set by --quick/--full)"
    with pytest.raises(ParameterError, match=r"not free here: d \(set by --quick/--full\)"):
        space.validate({"d": 10})


# --- draw(): points of the declared domain ---------------------------------------------------------
@given(SPACE.draw())
def test_draw_respects_the_declaration(point):
    assert SPACE.validate(point) == point
    assert isinstance(point["L"], int) and isinstance(point["R"], int) and 1 <= point["R"] <= point["L"]


def test_draw_prefers_the_defaults_and_shrinks_to_them():
    from hypothesis import find

    assert find(SPACE.draw(), lambda p: True) == SPACE.defaults()
    small = find(SPACE.draw(), lambda p: p["R"] >= 5)  # shrinks the others to their defaults
    assert small["R"] == 5 and {k: v for k, v in small.items() if k not in ("R", "L")} == {
        k: v for k, v in SPACE.defaults().items() if k not in ("R", "L")}
    assert find(SPACE.draw(prefer_simple=False), lambda p: True)["L"] == 2  # the domain's simplest


def test_draw_pins_fixed_values():
    from hypothesis import find

    assert find(SPACE.draw(fixed={"L": 3}), lambda p: p["R"] == 3)["L"] == 3


#: open endpoints the strategy reaches (no ``typical`` range keeps the draws away from them)
OPEN = ParamSpace((Param("u", float, 0.0, 1.0, True, True, doc="(0, 1)", default=0.5),
                   Param("v", float, -1.0, 0.0, True, True, doc="(-1, 0)"),
                   Param("w", float, 0.0, None, lo_open=True, doc="(0, inf)", typical=(0.0, 2.0)),
                   Param("n", int, 0, 4, True, True, doc="{1, 2, 3}"),
                   Param("m", int, "n", 6, lo_open=True, doc="(n, 6]"),
                   Param("y", float, 0.0, "u", lo_open=True, hi_open=True, doc="(0, u)")))


@pytest.mark.parametrize("prefer_simple", [True, False])
def test_an_open_endpoint_is_never_drawn(prefer_simple):
    """The open endpoints, fixed or dependent, of floats and integers, with the simple values
    (0 is one of them) first or not: hypothesis draws a range's endpoints often, never these."""
    from hypothesis import settings

    seen = []

    @settings(max_examples=300, deadline=None, database=None)
    @given(OPEN.draw(prefer_simple=prefer_simple))
    def check(p):
        seen.append(p)
        assert 0 < p["u"] < 1 and -1 < p["v"] < 0 and 0 < p["w"] and 0 < p["n"] < 4, p
        assert p["n"] < p["m"] <= 6 and 0 < p["y"] < p["u"], p
        assert OPEN.validate(p) == p

    check()
    assert len(seen) >= 100 and {p["n"] for p in seen} == {1, 2, 3}


def _point_spaces():
    from numerics import registry

    spaces = {}
    for c in registry.claims().values():
        if c.point_space is not None:
            spaces.setdefault(id(c.point_space), (c.id, c.point_space))
    return sorted(spaces.values(), key=lambda x: x[0])


@pytest.mark.parametrize("claim_id, space", _point_spaces(), ids=[c for c, _ in _point_spaces()])
def test_every_built_in_point_space_draws_only_valid_points(claim_id, space):
    """Every point space of a built-in claim: each drawn point is one its declaration accepts
    (open and dependent endpoints, integer kinds, constraints), as drawn."""
    from hypothesis import HealthCheck, settings

    @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(space.draw(prefer_simple=False))
    def check(p):
        assert space.validate(p) == p, (claim_id, p)
        for q in space.params:
            lo, hi = q.bounds(p)
            assert not (q.lo_open and p[q.name] == lo) and not (q.hi_open and p[q.name] == hi), (claim_id, q.name, p)

    check()



def test_range_texts_print_every_kind_of_endpoint():
    """The one-line range of a refusal and of `attncheck list`: unbounded ends as -inf and inf
    with open brackets, an open end, a dependent end with its value at a point; the
    description's keys and the space's free/fixed line."""
    free = Param("x", float)
    assert free.range_text() == "a real number in (-inf, inf)"
    assert Param("y", float, 0, None).range_text() == "a real number in [0, inf)"
    assert Param("z", float, None, 1, hi_open=True).range_text() == "a real number in (-inf, 1)"
    assert Param("w", float, 0, 1).range_text() == "a real number in [0, 1]"
    below = Param("k", int, None, "n", doc="an index", default=2)
    assert below.range_text() == "an integer in (-inf, n]"
    assert below.range_text({"n": 5}) == "an integer in (-inf, n] = (-inf, 5]"
    above = Param("m", int, "n", None)
    assert above.range_text({"n": 5}) == "an integer in [n, inf) = [5, inf)"
    space = ParamSpace((Param("n", int, 1, 10, default=5), below), fixed=(("sigma", "the paper's 0.5"),))
    assert space.describe() == [
        {"name": "n", "range": "an integer in [1, 10]", "default": 5, "doc": ""},
        {"name": "k", "range": "an integer in (-inf, n]", "default": 2, "doc": "an index"}]
    assert space.free_text() == "free: n, k; fixed: sigma (the paper's 0.5)"
    two = ParamSpace((), fixed=(("a", "why a"), ("b", "why b")))
    assert two.free_text() == "free: none; fixed: a (why a); b (why b)"


def test_assignments_and_declaration_errors_word_by_word():
    """``k=v`` splits at the first ``=`` only (a value may hold one); each refusal is one line
    naming what was given; a space that declares a dependent parameter before what it depends
    on names both; ``with_default`` sets the default."""
    assert parse_assignments(["grid= a=b ", "x=1"]) == {"grid": " a=b ", "x": "1"}
    with pytest.raises(ParameterError, match=r"^--param expects k=v, got 'pi'$"):
        parse_assignments(["pi"])
    with pytest.raises(ParameterError, match=r"^--param expects k=v, got ' =1'$"):
        parse_assignments([" =1"])
    with pytest.raises(ParameterError, match=r"^parameter pi given twice \('0.3' and '0.4'\); give it once$"):
        parse_assignments(["pi=0.3", "pi=0.4"])
    with pytest.raises(ValueError, match=r"^parameter k: its endpoint depends on a, b, which must be declared "
                                         r"before it in the space$"):
        ParamSpace((Param("k", float, "a", "b"), Param("a", float), Param("b", float)))
    assert Param("x", float).with_default(0.25).default == 0.25
