"""Paper A's four-step protocol: how steps 1-3 feed step 4 (docs/paper_a_protocol.md).

Step 4 trains the readout on D1, independent of D0, at the query q^(2) of steps 1-3.  The
attention law of step 4 (``attention_reduction``) depends on q only through (||q||, s_q),
s_q = cos(q, xi); both concentrate, so in the limit step 4 sees the Theorem-3 limits of
steps 1-3 (``alignment.limits``):

    ||q||  <-  lim ||q^(2)||,        s_q  <-  lim cos(q^(2), xi).

``composition`` is this assignment as a named step: a map from the step-4 law's query
symbols to the symbols of the Theorem-3 limits (``LIMITS``, keyed as the numerics report
them).  The numerics substitute the computed limits into it and read (||q||, s_q) from it;
a mutant (the readout's limits in place of the query's, or the squared norm) then moves every
protocol prediction as the error would.  The linear baselines do not see q: their step 4 is
their own law (``models.Model.sees_q``).
"""
from __future__ import annotations

import sympy as sp

from derivations.core import derivation, mutant, step
from derivations.paper_a.attention_reduction import qn, s_q

REF = "Paper A §4 (protocol); docs/paper_a_protocol.md"

#: the Theorem-3 limits the composition may read, by the key under which they are computed
LIMITS = {
    "q2_norm": sp.Symbol(r"\|q^{(2)}\|_\infty", positive=True),
    "q2_cosine": sp.Symbol(r"\cos(q^{(2)},\xi)_\infty", real=True),
    "w1_norm": sp.Symbol(r"\|w^{(1)}\|_\infty", positive=True),
    "w1_cosine": sp.Symbol(r"\cos(w^{(1)},\xi)_\infty", real=True),
}


@derivation
def composition() -> dict:
    """{q_norm: lim ||q^(2)||, s_q: lim cos(q^(2), xi)}: the step-4 query of the attention
    law as expressions of the Theorem-3 limits (``LIMITS``)."""
    return step("A.protocol.composition", {qn: LIMITS["q2_norm"], s_q: LIMITS["q2_cosine"]})


@derivation
def reported_query() -> tuple:
    """(||q||, s_q) of the step-4 law as the protocol's rows compare them with the simulated
    ||q^(2)|| and cos(q^(2), xi): the values the composition feeds step 4 (an identity step,
    so that a change of the reported query alone can be applied to it)."""
    return step("A.protocol.reported_query", (qn, s_q))


mutant("A.protocol.composition:readout", "A.protocol.composition",
       "step 4 at the readout's limits (||w^(1)||, cos(w^(1), xi)) instead of the query's",
       lambda d: {qn: LIMITS["w1_norm"], s_q: LIMITS["w1_cosine"]})
mutant("A.protocol.composition:norm_squared", "A.protocol.composition",
       "||q|| of step 4 read as the limit of ||q^(2)||^2",
       lambda d: {**d, qn: d[qn] ** 2})
