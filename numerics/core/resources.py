"""Memory and time of a request, estimated from its sizes before it runs.

An entry point (``attncheck solve``/``eval``/``sweep``/``verify``/``figure`` and the Python API)
builds an :class:`Estimate` from the sizes of the request (QMC points x scramblings x L, d x n,
trials) and calls :func:`check`; a request above a limit raises :class:`ResourceError` (a
``ParameterError``: exit 2 on the command line) whose one-line message states the estimate,
the limit and the parameter to lower.  Nothing is computed before the check.

Limits (:func:`limits`):

* memory: ``--max-memory SIZE`` (``4G``, ``512M``, ``2.5GB``, bytes) or ``$ATTNCHECK_MAX_MEMORY``;
  default half of the memory the machine has available now (``MemAvailable`` of
  ``/proc/meminfo``; 8 GiB where that file does not exist);
* time: ``--max-time DURATION`` (``90s``, ``30m``, ``2h``, seconds) or ``$ATTNCHECK_MAX_TIME``;
  default 2 h.  The rule: a request whose estimated time exceeds the limit is refused; one
  estimated above :data:`ANNOUNCE_S` seconds is announced on stderr before it runs.

Estimates are rough (a constant factor), calibrated on this project's own code; they are meant
to refuse a request that would not finish or would be killed, not to predict run times.

Every command honours the limits.  A request with a cost model (a claim's or a problem's
``cost``, verify's recorded times) is checked against its estimate; one without
(:func:`unpriced`: ``latex``, ``list``, a closed form without a cost model ...) is estimated as
the interpreter it runs in (:data:`BASE_BYTES` per process) and no time of note, so an explicit
``--max-memory`` below the interpreter refuses it.  An explicit memory limit is always compared
with at least one interpreter.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import os
import re
from dataclasses import dataclass, field

from numerics.core.params import ParameterError

DEFAULT_MAX_SECONDS = 2 * 3600.0
DEFAULT_TIME_SOURCE = "the default; --max-time to change"
ANNOUNCE_S = 30.0
#: the largest dimension of scipy.stats.qmc.Sobol (its direction numbers)
SOBOL_MAX_DIM = 21201
#: the Python interpreter with SymPy, NumPy and SciPy imported (resident set, bytes)
BASE_BYTES = 250e6


class ResourceError(ParameterError):
    """A request above a memory or time limit, or beyond a library's size limit."""


@dataclass(frozen=True)
class Estimate:
    """``bytes``: peak resident memory; ``seconds``: wall time on one core; ``knobs``: the
    parameters that drive the cost, most effective first (named in a refusal)."""

    bytes: float = 0.0
    seconds: float = 0.0
    knobs: tuple = ()
    what: str = ""
    parts: dict = field(default_factory=dict)


NOTHING = Estimate()
DEFAULT_MEMORY_SOURCE = "half the available memory; --max-memory to change"


def unpriced(what: str = "", processes: int = 1) -> Estimate:
    """A request without a cost model: the interpreters it runs in (``processes`` of them),
    and no time of note."""
    return Estimate(BASE_BYTES * max(1, int(processes)), 0.0, ("--workers",) if processes > 1 else (),
                    f"{what} (the Python interpreter{'s' if processes > 1 else ''} alone)".strip())


def priced(cost, *args, what: str = "") -> Estimate:
    """``cost(*args)``, or :func:`unpriced` when there is no cost model (``cost`` is None)."""
    return cost(*args) if cost is not None else unpriced(what)


def explicit() -> bool:
    """A limit was given (option, API argument or environment), not the defaults."""
    lim = limits()
    return lim.memory_source != DEFAULT_MEMORY_SOURCE or lim.time_source != DEFAULT_TIME_SOURCE


def verify_cost(seconds: float, todo: int, workers: int = 1) -> Estimate:
    """``verify`` of ``todo`` claims recorded to take ``seconds`` on one core, on ``workers``
    processes (each an interpreter; the parent too when there is a pool)."""
    w = max(1, min(int(workers), max(1, todo)))
    timed = limits().time_source != DEFAULT_TIME_SOURCE  # the default 2 h applies to priced requests only
    # the pool's processes (the claims' pool, or the trials' pool of a single claim) and the parent
    return Estimate(BASE_BYTES * (int(workers) + 1 if workers > 1 else 1), seconds / w if timed else 0.0,
                    ("the number of claims (or use --quick, more --workers)",), f"verify of {todo} claims")


def many(estimates, workers: int = 1, what: str = "") -> Estimate:
    """Independent requests (the points of a sweep) on ``workers`` processes: the time is
    shared among the workers, each worker holds one request at a time."""
    estimates = list(estimates)
    if not estimates:
        return Estimate(what=what)
    w = max(1, min(int(workers), len(estimates)))
    knobs = tuple(dict.fromkeys(k for e in estimates for k in e.knobs)) + ("the number of grid points",)
    return Estimate(max(e.bytes for e in estimates) * w, sum(e.seconds for e in estimates) / w, knobs, what)


# --- sizes as text ------------------------------------------------------------------------------
_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20, "mib": 2**20,
          "g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40, "tib": 2**40}
_TIME_UNITS = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def _quantity(text, units: dict, what: str, example: str) -> float:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in units:
        raise ParameterError(f"{what} must look like {example}, got {text!r}")
    v = float(m.group(1)) * units[m.group(2).lower()]
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"{what} must be finite and > 0, got {text!r}")
    return v


def parse_size(text) -> float:
    """'4G', '512M', '2.5GB', '1000000' -> bytes (binary units)."""
    return _quantity(text, _UNITS, "memory size", "4G, 512M or 2000000000 (bytes)")


def parse_duration(text) -> float:
    """'90s', '30m', '2h', '600' -> seconds."""
    return _quantity(text, _TIME_UNITS, "duration", "90s, 30m, 2h or 600 (seconds)")


def size_text(n: float) -> str:
    for unit, f in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= f:
            return f"{n / f:.3g} {unit}"
    return f"{n:.0f} B"


def duration_text(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.3g} days"


# --- limits -------------------------------------------------------------------------------------
def available_memory() -> float:
    """The memory the machine has available now (bytes): MemAvailable of /proc/meminfo."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return 16.0 * 2**30


@dataclass(frozen=True)
class Limits:
    bytes: float
    seconds: float
    memory_source: str
    time_source: str


_OVERRIDE: contextvars.ContextVar = contextvars.ContextVar("attncheck_resource_limits", default={})


def set_limits(max_memory=None, max_time=None, source=("--max-memory", "--max-time")) -> None:
    """Set the limits of this context (``--max-memory``/``--max-time``); None leaves one as is."""
    cur = dict(_OVERRIDE.get())
    if max_memory is not None:
        cur["bytes"], cur["bytes_source"] = parse_size(max_memory), source[0]
    if max_time is not None:
        cur["seconds"], cur["seconds_source"] = parse_duration(max_time), source[1]
    _OVERRIDE.set(cur)


@contextlib.contextmanager
def limited(max_memory=None, max_time=None):
    """The limits inside a ``with`` block (the Python API's ``max_memory=``/``max_time=``)."""
    token = _OVERRIDE.set(dict(_OVERRIDE.get()))
    try:
        set_limits(max_memory, max_time, ("max_memory=", "max_time="))
        yield limits()
    finally:
        _OVERRIDE.reset(token)


def reset_limits() -> None:
    _OVERRIDE.set({})


def limits() -> Limits:
    o = _OVERRIDE.get()
    if "bytes" in o:
        mem, msrc = o["bytes"], o["bytes_source"]
    elif os.environ.get("ATTNCHECK_MAX_MEMORY"):
        mem, msrc = parse_size(os.environ["ATTNCHECK_MAX_MEMORY"]), "$ATTNCHECK_MAX_MEMORY"
    else:
        mem, msrc = available_memory() / 2, DEFAULT_MEMORY_SOURCE
    if "seconds" in o:
        sec, tsrc = o["seconds"], o["seconds_source"]
    elif os.environ.get("ATTNCHECK_MAX_TIME"):
        sec, tsrc = parse_duration(os.environ["ATTNCHECK_MAX_TIME"]), "$ATTNCHECK_MAX_TIME"
    else:
        sec, tsrc = DEFAULT_MAX_SECONDS, DEFAULT_TIME_SOURCE
    return Limits(mem, sec, msrc, tsrc)


def _lower(knobs) -> str:
    return f"lower {' or '.join(knobs)}, or raise the limit" if knobs else "raise the limit"


def check_cost(est: Estimate, *, announce=None, max_memory=None, max_time=None) -> Estimate:
    """:func:`check` within ``max_memory``/``max_time`` when given (the Python API's overrides of
    the current limits): a request above the limits is refused before it runs."""
    with limited(max_memory, max_time):
        return check(est, announce=announce)


def check(est: Estimate, announce=None) -> Estimate:
    """Refuse ``est`` if it exceeds a limit (:class:`ResourceError`, one line); otherwise call
    ``announce(text)`` when it is long (above :data:`ANNOUNCE_S`) and return it."""
    lim = limits()
    what = f"{est.what}: " if est.what else ""
    if lim.memory_source != DEFAULT_MEMORY_SOURCE and est.bytes < BASE_BYTES:
        est = Estimate(BASE_BYTES, est.seconds, est.knobs, est.what, est.parts)  # at least the interpreter
    if est.bytes > lim.bytes:
        raise ResourceError(f"{what}needs about {size_text(est.bytes)} of memory, above the limit "
                            f"{size_text(lim.bytes)} ({lim.memory_source}): {_lower(est.knobs)}")
    if est.seconds > lim.seconds:
        raise ResourceError(f"{what}would take about {duration_text(est.seconds)}, above the limit "
                            f"{duration_text(lim.seconds)} ({lim.time_source}): {_lower(est.knobs)}")
    if announce is not None and est.seconds > ANNOUNCE_S:
        announce(f"{what}estimated {duration_text(est.seconds)}, {size_text(est.bytes)} of memory")
    return est


def within(name: str, value, lo, hi, why: str) -> None:
    """A library's size limit on a parameter, checked before any computation."""
    if not (lo <= value <= hi):
        raise ResourceError(f"parameter {name}: must be in [{lo}, {hi}] ({why}), got {value!r}")
