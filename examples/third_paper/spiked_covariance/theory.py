"""Theory values of the spiked-covariance claims, compiled from the SymPy derivation.

Only the project's public compilers are used: ``numerics.core.backends.mp_eval`` (mpmath at
any precision) and ``numerics.core.backends.chain_evaluator`` (one chain run in numpy, mpmath or
ball arithmetic; the latter makes the claims certifiable, ``attncheck eval --certify``).  No formula is written here: every value is a step of ``derivation``, so a
structural mutant of a step changes these values exactly as the error would.
"""
from __future__ import annotations

import mpmath

from derivations.core import derivation
from numerics.core.backends import chain_evaluator, mp_eval

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
    """The claim's closed forms as one chain of its derivation's steps
    (``numerics.core.backends.chain_evaluator``): ``attncheck eval`` runs it in mpmath at any
    dps, ``eval --certify`` in ball arithmetic (arb), and the certificate is checked against
    the same chain in mpmath at twice the digits; no certifier is written here."""
    names = ("gamma",) if claim_id == "S.mp.edge" else ("gamma", "ell")

    @derivation
    def build():
        from numerics.core.backends import Chain

        inputs = (D.gamma,) if names == ("gamma",) else (D.gamma, D.ell)
        return Chain(inputs, (), tuple((k, expression(claim_id, k)) for k in KEYS[claim_id]))

    build.__name__ = claim_id
    return chain_evaluator(build, names, name=claim_id)
