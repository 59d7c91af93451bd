"""Reproducibility: the same seed gives byte-identical verdict records (timing fields and cache
flags aside) on repeated runs, in a fresh process, for a claim run alone or inside its family,
with one worker or two; a different seed gives different draws; every verdict records the
package versions.  Cheap claims only (the B.coercivity family, one A.thm3 claim in process)."""
import json
import os
import subprocess
import sys

import pytest

from numerics.claims.base import Settings, clear_memo, judge
from numerics import registry

FAMILY = "B.coercivity"
MEMBER = "B.coercivity.identity"
#: fields that are allowed to differ between two runs of the same request
VOLATILE = ("elapsed_s", "cached")


def _stable(record: dict) -> str:
    """The record without its timing fields and cache flags, as canonical JSON text."""

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in VOLATILE and "elapsed" not in k}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(record), sort_keys=True)


def _verify(*args) -> dict:
    """``attncheck verify ARGS --json --no-cache`` in a fresh process: {id: stable record}."""
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    out = subprocess.run([sys.executable, "-m", "numerics.cli", "verify", *args, "--json", "--no-cache"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return {r["id"]: _stable(r) for r in recs}


@pytest.fixture(scope="module")
def family_run():
    return _verify(FAMILY)


def test_fresh_processes_give_identical_records(family_run):
    again = _verify(FAMILY)
    assert set(again) == set(family_run) and len(again) >= 2
    for cid in again:
        assert again[cid] == family_run[cid], cid


def test_alone_and_inside_its_family(family_run):
    alone = _verify(MEMBER)
    assert alone[MEMBER] == family_run[MEMBER]


def test_one_worker_or_two(family_run):
    pooled = _verify(FAMILY, "--workers", "2")
    assert pooled == family_run


def test_alone_and_inside_its_family_in_process():
    """A.thm3.w1_alignment alone (its simulation computed for it) and after A.thm3.q2_cosine
    (the simulation reused from the experiment memo): the same record."""
    claims = registry.claims()
    s = Settings(mode="quick")
    clear_memo()
    alone = _stable(judge(claims["A.thm3.w1_alignment"].collect(s), 0.0, claims["A.thm3.w1_alignment"]).to_json())
    clear_memo()
    claims["A.thm3.q2_cosine"].collect(s)
    inside = _stable(judge(claims["A.thm3.w1_alignment"].collect(s), 0.0, claims["A.thm3.w1_alignment"]).to_json())
    clear_memo()
    assert alone == inside


def test_different_seeds_give_different_draws():
    claim = registry.claims()[MEMBER]
    a, b = (claim.collect(Settings(mode="quick", seed=seed)) for seed in (1, 2))
    assert [c.theory for c in a.comparisons] == [c.theory for c in b.comparisons]
    drawn = [(x, y) for x, y in zip(a.comparisons, b.comparisons) if x.se > 0]  # the Monte Carlo rows
    assert drawn and all(x.mean != y.mean for x, y in drawn)
    assert a.seed_paths != b.seed_paths


def test_every_verdict_records_the_package_versions(family_run):
    for text in family_run.values():
        versions = json.loads(text)["versions"]
        for pkg in ("python", "numpy", "scipy", "sympy", "mpmath", "attncheck"):
            assert versions.get(pkg) and versions[pkg] != "absent", (pkg, versions)
