"""What a user keeps of a verdict besides its rows: the design (``sizes``), the names of the
``details`` and the printed statement (its LaTeX, as ``attncheck latex`` prints it) of every
built-in claim at quick size and the default seed, recorded in ``tests/data/record_shape.json``.
A script that reads a record finds its keys where they were, and a statement pasted into a paper
is the one recorded; a renamed, duplicated or lost key, a design that changed (another d, trial
count or point) or a statement printed otherwise fails here naming the claim and what changed.
The rows themselves are the power ratchet's (``tests/test_power_ratchet.py``).  A deliberate
change is recorded with ``pytest tests/test_record_shape.py -n 0 --record-shape``."""
import json
from pathlib import Path

import pytest

from numerics import registry
from numerics.claims.runner import built_in

CLAIMS = [c for c in registry.claims().values() if built_in(c)]
RECORD = Path(__file__).parent / "data" / "record_shape.json"
HOW = "a deliberate change is recorded with `pytest tests/test_record_shape.py -n 0 --record-shape`"


def key_paths(x, prefix: str = "") -> list[str]:
    """Every key of the nested dicts of ``x`` as a path (``a/b``; ``[]`` for the items of a
    list), sorted."""
    out = set()
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(f"{prefix}/{k}")
            out.update(key_paths(v, f"{prefix}/{k}"))
    elif isinstance(x, (list, tuple)):
        for v in x:
            out.update(key_paths(v, f"{prefix}[]"))
    return sorted(out)


def shape(claim, evidence) -> dict:
    """The design as JSON (tuples as lists), the details' key paths and the printed statement."""
    from numerics.latex import statement_latex

    return {"sizes": json.loads(json.dumps(evidence.sizes, default=str)), "details": key_paths(evidence.details),
            "statement": statement_latex(claim)}


def _load() -> dict:
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


def test_the_record_is_of_every_built_in_claim(request):
    if request.config.getoption("--record-shape"):
        pytest.skip("recording")
    ids, recorded = {c.id for c in CLAIMS}, set(_load())
    assert ids == recorded, (f"registered, not recorded: {sorted(ids - recorded)}; recorded, not registered: "
                             f"{sorted(recorded - ids)} ({HOW})")


def _differences(old: dict, new: dict) -> list[str]:
    out = []
    for k in sorted(set(old["sizes"]) | set(new["sizes"])):
        a, b = old["sizes"].get(k, "(none)"), new["sizes"].get(k, "(none)")
        if a != b:
            out.append(f"sizes[{k!r}]: {a!r} -> {b!r}")
    out += [f"details key lost: {k}" for k in sorted(set(old["details"]) - set(new["details"]))]
    out += [f"details key new: {k}" for k in sorted(set(new["details"]) - set(old["details"]))]
    if old.get("statement") != new.get("statement"):
        out.append(f"statement printed {new.get('statement')!r}, recorded {old.get('statement')!r}")
    return out


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_the_design_and_the_details_keys_are_as_recorded(claim, quick_evidence, request):
    ev = quick_evidence(claim)
    assert not ev.error, f"{claim.id}: {ev.error}"
    new = shape(claim, ev)
    if request.config.getoption("--record-shape"):
        record = _load()
        record[claim.id] = new
        RECORD.write_text(json.dumps(dict(sorted(record.items())), indent=1, ensure_ascii=False) + "\n")
        return
    old = _load().get(claim.id)
    assert old is not None, f"{claim.id}: not in {RECORD.name} ({HOW})"
    diff = _differences(old, new)
    assert not diff, f"{claim.id}:\n  " + "\n  ".join(diff) + f"\n({HOW})"


def test_a_renamed_lost_or_new_key_and_a_changed_design_are_named():
    old = {"sizes": {"d": 16, "trials": 40}, "details": ["/a", "/a/b", "/c[]/x"]}
    new = {"sizes": {"d": 17, "n": 3}, "details": ["/a", "/A/b", "/c[]/x"]}
    assert _differences(old, old) == []
    assert _differences({**old, "statement": "a = b"}, {**old, "statement": "a = c"}) == [
        "statement printed 'a = c', recorded 'a = b'"]
    assert _differences(old, new) == ["sizes['d']: 16 -> 17", "sizes['n']: '(none)' -> 3",
                                      "sizes['trials']: 40 -> '(none)'", "details key lost: /a/b",
                                      "details key new: /A/b"]
    assert key_paths({"a": {"b": 1}, "c": [{"x": 1}, {"y": 2}], "d": (1, 2)}) == ["/a", "/a/b", "/c", "/c[]/x",
                                                                                 "/c[]/y", "/d"]
