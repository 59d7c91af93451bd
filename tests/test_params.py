"""Parameter validation: clear one-line errors naming the parameter and its range."""
import math

import pytest
from hypothesis import given, strategies as st

from numerics.core.params import Dep, Param, ParameterError, ParamSpace, parse_assignments
from numerics.papers.paper_a.vocabulary import ALPHA0, L, PI, R, THETA

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


# --- sample(): seeded points without hypothesis ------------------------------------------------------
def test_sample_draws_near_the_default_and_anywhere_in_the_domain():
    """Each side of a domain: an unbounded one a few times the default around it, ``typical``
    where declared (on a bounded side too), a wide positive domain log-uniform (both halves of
    the draws: near the default and anywhere), integers with their open ends left out."""
    space = ParamSpace((
        Param("z", float, None, 5),                            # near: [0 - 4, 4], anywhere: [-4, 5]
        Param("a", float, None, None, default=10.0),          # [10 - 40, max(40, 14)]
        Param("b", float, 2, None),                            # [2, max(8, 6)], uniform
        Param("c", float, 0, 1e6, lo_open=True, default=1.0),  # near: (0, 4], anywhere: (0, 1e6]
        Param("d", float, 0, None, typical=(1, 2)),
        Param("e", float, None, 5, typical=(-1, 10)),
        Param("n", int, 0, 4, True, True),
        Param("k", int, 1, None, default=2),                   # [1, 8]
        Param("m", int, "n", 6, lo_open=True),
    ))
    pts = space.sample(400, seed=5)
    assert len(pts) == 400 and pts == space.sample(400, seed=5) and pts != space.sample(400, seed=6)
    col = {name: [p[name] for p in pts] for name in space.names}
    a, b, c = col["a"], col["b"], col["c"]
    assert -30 <= min(a) < -25 and 35 < max(a) <= 40
    assert -4 <= min(col["z"]) < -3.5 and 4.5 < max(col["z"]) <= 5
    assert 2 <= min(b) < 2.5 and 7.5 < max(b) <= 8
    near, anywhere = [x for x in c if x <= 4], [x for x in c if x > 4]
    assert 4e-4 <= min(near) and 100 <= min(anywhere) and max(anywhere) <= 1e6  # from 1e-4 of the top
    assert 120 < len(near) < 280 and 120 < len(anywhere) < 280  # half the draws each
    # log-uniform: about half of each below its geometric middle (uniform: 1 % of them)
    assert 0.35 < sum(x < 0.04 for x in near) / len(near) < 0.65
    assert 0.35 < sum(x < 1e4 for x in anywhere) / len(anywhere) < 0.65
    assert 1 <= min(col["d"]) and max(col["d"]) <= 2 and min(col["d"]) < 1.1 and max(col["d"]) > 1.9
    assert -1 <= min(col["e"]) < -0.9 and 4.9 < max(col["e"]) <= 5
    assert set(col["n"]) == {1, 2, 3} and set(col["k"]) == set(range(1, 9))
    assert all(p["n"] < p["m"] <= 6 for p in pts) and set(col["m"]) == {2, 3, 4, 5, 6}
    assert all(type(p[q]) is int for p in pts for q in "nkm") and all(type(p[q]) is float for p in pts for q in "zabcde")


def test_sample_pins_fixed_values_and_filters_by_the_constraints():
    space = ParamSpace((Param("n", int, 1, 5), Param("x", float, 0, "n")),
                       (lambda v: "n = 2 is refused" if v["n"] == 2 else None,))
    pts = space.sample(50, seed=1)
    assert len(pts) == 50 and 2 not in {p["n"] for p in pts} and {1, 3, 4, 5} <= {p["n"] for p in pts}
    assert all(0 <= p["x"] <= p["n"] for p in pts)
    assert {p["n"] for p in space.sample(10, seed=1, fixed={"n": 4})} == {4}
    assert space.sample(10, seed=1, fixed={"n": 2}) == []  # every draw refused: none, after tries * n
    assert space.sample(0) == []
    # one in five accepted: the tries run out first with few of them, not with many
    rare = ParamSpace((Param("k", int, 1, 5),), (lambda v: None if v["k"] == 1 else "rare",))
    assert 0 < len(rare.sample(20, seed=2, tries=1)) < 20 and len(rare.sample(20, seed=2, tries=50)) == 20
    # every draw refused: exactly tries * n of them (tries = 50 by default; one point: tries draws)
    drawn = []
    never = ParamSpace((Param("k", int, 1, 5),), (lambda v: drawn.append(v) or "refused",))
    assert never.sample(1) == [] and len(drawn) == 50
    assert never.sample(1, tries=3) == [] and len(drawn) == 53
    assert never.sample(2, tries=3) == [] and len(drawn) == 59
    assert space.sample(7) == space.sample(7, seed=0) != space.sample(7, seed=1)  # seed 0 by default


# --- strategy(): one parameter's hypothesis strategy ------------------------------------------------
def _find(p, condition, values=None, prefer_simple=True):
    """The simplest value of ``p``'s strategy meeting ``condition`` (NoSuchExample: none)."""
    from hypothesis import find, settings

    return find(p.strategy(values or {}, prefer_simple), condition, settings=settings(database=None, max_examples=400))


def _never(p, condition, values=None, prefer_simple=True):
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    with pytest.raises((NoSuchExample, Unsatisfiable)):
        _find(p, condition, values, prefer_simple)


@pytest.mark.parametrize("prefer_simple", [True, False])
def test_strategy_reaches_each_closed_end_and_never_an_open_one(prefer_simple):
    """A closed endpoint is drawn exactly, an open one never; an unbounded side ends at a few
    times the default around it (or ``typical``), and ``typical`` narrows a bounded side too."""
    x = Param("x", float, None, None, default=10.0)  # [10 - 40, 40]
    assert _find(x, lambda v: v <= -30, prefer_simple=prefer_simple) == -30.0
    assert _find(x, lambda v: v >= 40, prefer_simple=prefer_simple) == 40.0
    _never(x, lambda v: v < -30 or v > 40, prefer_simple=prefer_simple)
    y = Param("y", float, 2, None)  # from the endpoint: [2, max(8, 2 + 4)]
    assert _find(y, lambda v: v <= 2, prefer_simple=prefer_simple) == 2.0
    assert _find(y, lambda v: v >= 8, prefer_simple=prefer_simple) == 8.0
    _never(y, lambda v: v > 8 or v < 2, prefer_simple=prefer_simple)
    z = Param("z", float, None, 5, hi_open=True)  # [0 - 4, 5)
    assert _find(z, lambda v: v <= -4, prefer_simple=prefer_simple) == -4.0
    assert 4.99 < _find(z, lambda v: v > 4.99, prefer_simple=prefer_simple) < 5
    _never(z, lambda v: v >= 5 or v < -4, prefer_simple=prefer_simple)
    t = Param("t", float, 0, 10, typical=(1, 3))
    assert _find(t, lambda v: v <= 1, prefer_simple=prefer_simple) == 1.0
    assert _find(t, lambda v: v >= 3, prefer_simple=prefer_simple) == 3.0
    _never(t, lambda v: v < 1 or v > 3, prefer_simple=prefer_simple)
    w = Param("w", float, None, None, typical=(-2, 7))
    assert _find(w, lambda v: v <= -2, prefer_simple=prefer_simple) == -2.0
    assert _find(w, lambda v: v >= 7, prefer_simple=prefer_simple) == 7.0
    _never(w, lambda v: v < -2 or v > 7, prefer_simple=prefer_simple)
    u = Param("u", float, 0, 1, lo_open=True, hi_open=True)
    _never(u, lambda v: v <= 0 or v >= 1, prefer_simple=prefer_simple)
    assert 0 < _find(u, lambda v: v < 1e-300, prefer_simple=prefer_simple) < 1e-300
    n = Param("n", int, 0, 4, True, True)
    assert {_find(n, lambda v, k=k: v == k, prefer_simple=prefer_simple) for k in (1, 2, 3)} == {1, 2, 3}
    _never(n, lambda v: v <= 0 or v >= 4, prefer_simple=prefer_simple)
    half = Param("h", int, 0.5, 3.5, True, True)  # open non-integer ends: 1 and 3 are inside
    assert _find(half, lambda v: v <= 1, prefer_simple=prefer_simple) == 1
    assert _find(half, lambda v: v >= 3, prefer_simple=prefer_simple) == 3
    k = Param("k", int, None, None, default=3)  # [3 - 12, 12]
    assert _find(k, lambda v: v <= -9, prefer_simple=prefer_simple) == -9
    assert _find(k, lambda v: v >= 12, prefer_simple=prefer_simple) == 12
    _never(k, lambda v: v < -9 or v > 12, prefer_simple=prefer_simple)


def test_strategy_of_an_empty_domain_draws_nothing():
    _never(Param("k", int, 0, 1, True, True), lambda v: True)
    _never(Param("k", int, "a", 3, lo_open=True), lambda v: True, {"a": 3})
    _never(Param("y", float, 0.0, "u", lo_open=True, hi_open=True), lambda v: True, {"u": 5e-324})
    assert _find(Param("y", float, 0.0, "u", hi_open=True), lambda v: True, {"u": 5e-324}) == 0.0
    assert _find(Param("k", int, "a", 3), lambda v: True, {"a": 3}) == 3


def test_strategy_prefers_the_default_then_the_halves_nearest_zero():
    """With ``prefer_simple`` hypothesis shrinks to the default, then to the halves inside the
    domain nearest 0 (up to eight of them), before any other value."""
    assert _find(Param("x", float, -10, 10, default=2.25), lambda v: True) == 2.25
    assert _find(Param("x", float, -10, 10), lambda v: True) == 0.0
    assert _find(Param("x", float, -10, 10), lambda v: v < 0) == -0.5
    assert _find(Param("x", float, -10, 10), lambda v: v > 1) == 1.5
    assert _find(Param("x", float, -10, 10), lambda v: v < -1.5) == -2.0
    assert _find(Param("x", float, 0, 10, lo_open=True), lambda v: True) == 0.5  # 0 is outside
    assert _find(Param("x", float, 0.3, 10), lambda v: True) == 0.5
    assert _find(Param("x", float, 0.3, 10), lambda v: v > 3) == 3.5
    assert _find(Param("x", float, 0.3, 10), lambda v: v > 4) != 4.5  # eight halves: 0.5 to 4
    assert _find(Param("x", float, -10, -0.3), lambda v: True) == -0.5
    assert _find(Param("x", float, -10, -0.3), lambda v: v < -3) == -3.5
    assert _find(Param("x", float, 1, 2, True, True), lambda v: True) == 1.5  # the only half inside
    assert _find(Param("x", float, -10, 10, default=20.0), lambda v: True) == 0.0  # outside: not preferred
    assert _find(Param("n", int, 1, 10, default=4), lambda v: True) == 4
    assert _find(Param("n", int, 1, 10, default=40), lambda v: True) != 40
    assert _find(Param("n", int, -10, -1, default=-10), lambda v: True) == -10  # a closed end is inside
    assert _find(Param("n", int, -10, -1, default=-1), lambda v: v < -1) != -1
    assert _find(Param("x", float, -10, 2, default=2.0), lambda v: True) == 2.0
    assert _find(Param("x", float, -10, 2, hi_open=True, default=2.0), lambda v: True) == 0.0
    assert _find(Param("x", float, 0.3, 0.5), lambda v: True) == 0.5
    assert _find(Param("x", float, -10, 10, default=2.25), lambda v: True, prefer_simple=False) != 2.25
    # the halves start at the domain's first half: 1 for lo = 0.7, -1 for hi = -0.7, lo itself when
    # it is a closed half; 0 first whenever it is inside, though a half above it is nearer an end
    assert _find(Param("x", float, 0.7, 10), lambda v: True) == 1.0
    assert _find(Param("x", float, -10, -0.7), lambda v: True) == -1.0
    assert _find(Param("x", float, 0.5, 10), lambda v: True) == 0.5
    assert _find(Param("x", float, -10, -0.5), lambda v: True) == -0.5
    assert _find(Param("x", float, -3, 0.5), lambda v: True) == 0.0
    assert _find(Param("n", int, 1, 5, default=5), lambda v: True) == 5  # the default at the closed top end
    assert _find(Param("y", float, 0.0, "u"), lambda v: True, {"u": 0.0}) == 0.0  # one point: [0, 0]
    # an unbounded top without a default or typical range: up to lo + 4
    assert _find(Param("x", float, 0, None), lambda v: v > 3.9, prefer_simple=False) <= 4
    _never(Param("x", float, 0, None), lambda v: v > 4, prefer_simple=False)
    # simple values first unless asked otherwise
    from hypothesis import find, settings

    assert find(Param("x", float, -10, 10, default=2.25).strategy({}), lambda v: True,
                settings=settings(database=None)) == 2.25


def test_sample_draws_a_dependent_endpoint_at_the_values_drawn_before_it():
    """No draw outside a dependent endpoint (so none is refused: every one of n * 1 tries is a
    point); the factor 100 between the ends of a positive domain is where log-uniform begins."""
    space = ParamSpace((Param("n", int, 1, 5), Param("x", float, 0, "n"), Param("k", int, "n", 9, lo_open=True)))
    pts = space.sample(60, seed=1, tries=1)
    assert len(pts) == 60 and all(0 <= p["x"] <= p["n"] < p["k"] <= 9 for p in pts)
    below_10 = {}
    for hi in (100.0, 100.5):  # half the draws near the end (1 to 5), half anywhere
        xs = [p["r"] for p in ParamSpace((Param("r", float, 1, hi),)).sample(600, seed=2)]
        below_10[hi] = sum(x < 10 for x in xs) / len(xs)
    assert 0.45 < below_10[100.0] < 0.62 and 0.68 < below_10[100.5] < 0.82  # uniform: 0.55; log-uniform: 0.75


def test_text_is_read_as_the_kind_of_the_parameter():
    """A real parameter reads any decimal text (as a float), an integer one integer text or a
    float that is an integer; the refusals name the parameter, its range and what was given."""
    x, n = Param("x", float, 0, 1), Param("n", int, 1, 100)
    assert x.parse(" 0.25 ") == 0.25 and x.parse("1e-3") == 0.001 and x.parse("1") == 1.0
    assert type(x.parse("1")) is float and type(n.parse("4.0")) is int and n.parse(" 1e1 ") == 10 == n.parse("10")
    with pytest.raises(ParameterError, match=r"^parameter x: must be a real number in \[0, 1\], got '1.5'$"):
        x.parse("1.5")
    with pytest.raises(ParameterError, match=r"^parameter n: expected an integer in \[1, 100\], got '2.5'$"):
        n.parse("2.5")
    with pytest.raises(ParameterError, match=r"^parameter x: expected a real number in \[0, 1\], got 'half'$"):
        x.parse("half")


def test_the_span_a_parameter_is_sampled_from():
    """``ParamSpace.sample`` draws each parameter from :func:`_span`: its domain, cut to a few
    times the default on an unbounded side (near the default: up to four times it, or four
    above the lower end), integers inside an open end."""
    from numerics.core.params import Param, _span

    free = Param("a", float, default=2.0)
    assert _span(free, {}) == (-6.0, 8.0) and _span(free, {}, near=True) == (-6.0, 8.0)
    big = Param("b", float, default=-10.0)
    assert _span(big, {}) == (-50.0, 40.0) and _span(big, {}, near=True) == (-50.0, 40.0)
    assert _span(Param("c", float, lo=0.0), {}) == (0.0, 4.0) == _span(Param("c", float, lo=0.0), {}, near=True)
    assert _span(Param("d", float, lo=1.0, default=3.0), {}) == (1.0, 12.0)
    assert _span(Param("d", float, lo=1.0, default=3.0), {}, near=True) == (1.0, 12.0)
    assert _span(Param("e", float, lo=-9.0, default=0.5), {}, near=True) == (-9.0, 2.0)
    assert _span(Param("e", float, lo=-9.0, default=0.5), {}) == (-9.0, 2.0)
    assert _span(Param("f", float, lo=-9.0, default=0.5, typical=(-1.0, 1.0)), {}) == (-1.0, 1.0)
    assert _span(Param("k", int, lo=0, hi=5, lo_open=True, hi_open=True), {}) == (1, 4)
    assert _span(Param("k", int, lo=0, hi=5), {}) == (0, 5)
    assert _span(Param("x", float, lo=0.0, hi=5.0, lo_open=True, hi_open=True), {}) == (0.0, 5.0)


def test_a_point_is_refused_word_by_word_and_drawn_inside_the_constraints():
    """``validate``'s refusals name every unknown and every missing parameter and the valid ones
    (the fixed parameters with their reasons, only when one of them was given); a point drawn by
    ``draw`` satisfies the constraints, whatever hypothesis draws."""
    from hypothesis import given, settings

    space = ParamSpace((Param("n", int, 1, 5), Param("x", float, 0, "n"), Param("y", float, 0, 1)),
                       (lambda v: "x above n - 1" if v["x"] > v["n"] - 1 else None,),
                       fixed=(("d", "set by the size"), ("k", "set by the design")))
    with pytest.raises(ParameterError) as err:
        space.validate({"q": 1, "p": 2, "n": 2})
    assert str(err.value) == "unknown parameter(s) p, q; valid: n, x, y"
    with pytest.raises(ParameterError) as err:
        space.validate({"k": 1, "d": 2})
    assert str(err.value) == ("unknown parameter(s) d, k; valid: n, x, y; not free here: d (set by the size); "
                              "k (set by the design)")
    with pytest.raises(ParameterError) as err:
        space.validate({"n": 3})
    assert str(err.value) == "missing parameter(s): x, y"
    defaulted = ParamSpace((Param("n", int, 1, 5, default=2), Param("x", float, 0, "n", default=0.5)))
    assert defaulted.validate({}) == {"n": 2, "x": 0.5} and defaulted.validate({"x": 1}) == {"n": 2, "x": 1.0}
    with pytest.raises(ParameterError) as err:
        defaulted.validate({"x": 1}, fill_defaults=False)
    assert str(err.value) == "missing parameter(s): n"
    with pytest.raises(ParameterError) as err:
        space.validate({"n": 2, "x": 1.5, "y": 0})
    assert str(err.value) == "x above n - 1"  # a constraint's own words
    late = ParamSpace((Param("n", int, 1, 5), Param("x", float, 0, "n", default=3)))
    with pytest.raises(ParameterError) as err:  # a default outside the range the given values make
        late.validate({"n": 2})
    assert str(err.value) == "parameter x: must be a real number in [0, n] = [0, 2], got 3"
    with pytest.raises(ParameterError) as err:  # a dependent parameter's numeric end, when parsed
        late["x"].parse("-1")
    assert str(err.value) == "parameter x: must be a real number in [0, n], got '-1'"
    n = Param("n", int, 1, None)
    assert n.parse("10000000000000000000001") == 10**22 + 1 and n.parse(4.0) == 4 and type(n.parse(4.0)) is int
    for bad, why in ((True, "got bool True"), (2.5, "got 2.5"), ("2.5", "got '2.5'"), ("two", "got 'two'")):
        with pytest.raises(ParameterError) as err:
            n.parse(bad)
        assert str(err.value) == f"parameter n: expected an integer in [1, inf), {why}"
    with pytest.raises(KeyError) as err:
        space["z"]
    assert err.value.args == ("z",)

    @settings(max_examples=40, derandomize=True, deadline=None)
    @given(space.draw(prefer_simple=False))
    def inside(point):
        assert point["x"] <= point["n"] - 1 and space.validate(point) == point

    inside()
