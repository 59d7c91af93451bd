"""Every registered claim, at quick size: it passes, and a ±5% mutation of its theory values
is rejected (a check that cannot fail is a defect).  One simulation per claim for the whole
test session, judged three times (``quick_evidence`` in tests/conftest.py: collected by
whichever process of ``pytest -n N`` asks first, read from its file by the others)."""
import pytest

from numerics import registry
from numerics.claims.base import judge

CLAIMS = list(registry.claims().values())


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_passes_at_quick_size(claim, quick_evidence):
    verdict = judge(quick_evidence(claim), 0.0, claim)
    bad = [r for r in verdict.rows if not r.passed]
    assert verdict.passed, f"{claim.id} failed rows: {bad}"


@pytest.mark.parametrize("mutate", [0.05, -0.05])
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_rejects_mutation(claim, mutate, quick_evidence):
    verdict = judge(quick_evidence(claim), mutate, claim)
    assert not verdict.passed, f"{claim.id}: a {mutate:+.0%} mutation of the theory was not caught"


def test_claim_metadata_is_complete():
    assert CLAIMS, "no claims registered"
    prefixes = tuple(p.prefix + "." for p in registry.papers() if p.prefix)
    for c in CLAIMS:
        assert c.id.startswith(prefixes), c.id
        assert c.reference and c.statement, c.id
        assert c.status in ("paper", "derived", "erratum", "beyond"), c.id
        assert c.get_equations(), f"{c.id}: no equations for `attncheck latex`"
        if c.evaluate is not None:
            assert c.param_space is not None, f"{c.id}: evaluable claims need a param_space"


def test_parametric_excess_rows_reject_the_naive_counts(quick_evidence):
    """B.rate.d_independence's excess rows are not vacuous: with the theory replaced by the
    naive parameter count p = 2d - 2 or by the zero-conditional-mean value (N - 1) p (what
    V_A would be if every tangent direction attained Lemma 3.4's constant) they fail — the
    latter at d = 30 (at d = 5, 24 vs 18.5 is inside the quick row's tolerance of ~6.5)."""
    from dataclasses import replace

    claim = registry.claims()["B.rate.d_independence"]
    ev = quick_evidence(claim)
    excess = {r.label for r in ev.comparisons if "excess" in r.label}
    must_fail = {"naive_count_p": excess,
                 "zero_conditional_mean_value_(N-1)p": {r for r in excess if r.startswith("d=30")}}
    for key, expected in must_fail.items():
        rows = []
        for row in ev.comparisons:
            if "excess" in row.label:
                d = row.label.split()[0]
                row = replace(row, theory=float(ev.details[f"excess {d}"][key]))
            rows.append(row)
        verdict = judge(replace(ev, comparisons=rows), 0.0, claim)
        failed = {r.label for r in verdict.rows if not r.passed}
        assert expected and failed >= expected, (key, failed)
