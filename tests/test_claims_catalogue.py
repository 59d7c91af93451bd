"""Every registered claim, at quick size: it passes, and a ±5% mutation of its theory values
is rejected (a check that cannot fail is a defect).  One simulation per claim, judged three
times."""
import pytest

from numerics import registry
from numerics.claims.base import Settings, judge

CLAIMS = list(registry.claims().values())


@pytest.fixture(scope="module")
def evidence_cache():
    return {}


def _evidence(cache, claim):
    if claim.id not in cache:
        cache[claim.id] = claim.collect(Settings(mode="quick"))
    return cache[claim.id]


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_passes_at_quick_size(claim, evidence_cache):
    verdict = judge(_evidence(evidence_cache, claim), 0.0, claim)
    bad = [r for r in verdict.rows if not r.passed]
    assert verdict.passed, f"{claim.id} failed rows: {bad}"


@pytest.mark.parametrize("mutate", [0.05, -0.05])
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_rejects_mutation(claim, mutate, evidence_cache):
    verdict = judge(_evidence(evidence_cache, claim), mutate, claim)
    assert not verdict.passed, f"{claim.id}: a {mutate:+.0%} mutation of the theory was not caught"


def test_claim_metadata_is_complete():
    assert CLAIMS, "no claims registered"
    for c in CLAIMS:
        assert c.id.startswith(("A.", "B.")), c.id
        assert c.reference and c.statement, c.id
        assert c.status in ("paper", "derived", "erratum", "beyond"), c.id
        assert c.get_equations(), f"{c.id}: no equations for `attncheck latex`"
        if c.evaluate is not None:
            assert c.param_space is not None, f"{c.id}: evaluable claims need a param_space"
