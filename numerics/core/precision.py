"""The working precision a request may ask for, declared once.

``dps`` (decimal digits of mpmath, and the target width 10^-(dps-3) of a certified ball) is an
integer in [MIN_DPS, MAX_DPS] for every entry point: ``eval``, ``eval --certify``, ``solve``,
``sweep``, ``verify`` and the Python API.  A claim may declare a smaller ``max_dps`` (the largest
its evaluator reaches in bounded time); the request layer (``numerics.request``) refuses more.
"""
from __future__ import annotations

from numerics.core.params import Param

MIN_DPS = 5
MAX_DPS = 2000
DEFAULT_DPS = 30

#: the domain of ``dps`` (``--dps``), for every request, certified ones included
DPS = Param("dps", int, MIN_DPS, MAX_DPS, doc="working precision, decimal digits", default=DEFAULT_DPS)
