"""One renderer for the verdict and power tables (numerics/report_tables.py): the terminal, the
notebook, the HTML report and the PDF show the same rows, columns and digits, and no other
module writes a verdict or power table of its own."""
import ast
import pathlib
import re
from types import SimpleNamespace

import pytest

from numerics import report
from numerics.claims.base import Comparison, Evidence, Settings, judge
from numerics.report_tables import (FORMATS, Code, Mark, Number, Text, Z, detectable_table, power_table, render,
                                    verdict_table)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _verdict():
    ev = Evidence("T.table", [Comparison("q[L=10, a0=3]", 0.123456789, 0.1239, 0.00041, allowance=2.5e-5,
                                         at={"L": 10, "a0": 3}),
                              Comparison("negative", -1.5, -1.5)], Settings())
    return judge(ev)


def test_every_format_shows_the_same_rows_and_digits():
    v = _verdict()
    out = {fmt: render(verdict_table(v), fmt) for fmt in FORMATS}
    for fmt, text in out.items():
        plain = text.replace("\u2212", "-").replace("$-$", "-")
        for number in ("0.123457", "0.1239", "0.00041", "2.5e-05", "-1.5"):  # 6 digits, se and allowance 2
            assert number in plain, (fmt, number, text)
        assert len(re.findall(r"\bok\b", plain)) == 2, (fmt, text)
    assert out["html"].count("<tr>") == 3 and out["tex"].count(r"\\") >= 3


def test_the_notebook_the_report_and_the_terminal_use_it():
    import numerics.report_labels  # noqa: F401  (registers the notebook's table)

    v = _verdict()
    table = render(verdict_table(v), "html")
    assert table in v._repr_html_() and report._verdict_table(v) == table


def test_cells_in_each_format():
    assert [Number(-0.5).render(f) for f in FORMATS] == ["-0.5", "\u22120.5", "$-$0.5"]
    assert Number(None).render("html") == "—" and Number(None).render("tex") == "---"
    assert [Z(-1.234).render(f) for f in FORMATS] == ["-1.23", "\u22121.23", "$-$1.23"] and Z(None).render("text") == "exact"
    assert Mark(False, "killed", "ALIVE").render("tex") == r"\textbf{ALIVE}" and "fail" in Mark(False).render("html")
    assert Code("a.b_c").render("html") == "<code>a.b_c</code>" and r"\allowbreak" in Code("a.b_c").render("tex")
    assert Text("<x>").render("html") == "&lt;x&gt;" and Text("a_b").render("tex") == r"a\_b"
    with pytest.raises(ValueError, match="format must be one of"):
        render(verdict_table(_verdict()), "rtf")


def test_power_and_detectable_tables():
    m = SimpleNamespace(name="X.step:sign", description="a sign", killed=False, how="survived")
    d = {"label": "row[L=4]", "relative": 0.02, "through_outputs": 0.021, "absolute": 0.001, "sensitivity": 1.0,
         "allowance": 0.0, "rejects": ["X.step:sign"]}
    p = SimpleNamespace(mutants=[m], scaled={"+0.05": True}, detectable=[d])
    text = render(power_table(p), "text")
    assert text.splitlines()[0].split()[:2] == ["ALIVE", "X.step:sign"] and "killed" in text.splitlines()[1]
    assert "detects=0.021" in render(detectable_table(p), "text") and "rejects alone=1" in render(detectable_table(p), "text")


def test_no_other_module_writes_a_verdict_table():
    """The headers of the verdict table and the row markup appear only in the one renderer."""
    found = []
    for path in sorted((ROOT / "numerics").rglob("*.py")):
        if path.name == "report_tables.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    "<th>theory</th>" in node.value or "theory=" in node.value or "& theory &" in node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found
