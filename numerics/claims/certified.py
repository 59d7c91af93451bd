"""The certified row of a certifiable claim, as the claims engine adds it to the claim's evidence
(``numerics.claims.base.Claim.collect``, at the claim's defaults only: a certificate is of the
defaults, not of a user's point)."""
from __future__ import annotations

from numerics.claims.base import Comparison

#: the certified row of each (claim, dps) of the true derivation, for mutated runs
_CERTIFIED: dict = {}


def certified_rows(claim, dps: int) -> list:
    """The certified row of ``claim`` at ``dps`` digits (``numerics.theory.certify.certified_row``):
    theory 0, the experiment the worst cross-check score of its balls, allowance 1, marked
    ``certified`` (listed apart, outside the Bonferroni family; passes when every ball contains
    the independent value and is as narrow as promised).  Empty for a claim that is not certifiable."""
    from derivations.core import active_mutants, unmutated
    from numerics.theory.certify import certified_row

    key = (claim.id, dps)
    if active_mutants():
        # a structural mutant changes the arb and the mpmath values alike, so the row cannot see
        # it; under a mutant the row is the true derivation's (computed once per process), which
        # keeps the rows of a mutated run aligned with the unmutated ones at no cost
        if key not in _CERTIFIED:
            with unmutated():
                _CERTIFIED[key] = certified_row(claim, dps)
        row = _CERTIFIED[key]
    else:
        row = _CERTIFIED[key] = certified_row(claim, dps)
    if row is None:
        return []
    label, score, n, text = row
    return [Comparison(label, 0.0, score, 0.0, 1.0, n, certified=text)]
