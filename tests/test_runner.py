"""Verdict cache and process pool: the same records whatever the route."""
import json

from click.testing import CliRunner

from numerics.cli import main
from numerics import registry
from numerics.core import cache

CHEAP = ["B.coercivity.counterexample", "B.kl.bound"]
TIMING = ("elapsed_s", "cached")


def _records(args, env):
    res = CliRunner().invoke(main, ["verify", *CHEAP, "--json", *args], env=env)
    assert res.exit_code == 0, res.output
    recs = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    return recs


def _strip(recs):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in recs]


def test_workers_and_cache_give_identical_records(tmp_path):
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    one = _records(["--no-cache"], env)
    two = _records(["--no-cache", "--workers", "2"], env)
    assert _strip(one) == _strip(two)
    cold = _records([], env)
    warm = _records([], env)
    assert [r["cached"] for r in cold] == [False, False] and [r["cached"] for r in warm] == [True, True]
    assert _strip(cold) == _strip(warm) == _strip(one)
    assert cache.info()["entries"] >= 0


def test_a_derivation_change_reruns_exactly_the_claims_that_use_it():
    claims = registry.claims()
    uses = {cid: cache.dependencies(c.experiment.__module__) for cid, c in claims.items()}
    coercivity = {cid for cid, deps in uses.items() if "derivations.paper_b.coercivity" in deps}
    assert "B.coercivity.identity" in coercivity
    assert not any(cid.startswith("A.") for cid in coercivity)
    capacity = {cid for cid, deps in uses.items() if "derivations.paper_a.capacity" in deps}
    assert "A.capacity.ordering" in capacity and not any(cid.startswith("B.") for cid in capacity)


def test_cache_commands(tmp_path):
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    _records([], env)
    r = CliRunner().invoke(main, ["cache", "info", "--json"], env=env)
    assert r.exit_code == 0 and json.loads(r.output)["entries"] == len(CHEAP)
    r = CliRunner().invoke(main, ["cache", "clear"], env=env)
    assert r.exit_code == 0 and "removed 2" in r.output
