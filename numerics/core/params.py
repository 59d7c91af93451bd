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
class Param:
    name: str
    kind: type  # int or float
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    doc: str = ""
    default: float | int | None = None

    def range_text(self) -> str:
        lo = "-inf" if self.lo is None else repr(self.lo)
        hi = "inf" if self.hi is None else repr(self.hi)
        left = "(" if (self.lo_open or self.lo is None) else "["
        right = ")" if (self.hi_open or self.hi is None) else "]"
        what = "an integer" if self.kind is int else "a real number"
        return f"{what} in {left}{lo}, {hi}{right}"

    def parse(self, raw) -> float | int:
        """Convert ``raw`` (str or number) and check the range; raise ParameterError."""
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
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            raise ParameterError(f"parameter {self.name}: must be {self.range_text()}, got {raw!r}")
        if self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)):
            raise ParameterError(f"parameter {self.name}: must be {self.range_text()}, got {raw!r}")
        return value

    def with_default(self, default) -> "Param":
        return replace(self, default=default)


Constraint = Callable[[Mapping[str, float]], "str | None"]


@dataclass(frozen=True)
class ParamSpace:
    """An ordered set of parameters plus cross-parameter constraints (e.g. R <= L)."""

    params: tuple[Param, ...]
    constraints: tuple[Constraint, ...] = ()
    #: where the defaults come from (shown by ``attncheck eval``), e.g. a figure of the paper
    source: str = ""

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
            raise ParameterError(
                f"unknown parameter(s) {', '.join(unknown)}; valid: {', '.join(self.names)}"
            )
        out = self.defaults() if fill_defaults else {}
        for name, raw in given.items():
            out[name] = self[name].parse(raw)
        missing = [p.name for p in self.params if p.name not in out]
        if missing:
            raise ParameterError(f"missing parameter(s): {', '.join(missing)}")
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


# --- the shared vocabulary of parameters ------------------------------------------------
# Paper A (sparse-token classification).
L = Param("L", int, 2, None, doc="sequence length (number of tokens)")
R = Param("R", int, 1, None, doc="number of signal tokens in a positive sample, 1 <= R <= L")
PI = Param("pi", float, 0.0, 1.0, True, True, doc="prior P(y = +1) (rarity)")
THETA = Param("theta", float, 0.0, None, doc="signal strength theta >= 0")
ALPHA0 = Param("alpha0", float, 0.0, None, lo_open=True, doc="sample ratio n0/d of D0, > 0")
ALPHA1 = Param("alpha1", float, 0.0, None, lo_open=True, doc="sample ratio n1/d of D1, > 0")
ETA_W = Param("eta_w", float, 0.0, None, lo_open=True, doc="learning rate of w in step 1-2")
ETA_B = Param("eta_b", float, 0.0, None, doc="learning rate of b in step 1-2 (>= 0)")
ETA_Q = Param("eta_q", float, 0.0, None, lo_open=True, doc="learning rate of q in step 3")
BETA = Param("beta", float, 0.0, None, lo_open=True, doc="softmax inverse temperature, > 0")
LAMBDA = Param("lam", float, 0.0, None, doc="ridge penalty lambda >= 0 on w")
D = Param("d", int, 1, None, doc="token dimension")


def r_le_l(values: Mapping[str, float]) -> str | None:
    if "R" in values and "L" in values and values["R"] > values["L"]:
        return f"parameter R: must be an integer in [1, L] = [1, {values['L']}], got {values['R']}"
    return None
