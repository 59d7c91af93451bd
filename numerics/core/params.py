"""Parameter specifications and validation.

Every user-facing parameter goes through :class:`Param.parse`, which either returns a clean
Python number or raises :class:`ParameterError` with a one-line message naming the parameter
and its valid range.  The CLI turns that error into exit code 2 without a traceback.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping


class ParameterError(ValueError):
    """A user-supplied parameter is outside its valid range or of the wrong type."""


@dataclass(frozen=True)
class Dep:
    """An endpoint that depends on other parameters of the space (as scipy.stats' supports
    depend on the shapes): ``fn(values) -> number`` of the parameters ``names``, printed as
    ``text`` (e.g. ``Dep(("L",), lambda v: v["L"] - 1, "L-1")``).  A plain string endpoint
    ``"L"`` is the value of parameter ``L`` itself."""

    names: tuple
    fn: Callable
    text: str

    def __call__(self, values: Mapping):
        return self.fn(values)


def _dep(end) -> "Dep | None":
    if isinstance(end, Dep):
        return end
    if isinstance(end, str):
        return Dep((end,), lambda v, k=end: v[k], end)
    return None


@dataclass(frozen=True)
class Param:
    """A parameter and its domain: ``kind`` int or float, endpoints ``lo``/``hi`` (a number,
    None for unbounded, or another parameter: its name or a :class:`Dep`), open or closed.
    ``typical`` (optional, ``(lo, hi)`` numbers) is the part of an unbounded or wide domain
    that :meth:`ParamSpace.draw` draws from (default: up to a few times the default)."""

    name: str
    kind: type  # int or float
    lo: "float | str | Dep | None" = None
    hi: "float | str | Dep | None" = None
    lo_open: bool = False
    hi_open: bool = False
    doc: str = ""
    default: float | int | None = None
    typical: tuple | None = None

    @property
    def depends(self) -> tuple:
        """The names of the parameters an endpoint depends on."""
        return tuple(n for end in (self.lo, self.hi) for n in (_dep(end).names if _dep(end) else ()))

    def bounds(self, values: Mapping | None = None) -> tuple:
        """``(lo, hi)`` as numbers (None: unbounded), dependent endpoints at ``values``."""
        out = []
        for end in (self.lo, self.hi):
            d = _dep(end)
            out.append(end if d is None else (d(values) if values is not None else None))
        return tuple(out)

    def range_text(self, values: Mapping | None = None) -> str:
        """``an integer in [1, L]``; with ``values``, the dependent endpoints' actual values too:
        ``an integer in [1, L] = [1, 6]``."""
        def end(e, inf):
            d = _dep(e)
            return inf if e is None else d.text if d else repr(e)

        left = "(" if (self.lo_open or self.lo is None) else "["
        right = ")" if (self.hi_open or self.hi is None) else "]"
        what = "an integer" if self.kind is int else "a real number"
        text = f"{what} in {left}{end(self.lo, '-inf')}, {end(self.hi, 'inf')}{right}"
        if values is not None and self.depends and all(n in values for n in self.depends):
            lo, hi = self.bounds(values)
            text += f" = {left}{'-inf' if lo is None else repr(lo)}, {'inf' if hi is None else repr(hi)}{right}"
        return text

    def _check(self, value, raw, values: Mapping | None) -> None:
        lo, hi = self.bounds(values)
        if (lo is not None and (value < lo or (self.lo_open and value == lo))) or (
                hi is not None and (value > hi or (self.hi_open and value == hi))):
            raise ParameterError(f"parameter {self.name}: must be {self.range_text(values)}, got {raw!r}")

    def parse(self, raw) -> float | int:
        """Convert ``raw`` (str or number) and check the numeric endpoints (the dependent ones
        are checked by :meth:`ParamSpace.validate`); raise ParameterError."""
        value = raw
        if isinstance(raw, str):
            text = raw.strip()
            try:
                value = int(text) if self.kind is int else float(text)
            except ValueError:
                if self.kind is int:
                    try:
                        f = float(text)
                    except ValueError:
                        f = None
                    if f is not None and f.is_integer():
                        value = int(f)
                    else:
                        raise ParameterError(
                            f"parameter {self.name}: expected {self.range_text()}, got {raw!r}"
                        ) from None
                else:
                    raise ParameterError(
                        f"parameter {self.name}: expected {self.range_text()}, got {raw!r}"
                    ) from None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParameterError(
                f"parameter {self.name}: expected {self.range_text()}, got {type(raw).__name__} {raw!r}"
            )
        if self.kind is int:
            if isinstance(value, numbers.Integral):
                value = int(value)
            elif float(value).is_integer():
                value = int(value)
            else:
                raise ParameterError(f"parameter {self.name}: expected {self.range_text()}, got {raw!r}")
        else:
            value = float(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise ParameterError(f"parameter {self.name}: expected {self.range_text()}, got {raw!r}")
        self._check(value, raw, None)  # the numeric endpoints (a dependent one is None without values)
        return value

    def with_default(self, default) -> "Param":
        return replace(self, default=default)

    def strategy(self, values: Mapping, prefer_simple: bool = True):
        """A hypothesis strategy for this parameter given the values of those it depends on:
        integers for an int kind, finite floats otherwise, inside the domain (``typical`` for
        an unbounded side).  ``prefer_simple``: the default first, then round values, then any
        value, so that hypothesis shrinks toward the default and simple numbers."""
        from hypothesis import strategies as st

        lo, hi = self.bounds(values)
        t_lo, t_hi = self.typical or (None, None)
        ref = self.default if self.default is not None else (lo if lo is not None else 0)
        if lo is None:
            lo = t_lo if t_lo is not None else ref - 4 * max(1, abs(ref))
        elif t_lo is not None:
            lo = max(lo, t_lo)
        if hi is None:
            hi = t_hi if t_hi is not None else max(4 * abs(ref), lo + 4)
        elif t_hi is not None:
            hi = min(hi, t_hi)
        if self.kind is int:
            a = math.ceil(lo) + (1 if self.lo_open and float(lo).is_integer() else 0)
            b = math.floor(hi) - (1 if self.hi_open and float(hi).is_integer() else 0)
            if a > b:
                return st.nothing()
            simple = [v for v in (self.default,) if v is not None and a <= v <= b]
            base = st.integers(a, b)
        else:
            # the nearest floats inside the open endpoints: none between them (a dependent endpoint
            # drawn a few ulps away, e.g. (0, 5e-324)), no point
            if (math.nextafter(lo, math.inf) if self.lo_open else lo) > (
                    math.nextafter(hi, -math.inf) if self.hi_open else hi):
                return st.nothing()
            base = st.floats(lo, hi, exclude_min=self.lo_open, exclude_max=self.hi_open)  # finite ends: no nan, no inf
            def inside(v):
                return (lo < v if self.lo_open else lo <= v) and (v < hi if self.hi_open else v <= hi)
            if lo <= 0 <= hi:  # the halves nearest 0 inside the range, few of them
                grid = [k / 2 * sign for k in range(9) for sign in ((1,) if k == 0 else (1, -1))]
            elif lo > 0:
                grid = [math.ceil(2 * lo) / 2 + k / 2 for k in range(8)]
            else:
                grid = [math.floor(2 * hi) / 2 - k / 2 for k in range(8)]
            grid = [g for g in grid if inside(g)][:8]
            simple = [v for v in (self.default, *grid) if v is not None and inside(float(v))]
            simple = [float(v) for v in dict.fromkeys(simple)]
        if not prefer_simple or not simple:
            return base
        return st.one_of(st.sampled_from(simple), base)


Constraint = Callable[[Mapping[str, float]], "str | None"]


@dataclass(frozen=True)
class ParamSpace:
    """An ordered set of parameters (whose endpoints may be other parameters of the space) plus
    cross-parameter constraints, and ``fixed``: the parameters of the model that the space does
    not take free, each with the reason (``(name, reason)`` pairs; printed by ``attncheck
    list`` and ``verify --help``)."""

    params: tuple[Param, ...]
    constraints: tuple[Constraint, ...] = ()
    #: where the defaults come from (shown by ``attncheck eval``), e.g. a figure of the paper
    source: str = ""
    fixed: tuple = ()

    def __post_init__(self):
        known = set()
        for p in self.params:
            missing = [n for n in p.depends if n not in known]
            if missing:
                raise ValueError(f"parameter {p.name}: its endpoint depends on {', '.join(missing)}, "
                                 "which must be declared before it in the space")
            known.add(p.name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params if p.default is not None}

    def validate(self, given: Mapping[str, object], *, fill_defaults: bool = True) -> dict:
        unknown = sorted(set(given) - set(self.names))
        if unknown:
            fixed = [f"{n} ({why})" for n, why in self.fixed if n in unknown]
            why = f"; not free here: {'; '.join(fixed)}" if fixed else ""
            raise ParameterError(
                f"unknown parameter(s) {', '.join(unknown)}; valid: {', '.join(self.names)}{why}"
            )
        out = self.defaults() if fill_defaults else {}
        for name, raw in given.items():
            out[name] = self[name].parse(raw)
        missing = [p.name for p in self.params if p.name not in out]
        if missing:
            raise ParameterError(f"missing parameter(s): {', '.join(missing)}")
        for p in self.params:  # the dependent endpoints, with the actual values of the others
            if p.depends:
                p._check(out[p.name], given.get(p.name, out[p.name]), out)
        for check in self.constraints:
            msg = check(out)
            if msg:
                raise ParameterError(msg)
        return out

    def describe(self) -> list[dict]:
        return [
            {"name": p.name, "range": p.range_text(), "default": p.default, "doc": p.doc}
            for p in self.params
        ]

    def free_text(self) -> str:
        """One line: the parameters taken free, and why the others are not."""
        text = "free: " + (", ".join(self.names) or "none")
        if self.fixed:
            text += "; fixed: " + "; ".join(f"{n} ({why})" for n, why in self.fixed)
        return text

    def draw(self, prefer_simple: bool = True, fixed: Mapping | None = None):
        """A hypothesis strategy of points ``{name: value}`` of the space, built from the
        declaration: each parameter in order, its dependent endpoints at the values drawn
        before it; the cross-parameter constraints filter.  ``fixed`` pins some parameters.
        ``prefer_simple`` draws (and shrinks toward) the defaults and round values first."""
        from hypothesis import strategies as st

        fixed = dict(fixed or {})

        @st.composite
        def points(draw):
            out = {}
            for p in self.params:
                out[p.name] = fixed[p.name] if p.name in fixed else draw(p.strategy(out, prefer_simple))
            return out

        strategy = points()
        if self.constraints:
            strategy = strategy.filter(lambda v: not any(c(v) for c in self.constraints))
        return strategy

    def sample(self, n: int, seed: int = 0, fixed: Mapping | None = None, tries: int = 50) -> list[dict]:
        """``n`` seeded points ``{name: value}`` of the space (fewer where the constraints reject
        ``tries * n`` draws): each parameter in order (its dependent endpoints at the values
        drawn before it), half the time near its default (``typical``, or up to a few times the
        default), half the time anywhere in its domain (``typical`` on an unbounded side;
        log-uniform on a positive domain spanning more than a factor 100), integers for an int
        kind; ``fixed`` pins some parameters.  The same points for the same seed, without
        hypothesis (``draw`` is for property tests)."""
        import random

        rng, out = random.Random(seed), []
        for _ in range(tries * max(n, 1)):
            if len(out) >= n:
                break
            point = {}
            for p in self.params:
                if fixed and p.name in fixed:
                    point[p.name] = fixed[p.name]
                    continue
                lo, hi = _span(p, point, near=rng.random() < 0.5)
                if p.kind is int:
                    point[p.name] = rng.randint(math.ceil(lo), max(math.ceil(lo), math.floor(hi)))
                elif lo >= 0 and hi > 100 * max(lo, 1e-300):  # a wide positive domain: every scale alike
                    point[p.name] = math.exp(rng.uniform(math.log(max(lo, 1e-4 * hi)), math.log(hi)))
                else:
                    point[p.name] = rng.uniform(lo, hi)
            try:
                out.append(self.validate(point))
            except ParameterError:
                continue
        return out


def _span(p: Param, values: Mapping, near: bool = False) -> tuple:
    """The finite interval a parameter is drawn from (:meth:`ParamSpace.sample`); ``near``: the
    part of it near the default."""
    lo, hi = p.bounds(values)
    t_lo, t_hi = p.typical or (None, None)
    ref = p.default if p.default is not None else (lo if lo is not None else 0)
    if near and p.typical is None:
        t_hi = max(4 * abs(ref), (lo if lo is not None else ref) + 4)
    lo = (t_lo if t_lo is not None else ref - 4 * max(1, abs(ref))) if lo is None else max(lo, t_lo or lo)
    hi = (t_hi if t_hi is not None else max(4 * abs(ref), lo + 4)) if hi is None else min(hi, t_hi or hi)
    if p.kind is int:
        lo += 1 if p.lo_open and float(lo).is_integer() else 0
        hi -= 1 if p.hi_open and float(hi).is_integer() else 0
    return lo, max(lo, hi)


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Parse CLI ``k=v`` items into a dict of raw strings."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"--param expects k=v, got {item!r}")
        key, value = item.split("=", 1)
        key = key.strip()
        if not key:
            raise ParameterError(f"--param expects k=v, got {item!r}")
        if key in out:
            raise ParameterError(f"parameter {key} given twice ({out[key]!r} and {value!r}); give it once")
        out[key] = value
    return out
