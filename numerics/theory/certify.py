"""``attncheck eval ID --certify``: rigorous enclosures of a claim's closed forms.

The registry ``CERTIFIERS`` maps a claim id to its certifier ("module:function", imported
only when used, so that listing the claims stays cheap).  An installed package adds its own
through the entry-point group ``attncheck.certifiers`` (name: the claim id, value:
"module:function"), read from the package metadata without importing it.  A certifier takes the claim's
validated parameters and N and returns ``{key: flint.arb}`` (the keys of the claim's
``evaluate``).  :func:`certify` runs it at a working precision of N digits plus guard bits
and raises the precision until every ball is narrower than 10^-(N-3) (absolutely, and
relative to the value unless the ball contains 0), then returns :class:`numerics.core.arb.Ball`
values (midpoint, radius, certified digits).

What is rigorous: the ball arithmetic (FLINT's arb/acb), the quadrature error of
``acb.integral``, the Gaussian-tail bound, the Krawczyk root proof.  What is not: the
derivation itself (that is what the claims check) and FLINT's correctness.
"""
from __future__ import annotations

import importlib
import time
from dataclasses import dataclass

from numerics.core.params import ParameterError

#: claim id -> "module:function" of its certifier
CERTIFIERS = {
    "A.thm3.w1_alignment": "numerics.theory.paper_a.certify:thm3_w1",
    "A.thm3.q2_overlap": "numerics.theory.paper_a.certify:thm3_q2_overlap",
    "A.thm3.q2_norm": "numerics.theory.paper_a.certify:thm3_q2_norm",
    "A.thm3.q2_cosine": "numerics.theory.paper_a.certify:thm3_q2_cosine",
    "A.cor1.alignment_rate": "numerics.theory.paper_a.certify:cor1",
    "A.cor2.ridgeless_rate": "numerics.theory.paper_a.certify:cor2",
    "A.thm1.linear_threshold": "numerics.theory.paper_a.certify:thm1",
    "A.capacity.pool_vec_ratio": "numerics.theory.paper_a.certify:capacity_ratio",
}

#: the entry-point group through which installed packages name the certifiers of their claims
ENTRY_POINT_GROUP = "attncheck.certifiers"


def certifiers() -> dict:
    """Every certifier: claim id -> "module:function" (the built-in ones, then those of
    installed packages, group ``attncheck.certifiers``)."""
    from importlib.metadata import entry_points

    table = dict(CERTIFIERS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        table.setdefault(ep.name, ep.value)
    return table


#: extra guard bits of the working precision, tried in turn
GUARD_BITS = (24, 64, 160, 400)


def certifiable(claim_id: str) -> bool:
    return claim_id in certifiers()


def certifier(claim_id: str):
    table = certifiers()
    if claim_id not in table:
        raise ParameterError(f"claim {claim_id} cannot be certified; certifiable: {', '.join(table)}")
    module, name = table[claim_id].split(":")
    return getattr(importlib.import_module(module), name)


def certify(claim_id: str, params: dict, digits: int, *, timings: dict | None = None) -> dict:
    """``{key: Ball}`` for the claim at the (validated) ``params``, each ball of width
    <= 10^-(digits-3).  Raises :class:`numerics.core.arb.CertifyError` when the balls stay too
    wide at the largest working precision."""
    from numerics.core.arb import CertifyError, ball, bits, precision, width_ok

    fn = certifier(claim_id)
    last = None
    t0 = time.perf_counter()
    for guard in GUARD_BITS:
        with precision(bits(digits) + guard):
            try:
                out = fn(params, digits)
            except CertifyError as e:
                last = str(e)
                continue
            wide = [k for k, v in out.items() if not width_ok(v, digits - 3)]
            if not wide:
                res = {k: ball(v, digits) for k, v in out.items()}
                if timings is not None:
                    timings.update(seconds=time.perf_counter() - t0, guard_bits=guard)
                return res
            last = f"balls too wide for {', '.join(wide)}"
    raise CertifyError(f"{claim_id}: no certificate at {digits} digits ({last})")


@dataclass(frozen=True)
class Certificate:
    """A certifiable claim certified at its default parameters: ``balls`` ({key: Ball}) or,
    when no certificate was found, ``error`` (the reason)."""

    claim_id: str
    params: dict
    digits: int
    balls: dict | None = None
    error: str | None = None


def at_defaults(claim, digits: int = 30) -> Certificate | None:
    """The claim certified at its default parameters, or None if it has no certifier (what
    the report and ``attncheck latex --certified`` show)."""
    from numerics.core.arb import ArbPrintError, CertifyError

    if not certifiable(claim.id) or claim.param_space is None:
        return None
    params = claim.param_space.validate({})
    try:
        return Certificate(claim.id, params, digits, balls=certify(claim.id, params, digits))
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        return Certificate(claim.id, params, digits, error=str(e))
