"""The Python API: the CLI's names, values at the requested precision, typed errors."""
import mpmath
import pytest

import attncheck
from numerics.core.params import ParameterError


def test_evaluate_at_requested_precision_whatever_the_global_dps():
    with mpmath.workdps(15):
        v = attncheck.evaluate("B.rate.exponent", beta=2, M=10000, dps=50)
        text = str(v["K_star"])
    assert len(text.replace(".", "").lstrip("0")) >= 50
    assert float(v["exponent"]) == pytest.approx(-0.8)
    s = attncheck.evaluate("B.rate.exponent", beta=2, M=10000, dps=20, as_strings=True)
    assert s["exponent"] == "-0.80000000000000000000"


def test_verify_and_simulate_and_notebook_reprs():
    (v,) = attncheck.verify("B.kl.bound", cache=False)
    assert v.passed and "<table>" in v._repr_html_()
    ev = attncheck.simulate("B.kl.bound")
    assert ev.comparisons and ev.seed_paths
    eq = attncheck.equations("B.kl.bound")[0]
    assert eq._repr_latex_().startswith("$")
    assert "\\begin{equation}" in attncheck.latex("B.kl")


def test_bad_input_is_a_parameter_error():
    with pytest.raises(ParameterError, match="unknown claim"):
        attncheck.evaluate("nope")
    with pytest.raises(ParameterError, match="beta"):
        attncheck.evaluate("B.rate.exponent", beta=-1)
    with pytest.raises(ParameterError, match="dps"):
        attncheck.evaluate("B.rate.exponent", dps=1)
    with pytest.raises(ParameterError, match="problem"):
        attncheck.solve("nope")


def test_report_writes_html_and_refuses_other_suffixes(tmp_path):
    out = attncheck.report("B.kl.bound", tmp_path / "r.html", power=False, figures=False, cache=False)
    text = open(out, encoding="utf-8").read()
    assert "B.kl.bound" in text and "<math" in text
    with pytest.raises(ParameterError, match="html or .pdf"):
        attncheck.report("B.kl.bound", tmp_path / "r.txt")


def test_verify_at_two_points_in_one_process_gives_each_point_its_own_evidence(monkeypatch):
    """``verify(params=...)`` at two points in one process, as a notebook does, gives each
    point the evidence (rows, theory, mean, se) it gets alone with a fresh experiment memo: the
    memo's key holds the point (``numerics.claims.base.memo``).  A.grad.q2 at L = 2 is the
    cheapest claim whose experiment key does not name the point itself (about 2 s)."""
    from numerics.claims import base

    points = ({"L": 2, "theta": 1.0}, {"L": 2, "theta": 2.0})

    def evidence(point):
        (v,) = attncheck.verify("A.grad.q2", params=point, workers=1)
        return v.word, [(r.label, r.theory, r.mean, r.se) for r in v.rows]

    monkeypatch.setattr(base, "_MEMO", {})
    together = [evidence(p) for p in points]
    alone = []
    for p in points:
        monkeypatch.setattr(base, "_MEMO", {})
        alone.append(evidence(p))
    assert together[0][1] != together[1][1]  # the points differ, so a shared entry would show
    assert together == alone
    assert [word for word, _ in together] == ["PASS", "PASS"]


def test_memo_computes_each_parameter_point_once():
    """The experiment memo keys on the settings' parameter point: the same key at two points is
    two computations, at one point one."""
    from numerics.claims.base import Settings, memo

    calls = []

    def compute(tag):
        calls.append(tag)
        return tag

    at = {a: Settings(params=(("alpha0", a),)) for a in (2.0, 4.0)}
    assert memo(at[2.0], ("memo key test",), lambda: compute(2.0)) == 2.0
    assert memo(at[4.0], ("memo key test",), lambda: compute(4.0)) == 4.0
    assert memo(at[2.0], ("memo key test",), lambda: compute("again")) == 2.0
    assert calls == [2.0, 4.0]


def test_verdicts_and_power_are_tidy_tables():
    """``attncheck.verify(...).to_pandas()``: one row per compared row; ``power(...).to_pandas()``:
    one row per mutant and per output scaling; the values are the verdict's own."""
    pytest.importorskip("pandas", reason="pip install 'attncheck[tables]'")
    import attncheck

    vs = attncheck.verify("B.kl.bound")
    df = vs.to_pandas()
    (v,) = vs
    assert len(df) == len(v.rows) >= 2 and list(df["claim"].unique()) == ["B.kl.bound"]
    assert list(df["row"]) == [r.label for r in v.rows] and list(df["z"]) == [r.z for r in v.rows]
    assert df["passed"].all() and df["error"].isna().all()
    pytest.importorskip("xarray", reason="pip install 'attncheck[tables]'")
    ds = vs.to_xarray()
    assert [ds["experiment"].sel(claim="B.kl.bound", row=r.label).item() for r in v.rows] == [r.mean for r in v.rows]
    p = attncheck.power("B.kl.bound")
    pt = p.to_pandas()
    assert list(pt["mutant"]) == [m.name for m in p.mutants] + ["scale +0.05", "scale -0.05"]
    assert pt["killed"].all()
