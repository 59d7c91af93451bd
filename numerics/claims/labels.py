"""Row labels and design points: the data a printer renders.

A row's label (``Comparison.label``) is its stable key: the verdict cache, the power ratchet
(``numerics/claims/power_ratchet.json``) and ``explore`` key on it.  Its parameter point is
structured: ``Comparison.at`` (parameter name -> value), given by the claim with the values it
wrote into the label (``q2_cosine[logistic, L=10, a0=3]`` has ``at={"L": 10, "a0": 3}``):
:func:`point`.  No number is read back from a label.  A claim's design point is
:func:`design_point`.  How both are printed (Unicode, LaTeX, HTML) is the presentation's job:
``numerics.report_labels``."""
from __future__ import annotations

import re

#: ``name=value`` in a label: an identifier, then a plain number (not ``L=10^(10^8)``, not a
#: fraction ``shift=1/2``, not the first of a list ``K = 16, 32, 64``).  It locates where a label
#: writes a name of its point (the printers typeset the point's value there); the values are the
#: point's, never the label's text
ASSIGNMENT = re.compile(r"(?<![\w.*])([A-Za-z][A-Za-z0-9_]*)\s*=\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
                        r"(?![\w.^(/])(?!\s*,\s*\d)")


def point(row) -> dict:
    """The row's parameter point: its ``at`` (name -> value), empty when it has none."""
    at = getattr(row, "at", None)
    return dict(at) if at else {}


def _flat(d) -> bool:
    return isinstance(d, dict) and bool(d) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in d.values())


def design_point(verdict) -> dict:
    """The point a verdict's claim ran at: the user's ``--param`` point, else the design its
    experiment reports in its details (``design``, ``setting`` or ``params``: one point, or
    named groups of points).  Empty when the claim reports none."""
    user = getattr(verdict, "point", None)
    if user:
        return dict(user)
    details = getattr(verdict, "details", None) or {}
    for key in ("design", "setting", "params"):
        d = details.get(key)
        if _flat(d):
            return dict(d)
        if isinstance(d, dict) and d and all(_flat(v) for v in d.values()):
            return {str(k): dict(v) for k, v in d.items()}
    return {}
