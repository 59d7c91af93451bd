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
