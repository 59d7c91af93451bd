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
           "numerics/benchmarks", "numerics/cli", "numerics/request"]
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


# --- hand-written model facts -------------------------------------------------------------------
# A model fact is a derivation step too: which class gets weight pi, which class carries the
# theta shift, which loss or model a branch is for.  ``numerics/theory`` reads them from the
# steps (``erm_equations.class_law``, the loss and model objects of ``derivations.paper_a``);
# the rest of ``numerics`` asks the objects (``numerics.theory.paper_a.models``) or, in the
# simulators, the enums of ``numerics.experiments.paper_a.models``, and never compares names.
FACT_SCANNED = ["numerics/theory"]
NAME_SCANNED = ["numerics"]
PRIOR_NAMES = {"pi", "pi_", "prior", "pi_plus", "p_plus"}
SHIFT_NAMES = {"theta", "th"}
MODEL_WORDS = {"logistic", "square", "attention", "pool", "pooled", "vec", "vectorised", "vectorized"}


def _names_in(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_one_minus_prior(node) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.left, ast.Constant)
            and node.left.value == 1 and isinstance(node.right, ast.Name) and node.right.id in PRIOR_NAMES)


def _fact_offences(path: pathlib.Path):
    """``1 - pi`` (a class weight written by hand) and ``x += theta`` (a class shift written by
    hand) in the theory layer."""
    for node in ast.walk(ast.parse(path.read_text())):
        if _is_one_minus_prior(node):
            yield f"{_name(path)}:{node.lineno} class weight {ast.unparse(node)}"
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)) \
                and _names_in(node.value) & SHIFT_NAMES:
            yield f"{_name(path)}:{node.lineno} theta shift {ast.unparse(node)}"


def _name_offences(path: pathlib.Path):
    """A comparison of anything with the name of a loss or a model (== / != / in)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        consts = []
        for o in operands:
            if isinstance(o, ast.Constant):
                consts.append(o.value)
            elif isinstance(o, (ast.Tuple, ast.List, ast.Set)):
                consts += [e.value for e in o.elts if isinstance(e, ast.Constant)]
        if any(isinstance(v, str) and v in MODEL_WORDS for v in consts):
            yield f"{_name(path)}:{node.lineno} name comparison {ast.unparse(node)}"


def _py_files(entries):
    for entry in entries:
        p = ROOT / entry
        yield from ([p] if p.is_file() else sorted(p.rglob("*.py")))


@pytest.mark.parametrize("path", list(_py_files(FACT_SCANNED)), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hand_written_model_fact(path):
    bad = list(_fact_offences(path))
    assert not bad, "model facts outside derivations/ (read them from a step): " + "; ".join(bad)


@pytest.mark.parametrize("path", list(_py_files(NAME_SCANNED)), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_loss_or_model_name_compared(path):
    bad = list(_name_offences(path))
    assert not bad, "a loss or model chosen by its name (ask the object): " + "; ".join(bad)


def test_the_fact_scan_sees_hand_written_facts(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("def f(pi, theta, g, loss, model):\n"
                   "    w = (pi, 1 - pi)\n"
                   "    g[:, 0] += theta\n"
                   "    if loss == 'square':\n        pass\n"
                   "    return model in ('pool', 'vec')\n")
    assert len(list(_fact_offences(src))) == 2
    assert len(list(_name_offences(src))) == 2
