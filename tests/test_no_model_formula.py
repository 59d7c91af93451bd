"""No model formula outside the compiled-derivation layer.

Every theory value must come from ``derivations/`` (SymPy) through the compiled backends.  A
model formula written by hand in ``numerics/`` would not be checked: if the derivation were
wrong, the claim would still pass.  A hand-written formula of these models needs the special
functions of Gaussian and logistic calculus (exp, log1p, erf, erfc, Phi, the normal density,
the logistic sigmoid, softplus ...), so the test scans the layers that compute or judge theory
(``theory/``, ``claims/``, ``figures/``, ``problems/``, ``benchmarks/``, ``cli.py``) for calls
of those functions from numpy, scipy, math or mpmath.  ``core/`` (generic quadrature, sampling
and statistics) and ``experiments/`` (the simulators, which must implement the model and never
see the derivation) are not scanned.  Arithmetic, ``sqrt`` and ``log`` stay allowed: standard
errors, allowances and log-log slopes need them.  See ``docs/claims.md``, "One source"."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCANNED = ["numerics/theory", "numerics/claims", "numerics/figures", "numerics/problems",
           "numerics/benchmarks", "numerics/cli", "numerics/requests.py"]
FORBIDDEN = {"exp", "expm1", "log1p", "erf", "erfc", "erfcx", "erfinv", "erfcinv", "ndtr", "ndtri",
             "log_ndtr", "expit", "log_expit", "logit", "logaddexp", "logaddexp2", "softplus",
             "npdf", "ncdf", "cdf", "pdf", "logcdf", "logpdf", "sf", "logsf", "isf", "ppf",
             "tanh", "sinh", "cosh", "gamma", "gammaln", "loggamma", "beta", "betainc", "owens_t",
             "besselk", "besseli", "kv", "iv", "sin", "cos", "arctan", "atan"}
MODULES = {"np", "numpy", "math", "mpmath", "mp", "scipy", "special", "sc", "norm", "stats", "sps"}


def _files():
    for entry in SCANNED:
        p = ROOT / entry
        yield from ([p] if p.is_file() else sorted(p.rglob("*.py")))


def _name(path: pathlib.Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _offences(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in (
                "numpy", "scipy", "math", "mpmath"):
            imported |= {a.asname or a.name for a in node.names if a.name in FORBIDDEN}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in FORBIDDEN:
            root = f.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in MODULES:
                yield f"{_name(path)}:{node.lineno} {ast.unparse(f)}"
        elif isinstance(f, ast.Name) and f.id in imported:
            yield f"{_name(path)}:{node.lineno} {f.id}"


@pytest.mark.parametrize("path", list(_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hand_written_model_formula(path):
    bad = list(_offences(path))
    assert not bad, "model formulas outside derivations/ (compile them from SymPy): " + "; ".join(bad)


def test_the_scan_sees_a_formula(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("import numpy as np\nfrom scipy.special import erfc\n"
                   "def f(t):\n    return 0.5 * erfc(t) + np.exp(-t)\n")
    assert len(list(_offences(src))) == 2
