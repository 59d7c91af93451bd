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
