"""The power ratchet (numerics/claims/ratchet.py): what every row of every built-in claim detects
at quick size is recorded in numerics/claims/power_ratchet.json, and a row that gets worse,
disappears or appears unrecorded fails, naming the claim and the row.  The rows are recomputed
from the session's own evidence and power runs (``quick_power``, shared with
tests/test_mutation_catalogue.py: one power run per claim and session).  The tests after the
ratchet itself apply the changes it exists to catch and expect it to fail."""
from dataclasses import replace

import pytest

from numerics import registry
from numerics.claims import ratchet
from numerics.claims.power import detectable, power
from numerics.claims.runner import built_in

CLAIMS = [c for c in registry.claims().values() if built_in(c)]
RECORD = ratchet.load()
HOW = "a deliberate change is recorded with `attncheck verify ID --power --record-ratchet`"


def test_the_record_is_of_every_built_in_claim_at_quick_size_and_the_default_seed():
    assert RECORD["schema"] == ratchet.SCHEMA
    assert (RECORD["mode"], RECORD["seed"]) == (ratchet.SETTINGS.mode, ratchet.SETTINGS.seed)
    assert RECORD["margin"] == ratchet.MARGIN
    ids = {c.id for c in CLAIMS}
    assert ids == set(RECORD["claims"]), (f"registered, not recorded: {sorted(ids - set(RECORD['claims']))}; "
                                          f"recorded, not registered: {sorted(set(RECORD['claims']) - ids)}")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_no_row_detects_less_than_recorded(claim, quick_power):
    p = quick_power(claim)
    assert not p.error, f"{claim.id}: {p.error}"
    change = ratchet.compare(RECORD["claims"].get(claim.id), p)
    assert change.ok, f"{change.message()}\n({HOW})"


# --- the changes the ratchet exists to catch ----------------------------------------------------
def _changed(p, evidence):
    """The power run ``p`` with its rows recomputed from ``evidence`` (changed at evidence
    level), keeping the sensitivities and rejections of ``p``'s own runs."""
    return replace(p, detectable=detectable(evidence, [d["sensitivity"] for d in p.detectable],
                                            [d["rejects"] for d in p.detectable]))


def _check(p) -> ratchet.Change:
    return ratchet.compare(RECORD["claims"][p.id], p)


def _share(d: dict, c) -> float:
    """How much of the row's detectable change (absolute) is its allowance: doubling the
    allowance grows the detectable change by this fraction."""
    return c.allowance / d["absolute"] if d["absolute"] else 0.0


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_doubled_allowances_fail_the_ratchet(claim, quick_evidence, quick_power):
    """Every allowance of the claim doubled (the experiment and theory as they are): a claim with
    an allowance above float rounding (``ratchet.ROUNDING`` of |theory|), or one that is more than
    twice the margin of its row's detectable change, fails the ratchet, naming the claim and a row
    whose allowance it was.  Allowances at rounding level that the detectable change does not feel
    leave the ratchet passing: doubling them changes no verdict."""
    ev, p = quick_evidence(claim), quick_power(claim)
    doubled = replace(ev, comparisons=[replace(c, allowance=2 * c.allowance) for c in ev.comparisons])
    change = _check(_changed(p, doubled))
    rows = list(zip(p.detectable, ev.comparisons))
    felt = {c.label for d, c in rows if c.allowance > 0 and (
        not c.theory or d["allowance"] > ratchet.ROUNDING or _share(d, c) > 2 * ratchet.MARGIN)}
    if felt:
        assert not change.ok, f"{claim.id}: every allowance doubled, and the ratchet passed"
        assert claim.id in change.message() and any(repr(label) in change.message() for label in felt)
    elif all(_share(d, c) < ratchet.MARGIN / 2 for d, c in rows):
        assert change.ok, change.message()


def test_the_ratchet_passes_on_the_unchanged_evidence(quick_evidence, quick_power):
    """The evidence-level recomputation of the tests here is the ratchet's own (the test above
    is not failing for a reason of its own)."""
    claim = registry.claims()["C.reference.theory"]
    assert _check(_changed(quick_power(claim), quick_evidence(claim))).ok


def test_a_disappeared_row_fails_the_ratchet(quick_evidence, quick_power):
    claim = registry.claims()["B.kl.bound"]
    ev = quick_evidence(claim)
    p = quick_power(claim)
    gone = ev.comparisons[1].label
    change = _check(replace(p, detectable=[d for d in p.detectable if d["label"] != gone]))
    assert not change.ok and f"{gone!r}: disappeared" in change.message()


def test_an_unrecorded_row_fails_the_ratchet(quick_evidence, quick_power):
    claim = registry.claims()["B.kl.bound"]
    ev = quick_evidence(claim)
    extra = replace(ev.comparisons[0], label="a row the record does not know")
    p = quick_power(claim)
    change = _check(_changed(replace(p, detectable=p.detectable + p.detectable[:1]),
                             replace(ev, comparisons=list(ev.comparisons) + [extra])))
    assert not change.ok and "'a row the record does not know': new, not in the record" in change.message()


def test_a_better_row_passes_the_ratchet(quick_evidence, quick_power):
    """A row whose experiment lands on the theory, and one that rejects one more mutant: both
    better, neither fails."""
    claim = registry.claims()["B.kl.bound"]
    ev, p = quick_evidence(claim), quick_power(claim)
    p = _changed(p, replace(ev, comparisons=[replace(ev.comparisons[0], mean=ev.comparisons[0].theory)]
                            + list(ev.comparisons[1:])))
    more = next(m for m in claim.mutants if m not in p.detectable[1]["rejects"])
    p.detectable[1]["rejects"][more] = 2.0
    change = _check(p)
    assert change.ok and len(change.better) == 2, change.better
    assert "detectable change of its output steps fell" in change.better[0] and more in change.better[1]


@pytest.fixture
def no_entry_left_behind(monkeypatch):
    """A test that tampers with the derivations' cache keys leaves no entry behind."""
    from derivations.core import derivation_caches_restored
    from numerics.claims import certified

    monkeypatch.setattr(certified, "_CERTIFIED", {})
    with derivation_caches_restored():
        yield
        monkeypatch.undo()


def test_a_memo_key_without_the_active_mutants_fails_the_ratchet(monkeypatch, no_entry_left_behind):
    """The derivations' cache key loses the active mutants (``derivation`` keys by
    ``active_mutants()``): a mutated run gets the true derivation's values from the cache, so the
    rows no longer follow the output steps nor reject the structural mutants."""
    import derivations.core as derivations_core

    claim = registry.claims()["B.kl.bound"]  # its theory is built by @derivation builders
    monkeypatch.setattr(derivations_core, "active_mutants", lambda: ())
    p = power(claim, ratchet.SETTINGS)  # the claim collected first, so the cache holds the true one
    change = _check(p)
    assert not change.ok
    for d in p.detectable:
        assert f"{d['label']!r}: detectable change of its output steps grew from" in change.message()
        assert f"{d['label']!r}: no longer rejects" in change.message()


def test_a_row_that_stops_following_its_output_step_fails_the_ratchet(quick_power):
    """One row's theory computed from the true derivation whatever mutant is active (as a theory
    value taken from a cache that ignores the mutants would be): that row fails the ratchet."""
    from derivations.core import unmutated

    claim = registry.claims()["B.kl.bound"]

    def experiment(settings, c):
        rows, sizes, details = claim.experiment(settings, c)
        with unmutated():  # the experiment comes from the memo: only the theory is recomputed
            true_rows, _, _ = claim.experiment(settings, c)
        return [replace(rows[0], theory=true_rows[0].theory)] + list(rows[1:]), sizes, details

    p = power(replace(claim, experiment=experiment), ratchet.SETTINGS)
    blind = p.detectable[0]["label"]
    change = _check(p)
    assert p.detectable[0]["sensitivity"] == 0
    assert not change.ok and f"{blind!r}: detectable change of its output steps grew from" in change.message()
    assert all(repr(d["label"]) not in change.message() for d in p.detectable[1:]), change.message()
    assert _check(quick_power(claim)).ok


def test_reference_phi_rows_with_the_overlap_accuracy_fail_the_ratchet(monkeypatch, quick_power):
    """C.reference.theory's two Phi rows given the tables' accuracy in the overlaps (5e-4)
    instead of its propagation to Phi: both fail the ratchet, and no other row does."""
    from numerics.claims.paper_c import reference

    claim = registry.claims()["C.reference.theory"]
    propagated = reference.table_accuracy
    monkeypatch.setattr(reference, "table_accuracy",
                        lambda key, g: reference.X_ACCURACY if key == "Phi" else propagated(key, g))
    ev = claim.collect(ratchet.SETTINGS)
    change = _check(_changed(quick_power(claim), ev))
    phi = [c.label for c in ev.comparisons if c.label.endswith(" Phi")]
    assert len(phi) == 2 and not change.ok
    for label in phi:
        assert f"{label!r}: detectable change of its output steps grew from" in change.message()
    assert all(repr(c.label) not in change.message() for c in ev.comparisons if c.label not in phi)


# --- recording a deliberate change ---------------------------------------------------------------
def test_the_record_command_writes_the_chosen_claims_and_says_what_changed(tmp_path, monkeypatch, quick_power):
    """``verify ID --power --record-ratchet`` rewrites that claim's rows, keeps the others', drops
    a claim that no longer exists, and prints each row that got worse or better."""
    import json

    from click.testing import CliRunner

    from numerics.claims import power as power_module
    from numerics.cli import main

    claim = registry.claims()["B.kl.bound"]
    old = json.loads(json.dumps(RECORD))
    rows = old["claims"][claim.id]
    rows[0]["detectable"] *= 2  # recorded worse than it is: now better
    rows[1]["detectable"] /= 2  # recorded better than it is: now worse
    old["claims"]["X.gone"] = rows[:1]
    path = tmp_path / "power_ratchet.json"
    path.write_text(json.dumps(old))
    monkeypatch.setattr(ratchet, "RECORD", path)
    monkeypatch.setattr(power_module, "power", lambda c, settings, **_: quick_power(c))  # the session's run of it
    out = CliRunner().invoke(main, ["verify", claim.id, "--power"])  # compared, not recorded
    assert out.exit_code == 0 and ratchet.load(path) == old, out.output
    assert f"RATCHET worse than recorded: {rows[1]['label']!r}: detectable change" in out.output
    assert out.output.count("RATCHET") == 1, out.output
    out = CliRunner().invoke(main, ["verify", claim.id, "--power", "--record-ratchet"])
    assert out.exit_code == 0, out.output
    new = ratchet.load(path)
    assert new["claims"][claim.id] == ratchet.entries(quick_power(claim))
    assert {k: v for k, v in new["claims"].items() if k != claim.id} == \
        {k: v for k, v in RECORD["claims"].items() if k != claim.id}
    text = out.output
    assert "X.gone: dropped (no such claim)" in text
    assert f"{claim.id}: better: row {rows[0]['label']!r}: detectable change of its output steps fell" in text
    assert f"{claim.id}: worse: row {rows[1]['label']!r}: detectable change of its output steps grew" in text


@pytest.mark.parametrize("args, says", [
    (["--record-ratchet"], "give --power too"),
    (["--power", "--record-ratchet", "--full"], "drop --full"),
    (["--power", "--record-ratchet", "--seed", "7"], "drop --seed"),
    (["--power", "--record-ratchet", "--dps", "40"], "drop --dps"),
])
def test_the_record_command_refuses_other_settings(args, says):
    from click.testing import CliRunner

    from numerics.cli import main

    out = CliRunner().invoke(main, ["verify", "B.kl.bound", *args])
    assert out.exit_code == 2 and says in out.output and len(out.output.strip().splitlines()) == 1, out.output


def test_paper_c_compiled_theory_keyed_without_the_mutants_fails_the_ratchet(monkeypatch):
    """The same for the compiled Paper C equations (``numerics.theory.paper_c.equations``, keyed
    by ``active_mutants()``): ``C.reference.theory``'s rows stop following its output step."""
    from numerics.claims.paper_c import reference
    from numerics.theory.paper_c import equations

    caches = (equations._compiled, equations._reported, equations._sensitivity, reference._solutions,
              reference._alone)  # the compiled theory and the solves computed from it

    def clear():
        for f in caches:
            f.cache_clear()

    claim = registry.claims()["C.reference.theory"]
    clear()
    try:
        with monkeypatch.context() as m:
            m.setattr(equations, "active_mutants", lambda: ())
            p = power(claim, ratchet.SETTINGS)
    finally:
        clear()
    change = _check(p)
    assert not change.ok
    for d in p.detectable:
        assert f"{d['label']!r}: detectable change of its output steps grew from" in change.message()


# --- rounding-level allowances -------------------------------------------------------------------
def _one_row(allowance: float, detectable: float, recorded_allowance: float, recorded_detectable: float):
    from types import SimpleNamespace
    p = SimpleNamespace(id="X.row", detectable=[{"label": "r", "relative": detectable, "sensitivity": 1.0,
                                                 "through_outputs": detectable, "allowance": allowance,
                                                 "rejects": {}}])
    rec = [{"label": "r", "detectable": recorded_detectable, "allowance": recorded_allowance, "rejects": []}]
    return ratchet.compare(rec, p)


def test_an_allowance_at_rounding_level_compares_as_equal_and_a_larger_one_does_not():
    assert _one_row(3.07e-16, 0.02, 0.0, 0.02).ok  # a last bit of another CPU
    assert _one_row(1.13e-13, 0.02, 8.45e-14, 0.02).ok
    grown = _one_row(2e-9, 0.02, 1e-9, 0.02)  # a doubled allowance above rounding
    assert not grown.ok and "allowance / |theory| grew from 1e-09 to 2e-09" in grown.message()
    loosened = _one_row(ratchet.ROUNDING * 10, 0.02, 0.0, 0.02)
    assert not loosened.ok
    # an exact check whose allowance is its whole tolerance: the detectable change still shows it
    exact = _one_row(1e-13, 1e-13, 1e-21, 1e-21)
    assert not exact.ok and "detectable change of its output steps grew" in exact.message()
