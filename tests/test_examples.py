"""The worked example of docs/adding-a-claim.md: a claim from outside the package passes, and
every one of its structural mutants and a ±5 % change of its theory fail it."""
import json
import pathlib

import pytest
from click.testing import CliRunner

from numerics.claims.base import Settings, judge
from numerics.claims.power import power
from numerics.cli import main
from numerics import registry

EXAMPLE = str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "ridge_claim.py")


@pytest.fixture
def with_example():
    registry.add_claims_file(EXAMPLE)
    yield registry.claims()["X.ridge.test_error"]
    registry.EXTRA_FILES.remove(EXAMPLE)
    registry.claims.cache_clear()


def test_example_claim_passes_and_every_mutant_is_killed(with_example):
    claim = with_example
    assert judge(claim.collect(Settings()), 0.0, claim).passed
    p = power(claim, Settings())
    assert len(p.mutants) >= 2 and all(m.killed for m in p.mutants), p.mutants
    assert all(p.scaled.values()) and p.scale_exact


def test_example_from_the_command_line(tmp_path):
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    r = CliRunner().invoke(main, ["verify", "--claims", EXAMPLE, "X.ridge", "--power", "--json"], env=env)
    try:
        assert r.exit_code == 0, r.output
        rec = json.loads(r.stdout.splitlines()[0])
        assert rec["schema"] == "attncheck.power/1" and rec["all_killed"]
        r = CliRunner().invoke(main, ["eval", "--claims", EXAMPLE, "X.ridge.test_error", "--param", "gamma=2",
                                      "--dps", "40"])
        assert r.exit_code == 0 and "risk = 0.890388203202207568727676" in r.output, r.output
    finally:
        if EXAMPLE in registry.EXTRA_FILES:
            registry.EXTRA_FILES.remove(EXAMPLE)
            registry.claims.cache_clear()


def test_bad_claim_files_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    for path in (str(bad), str(tmp_path / "missing.py"), str(tmp_path)):
        r = CliRunner().invoke(main, ["list", "--claims", path])
        assert r.exit_code == 2 and r.output.count("\n") == 1, r.output


def test_a_plugin_of_the_older_claims_group_is_still_discovered(monkeypatch):
    """A plugin installed before papers were objects (group ``attncheck.claims``: a module with a
    CLAIMS list and a FIGURES dict) registers as a paper without a prefix, beside the papers."""
    class EP:
        name, value = "ridge", "examples.ridge_claim"

        def load(self):
            return registry._load_file(EXAMPLE)

    import importlib.metadata as md

    installed = md.entry_points
    monkeypatch.setattr(md, "entry_points", lambda group=None: [EP()] if group == registry.LEGACY_GROUP
                        else installed(group=group))
    registry.claims.cache_clear()
    registry.figures.cache_clear()
    try:
        assert "X.ridge.test_error" in registry.claims() and "A.thm3.q2_cosine" in registry.claims()
        assert "X.ridge.curve" in registry.figures()
        wrapped, = [p for p in registry.papers() if not p.prefix]
        assert wrapped.title == "entry point 'ridge' (examples.ridge_claim)"
    finally:
        monkeypatch.undo()
        registry.claims.cache_clear()
        registry.figures.cache_clear()


def test_the_worked_example_is_explored_from_its_point_space(with_example):
    """`explore --claims examples/ridge_claim.py`: points from the example's declaration."""
    from click.testing import CliRunner

    from numerics.cli import main

    out = CliRunner().invoke(main, ["explore", "--claims", EXAMPLE, "X.ridge.test_error", "--examples", "2",
                                    "--shrinks", "0", "--seed", "4"])
    assert out.exit_code == 0 and out.stdout.startswith("PASS X.ridge.test_error") and "2 points" in out.stdout, \
        out.output
