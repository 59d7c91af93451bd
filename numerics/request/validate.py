"""The scalars of a request, validated once: the names as the caller spells them, ``dps``,
``seed``, ``mode``, ``workers``, ``mutate``, the settings of a run and its parameter point, a
problem's options, an output path."""
from __future__ import annotations

import math
import numbers
from typing import Callable, Mapping

from numerics import registry
from numerics.core.params import ParameterError
from numerics.core.precision import DPS, MAX_DPS, MIN_DPS

MAX_WORKERS = 64
#: the most points one request (an array evaluation, a sweep) may ask for
MAX_POINTS = 100_000


def python_name(name: str) -> str:
    return name


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def integer(name: str, value, lo: int, hi: int | None, spell: Callable = python_name) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo or (
            hi is not None and value > hi):
        raise ParameterError(f"{spell(name)} must be an integer in [{lo}, {hi if hi is not None else 'inf'}], "
                             f"got {value!r}")
    return int(value)


def dps(value, claim=None, spell: Callable = python_name) -> int:
    """``dps`` in [MIN_DPS, MAX_DPS], and at most the claim's ``max_dps``."""
    value = integer("dps", value, MIN_DPS, MAX_DPS, spell)
    cap = getattr(claim, "max_dps", MAX_DPS) or MAX_DPS
    if value > cap:
        raise ParameterError(f"{spell('dps')} {value}: {claim.id} supports {spell('dps')} {MIN_DPS}..{cap}")
    return value


def seed(value, spell: Callable = python_name) -> int:
    from numerics.core.seeding import DEFAULT_SEED

    return DEFAULT_SEED if value is None else integer("seed", value, 0, None, spell)


def mode(value) -> str:
    from numerics.claims.base import MODES

    if not isinstance(value, str) or value not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {value!r}")
    return value


def claims_dps(chosen, value: int, spell: Callable = python_name) -> None:
    """``verify`` at a working precision other than the default: every chosen claim must compute
    its theory at that precision (``Claim.uses_dps``), up to its ``max_dps``; else the request is
    refused up front, naming the claims."""
    if value == DPS.default:
        return
    ignore = [c.id for c in chosen if not getattr(c, "uses_dps", True)]
    if ignore:
        verb = "does" if len(ignore) == 1 else "do"
        raise ParameterError(f"{spell('dps')} {value}: {', '.join(ignore)} {verb} not evaluate the theory at "
                             f"{spell('dps')} digits (float64, or a working precision of its own); run "
                             f"{'it' if len(ignore) == 1 else 'them'} without {spell('dps')}")
    for c in chosen:
        dps(value, c, spell)


def workers(value, spell: Callable = python_name) -> int:
    return integer("workers", value, 1, MAX_WORKERS, spell)


def mutate(value, spell: Callable = python_name) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= -1:
        raise ParameterError(f"{spell('mutate')} must be a finite number > -1, got {value!r}")
    return float(value)


def settings(mode_: str = "quick", seed_=None, dps_: int = DPS.default, params: tuple = ()):
    """Validated claim settings (``numerics.claims.base.Settings``)."""
    from numerics.claims.base import Settings

    return Settings(mode=mode(mode_), seed=seed(seed_), dps=dps(dps_), params=params)


def point_settings(chosen, base, params: Mapping, spell: Callable = python_name):
    """``verify`` at a parameter point of the user's: every chosen claim must run its experiment
    at a point (``point_space``); the point is validated by the first one's space and the
    settings carry it (``Settings.params``).  No params: ``base`` unchanged."""
    if not params:
        return base
    point = None
    for c in chosen:
        if getattr(c, "point_space", None) is None:
            takers = [x.id for x in registry.claims().values() if getattr(x, "point_space", None) is not None]
            raise ParameterError(f"claim {c.id} runs at its built-in design only and takes no {spell('param')} "
                                 f"(claims that do: {', '.join(takers) or 'none'})")
        values = c.point_space.validate(params)
        point = point or values
    from dataclasses import replace

    return replace(base, params=tuple(sorted(point.items())))


def options(spec, given: Mapping, spell: Callable = python_name) -> dict:
    """A problem's options (``model``, ``loss``): each one it takes, among its choices."""
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        if name not in spec.options:
            raise ParameterError(f"problem {spec.name} takes no {spell(name)}")
        if value not in spec.options[name]:
            raise ParameterError(f"{spell(name)} must be one of {', '.join(spec.options[name])}, got {value!r}")
        out[name] = value
    return out


def output_path(path, suffixes: tuple, spell_option: str = "path") -> str:
    """An output path checked before any computation: its suffix, its folder, writable."""
    import os

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in suffixes:
        raise ParameterError(f"{spell_option} {path!r}: the file name must end in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ParameterError(f"{spell_option} {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ParameterError(f"{spell_option} {path!r}: not writable")
    if os.path.isdir(path):
        raise ParameterError(f"{spell_option} {path!r}: is a folder, expected a file")
    return path
