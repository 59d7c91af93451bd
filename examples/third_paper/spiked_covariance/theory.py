"""Theory values of the spiked-covariance claims, compiled from the SymPy derivation.

Only the project's public compilers are used: ``numerics.core.backends.mp_eval`` (mpmath at
any precision) and ``numerics.core.arb.compile_arb`` (ball arithmetic, for ``attncheck eval
--certify``).  No formula is written here: every value is a step of ``derivation``, so a
structural mutant of a step changes these values exactly as the error would.
"""
from __future__ import annotations

import mpmath

from numerics.core.arb import arb_of, compile_arb
from numerics.core.backends import mp_eval

from . import derivation as D

#: what each claim's ``evaluate`` returns: key -> (builder, key in the builder's dict)
KEYS = {
    "S.bbp.outlier": {"top_eigenvalue": (D.spike, "outlier"), "threshold": (D.spike, "threshold")},
    "S.bbp.overlap": {"overlap": (D.spike, "overlap"), "threshold": (D.spike, "threshold")},
    "S.mp.edge": {"edge": (D.bulk, "edge")},
}


def _values(params: dict) -> dict:
    return {D.gamma: params["gamma"], D.ell: params.get("ell", 0.0)}


def expression(claim_id: str, key: str):
    builder, name = KEYS[claim_id][key]
    return builder()[name]


def value(claim_id: str, key: str, params: dict, dps: int = 30):
    """One theory value (mpmath mpf) at ``params`` ({"gamma": .., "ell": ..})."""
    out = mp_eval(expression(claim_id, key), _values(params), dps)
    if isinstance(out, mpmath.mpc):  # a root off the real line: no real limit at these parameters
        if out.imag:
            raise ArithmeticError(f"{claim_id}: {key} is not real at {params} ({mpmath.nstr(out, 8)})")
        out = out.real
    return out


def evaluator(claim_id: str):
    """``evaluate(params, dps) -> {key: mpf}`` of the claim (``attncheck eval``)."""
    def evaluate(params: dict, dps: int) -> dict:
        return {k: value(claim_id, k, params, dps) for k in KEYS[claim_id]}
    return evaluate


def certifier(claim_id: str):
    """``certify(params, digits) -> {key: arb}``: the same expressions in ball arithmetic."""
    def certify(params: dict, digits: int) -> dict:
        keys = list(KEYS[claim_id])
        f = compile_arb([expression(claim_id, k) for k in keys], (D.gamma, D.ell))
        balls = f(arb_of(params["gamma"]), arb_of(params.get("ell", 0)))
        return dict(zip(keys, balls))
    return certify


# the certifiers named by the package's "attncheck.certifiers" entry points
certify_outlier = certifier("S.bbp.outlier")
certify_overlap = certifier("S.bbp.overlap")
certify_edge = certifier("S.mp.edge")
