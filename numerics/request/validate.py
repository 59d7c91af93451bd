"""The scalars of a request, validated once: the names as the caller spells them, ``dps``,
``seed``, ``mode``, ``workers``, ``mutate``, the settings of a run, a problem's options, an
output path."""
from __future__ import annotations

import math
import numbers
from typing import Callable, Mapping

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


def workers(value, spell: Callable = python_name) -> int:
    return integer("workers", value, 1, MAX_WORKERS, spell)


def mutate(value, spell: Callable = python_name) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= -1:
        raise ParameterError(f"{spell('mutate')} must be a finite number > -1, got {value!r}")
    return float(value)


def settings(mode_: str = "quick", seed_=None, dps_: int = DPS.default, params: tuple = (),
             spell: Callable = python_name):
    """Validated claim settings (``numerics.claims.base.Settings``)."""
    from numerics.claims.base import Settings

    return Settings(mode=mode(mode_), seed=seed(seed_, spell), dps=dps(dps_, None, spell), params=params)


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
