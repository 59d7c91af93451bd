"""The example notebook (a jupytext script) runs from top to bottom without an error."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_tour_notebook_executes(tmp_path):
    jupytext = pytest.importorskip("jupytext", reason="pip install 'attncheck[test]' (jupytext)")
    nbclient = pytest.importorskip("nbclient", reason="pip install 'attncheck[test]' (nbclient)")
    nb = jupytext.read(ROOT / "examples" / "tour.py")
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert html and "<table>" in html[0]["data"]["text/html"]


def test_tour_run_as_a_script_prints_what_the_notebook_shows(tmp_path):
    """``python examples/tour.py``: the verdict and its rows, 50 digits, the mutants, the table."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tour.py")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Verdict('B.kl.bound', PASS" in text and ": theory " in text and "(ok)" in text, text
    assert "K* = 5.340191882322086823442434678888231309386235706031" in text
    assert "('B.kl.gaussian:no_half', True)" in text
    assert "beta  exponent" in text and len([ln for ln in text.splitlines() if "-0.8" in ln]) >= 1
