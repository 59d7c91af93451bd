"""The power ratchet's own code (``numerics/claims/ratchet.py``) on made-up power runs: what a
row records, how two records compare, how a record is written, read and updated.  The checks
of every built-in claim against the committed record are in tests/test_power_ratchet.py; here
nothing runs a claim, so each test is milliseconds and a change of the ratchet's logic is
seen by name."""
import json
import math
from types import SimpleNamespace

import pytest

from numerics.claims import ratchet


def _row(label="r", through=0.02, allowance=1e-3, relative=0.02, absolute=0.5, rejects=None):
    return {"label": label, "relative": relative, "absolute": absolute, "through_outputs": through,
            "allowance": allowance, "rejects": dict(rejects or {})}


def _power(*rows, cid="X.claim"):
    return SimpleNamespace(id=cid, detectable=list(rows))


def test_rounding_keeps_six_digits_and_names_infinity():
    assert ratchet._round(0.123456789) == 0.123457
    assert ratchet._round(123456.789) == 123457.0
    assert ratchet._round(-2.5e-12) == -2.5e-12
    assert ratchet._round(math.inf) == "inf" and ratchet._round(-math.inf) == "inf"
    assert ratchet._round(None) is None
    assert ratchet._number("inf") == math.inf and ratchet._number(0.5) == 0.5 and ratchet._number(2) == 2.0


def test_an_entry_records_the_detectable_change_the_allowance_and_the_clear_rejections():
    rows = ratchet.entries(_power(
        _row("a", through=0.0123456789, allowance=4e-4, rejects={"m1": 1.5, "m2": 1.0005, "m3": 0.2}),
        _row("b", through=None, allowance=0.0),
        _row("z", relative=None, absolute=0.25, allowance=1e-6, rejects={"m4": 3.0})))
    assert rows[0] == {"label": "a", "detectable": 0.0123457, "allowance": 0.0004, "rejects": ["m1"]}
    assert rows[1] == {"label": "b", "detectable": "inf", "allowance": 0.0, "rejects": []}
    assert rows[2] == {"label": "z", "zero": True, "detectable": 0.25, "allowance": 1e-6, "rejects": ["m4"]}
    # compared rows keep every rejection, the record only the clear ones (margin MARGIN)
    every = ratchet.entries(_power(_row(rejects={"m2": 1.0005, "m1": 1.5, "m0": 1.0})), clear=0.0)[0]["rejects"]
    assert every == ["m1", "m2"]
    assert ratchet.entries(_power(_row(rejects={"m": 1 + 2 * ratchet.MARGIN})))[0]["rejects"] == ["m"]
    assert ratchet.entries(_power(_row(rejects={"m": 1 + ratchet.MARGIN})))[0]["rejects"] == []


def test_repeated_labels_are_keyed_by_occurrence():
    keyed = ratchet._keyed([{"label": "x", "i": 1}, {"label": "y", "i": 2}, {"label": "x", "i": 3},
                            {"label": "x", "i": 4}])
    assert list(keyed) == ["x", "y", "x #2", "x #3"] and keyed["x #3"]["i"] == 4 and keyed["x"]["i"] == 1


def _record(**kw):
    e = {"label": "r", "detectable": 0.02, "allowance": 1e-3, "rejects": ["m1"]}
    e.update(kw)
    return [e]


def test_a_row_within_the_margin_is_unchanged_and_beyond_it_worse_or_better():
    same = ratchet.compare(_record(), _power(_row(rejects={"m1": 2.0})))
    assert same.ok and same.worse == [] and same.better == [] and same.message() == ""
    for q, at in (("through", "detectable change of its output steps"), ("allowance", "allowance / |theory|")):
        base = {"through": 0.02, "allowance": 1e-3}
        for factor, ok in ((1 + ratchet.MARGIN / 2, True), (1 - ratchet.MARGIN / 2, True),
                           (1 + 2 * ratchet.MARGIN, False), (1 - 2 * ratchet.MARGIN, True)):
            ch = ratchet.compare(_record(), _power(_row(**{**base, q: base[q] * factor}, rejects={"m1": 2.0})))
            assert ch.ok is ok, (q, factor, ch.worse)
            if factor > 1 + ratchet.MARGIN:
                assert ch.worse == [f"'r': {at} grew from {ratchet._text(base[q] if q == 'through' else 1e-3)} "
                                    f"to {ratchet._text(ratchet._round(base[q] * factor))}"]
                assert ch.message() == f"X.claim: row {ch.worse[0]}"
            elif factor < 1 - ratchet.MARGIN:
                assert ch.better and f"'r': {at} fell from" in ch.better[0]
            else:
                assert not ch.better


def test_a_wider_margin_is_honoured():
    grown = _power(_row(through=0.021, rejects={"m1": 2.0}))
    assert not ratchet.compare(_record(), grown).ok
    assert ratchet.compare(_record(), grown, margin=0.1).ok


def test_a_lost_rejection_is_worse_and_a_new_one_better():
    lost = ratchet.compare(_record(), _power(_row(rejects={"m1": 0.9})))
    assert lost.worse == ["'r': no longer rejects m1"]
    gained = ratchet.compare(_record(), _power(_row(rejects={"m1": 2.0, "m2": 1.0001})))
    assert gained.ok and gained.better == ["'r': now rejects m2"]


def test_rows_that_disappear_appear_or_change_kind_are_worse():
    gone = ratchet.compare(_record() + [{"label": "s", "detectable": 0.1, "allowance": 0.0, "rejects": []}],
                           _power(_row(rejects={"m1": 2.0})))
    assert gone.worse == ["'s': disappeared"]
    new = ratchet.compare(_record(), _power(_row(rejects={"m1": 2.0}), _row("t")))
    assert new.worse == ["'t': new, not in the record"]
    became = ratchet.compare(_record(), _power(_row(relative=None, absolute=0.02, rejects={"m1": 2.0})))
    assert became.worse == ["'r': its theory value became 0"]
    no_longer = ratchet.compare(_record(zero=True), _power(_row(rejects={"m1": 2.0})))
    assert no_longer.worse == ["'r': its theory value is no longer 0"]
    missing = ratchet.compare(None, _power(_row()))
    assert not missing.ok and "X.claim is not in the record" in missing.worse[0]
    assert "--record-ratchet" in missing.worse[0]


def test_a_zero_row_compares_its_absolute_allowance_without_the_rounding_floor():
    rec = _record(zero=True, detectable=0.5, allowance=1e-18)
    ch = ratchet.compare(rec, _power(_row(relative=None, absolute=0.5, allowance=4e-18, rejects={"m1": 2.0})))
    assert not ch.ok and ch.worse == ["'r': allowance (absolute, theory 0) grew from 1e-18 to 4e-18"]
    ch = ratchet.compare(rec, _power(_row(relative=None, absolute=1.0, allowance=1e-18, rejects={"m1": 2.0})))
    assert ch.worse == ["'r': detectable change (absolute, theory 0) grew from 0.5 to 1"]


def test_an_infinite_detectable_change_is_compared_as_infinite():
    blind = ratchet.compare(_record(), _power(_row(through=None, rejects={"m1": 2.0})))
    assert blind.worse == ["'r': detectable change of its output steps grew from 0.02 to inf"]
    still = ratchet.compare(_record(detectable="inf"), _power(_row(through=None, rejects={"m1": 2.0})))
    assert still.ok and not still.better


def test_write_load_and_record(tmp_path):
    path = tmp_path / "r.json"
    ratchet.write({"B.two": _record(), "A.one": _record(label="é")}, path)
    text = path.read_text()
    assert text.index('"A.one"') < text.index('"B.two"') and "é" in text  # ids sorted, not escaped
    loaded = ratchet.load(path)
    assert loaded == {"schema": ratchet.SCHEMA, "mode": "quick", "seed": ratchet.SETTINGS.seed,
                      "margin": ratchet.MARGIN, "claims": {"A.one": _record(label="é"), "B.two": _record()}}
    assert json.loads(text) == loaded and text.endswith("}\n")
    assert sum(1 for line in text.splitlines() if '"label"' in line) == 2  # one row per line
    lines = ratchet.record({"B.two": _power(_row(through=0.04, rejects={"m1": 2.0}), cid="B.two"),
                            "C.new": _power(_row(), _row("s"), cid="C.new")}, ["B.two", "C.new"], path)
    assert lines == ["A.one: dropped (no such claim)",
                     "B.two: worse: row 'r': detectable change of its output steps grew from 0.02 to 0.04",
                     "C.new: recorded, 2 rows (not in the record before)"]
    after = ratchet.load(path)["claims"]
    assert set(after) == {"B.two", "C.new"} and after["B.two"][0]["detectable"] == 0.04
    assert ratchet.record({}, ["B.two", "C.new"], path) == ["no row changed"]
    assert ratchet.load(path)["claims"] == after
    fresh = tmp_path / "none.json"
    assert ratchet.record({"A.one": _power(_row(), cid="A.one")}, ["A.one"], fresh) == \
        ["A.one: recorded, 1 rows (not in the record before)"]


@pytest.mark.parametrize("x, text", [(0.0123456, "0.0123"), ("inf", "inf"), (2.0, "2")])
def test_quantities_are_named_in_three_digits(x, text):
    assert ratchet._text(x) == text
