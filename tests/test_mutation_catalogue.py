"""Every claim fails under every structural mutant of its own derivation, and under a ±5 %
scaling of its theory values applied at the derivation's output steps (so that every allowance
is recomputed as the claim computes it).  The experiment is collected once per claim (the
claims' memo); only the theory is recomputed under each mutant.  The unmutated evidence is
the session's (``quick_evidence``: the one test_claims_catalogue.py judges), and so is the
power run (``quick_power``: the one the power ratchet, tests/test_power_ratchet.py, reads)."""
import pytest

from derivations.core import all_mutants
from numerics.claims.base import Settings
from numerics.claims.power import power
from numerics import registry

CLAIMS = list(registry.claims().values())
SETTINGS = Settings(mode="quick")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_declares_mutants_and_outputs(claim):
    table = all_mutants()
    assert len(claim.mutants) >= 2, f"{claim.id}: at least two structural mutants of its derivation"
    unknown = [m for m in claim.mutants if m not in table]
    assert not unknown, f"{claim.id}: unknown mutants {unknown}"
    assert claim.outputs, f"{claim.id}: no output steps to scale (the ±5 % test needs them)"


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_every_mutant_is_killed(claim, quick_power):
    p = quick_power(claim)
    assert not p.error, f"{claim.id}: {p.error}"
    alive = [(m.name, m.how) for m in p.mutants if not m.killed]
    assert not alive, f"{claim.id}: mutants survived {alive}"
    assert all(p.scaled.values()), f"{claim.id}: a ±5 % change of the theory passed: {p.scaled}"
    assert p.scale_exact, f"{claim.id}: scaling its output steps did not scale its theory values"


def test_mutant_names_are_unique_and_described():
    table = all_mutants()
    assert table
    for name, m in table.items():
        assert name == m.name and m.description and m.step, name


def test_power_takes_only_the_claims_own_evidence():
    from numerics.claims.base import Evidence

    claim = registry.claims()["B.kl.bound"]
    for ev in (Evidence("A.thm1.linear_threshold", [], SETTINGS), Evidence(claim.id, [], Settings(mode="full"))):
        with pytest.raises(ValueError, match="B.kl.bound"):
            power(claim, SETTINGS, evidence=ev)
