"""The third paper of examples/third_paper (the spiked sample covariance) goes through the
public extension points only: installed in a fresh virtual environment as a package of its
own, attncheck finds its claims through their entry point (and certifies them: their evaluators run
under ball arithmetic), the claims pass
and every structural mutant of its derivation is killed (``verify --power``).

The install is offline: the new environment sees the packages of this one (a ``.pth`` file
adding its site-packages), and pip builds the example with ``--no-deps --no-build-isolation``.
"""
import ast
import dataclasses
from types import SimpleNamespace
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import venv

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "third_paper"
IDS = ("S.bbp.outlier", "S.bbp.overlap", "S.mp.edge")
#: the console script ``attncheck`` of the installed distribution, run as a user runs it
ATTNCHECK = ("import sys; from importlib.metadata import entry_points; "
             "(ep,) = entry_points(group='console_scripts', name='attncheck'); "
             "sys.argv[0] = 'attncheck'; sys.exit(ep.load()())")


def _entry_points_text() -> str:
    return (EXAMPLE / "pyproject.toml").read_text()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the example installed from a copy of its sources: (python, env)."""
    tmp = tmp_path_factory.mktemp("third_paper")
    src = tmp / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    pathlib.Path(target, "_attncheck_parent.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(tmp / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [str(python), "-m", "pip", "install", "-q", "--no-deps"]
    r = subprocess.run(pip + ["--no-build-isolation", "--no-index", str(src)], capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:  # this environment cannot build it (setuptools < 77): let pip fetch the backend
        r = subprocess.run(pip + [str(src)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return python, env


def _attncheck(installed, *args):
    python, env = installed
    return subprocess.run([str(python), "-c", ATTNCHECK, *args], capture_output=True, text=True, env=env,
                          timeout=240)


def test_installed_package_passes_and_every_mutant_is_killed(installed, tmp_path):
    # its PAPER, through the installed entry point beside attncheck's own: claims and figure
    r = _attncheck(installed, "list")
    assert r.returncode == 0 and {ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith("S.")} == set(IDS)
    assert any(ln.startswith("A.") for ln in r.stdout.splitlines()), r.stdout
    r = _attncheck(installed, "figure", "S.bbp.curve", "-o", str(tmp_path / "curve.png"))
    assert r.returncode == 0 and (tmp_path / "curve.png").stat().st_size > 0, r.stdout + r.stderr
    r = _attncheck(installed, "verify", "S", "--power", "--quick", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    power = {rec["id"]: rec for rec in recs if rec.get("schema") == "attncheck.power/1"}
    assert set(power) == set(IDS), r.stdout
    for cid, rec in power.items():
        assert len(rec["mutants"]) >= 2, cid
        assert all(m["killed"] and m["applied"] for m in rec["mutants"]), (cid, rec["mutants"])
        assert all(rec["scaled"].values()) and rec["scale_exact"] and rec["all_killed"], (cid, rec)
    # printed in its own notation, declared in its own pyproject.toml
    r = _attncheck(installed, "latex", "S.mp.edge", "--body")
    assert r.returncode == 0 and r"\lambda_{+} = \ell_{c}^{2} + 2 \ell_{c} + 1" in r.stdout, r.stdout + r.stderr
    assert "plus" not in r.stdout
    # certifiable by its own evaluator: a ball around the derivation's value
    r = _attncheck(installed, "eval", "S.mp.edge", "--certify", "--param", "gamma=2", "--dps", "40", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    ball = json.loads(r.stdout)["values"]["edge"]
    assert ball["digits"].startswith("5.82842712474619009760337744841939615")  # 3 + 2 sqrt 2
    assert float(ball["rad"]) < 1e-37


# --- in process, cheap: the same claims through the registry's entry-point path ------------------
@pytest.fixture
def plugin(monkeypatch):
    """The example's entry points, as importlib.metadata would list them once it is installed."""
    import importlib.metadata as md
    import tomllib

    import derivations.core as core
    from numerics import registry
    from numerics.theory import certify

    monkeypatch.syspath_prepend(str(EXAMPLE))
    groups = tomllib.loads(_entry_points_text())["project"]["entry-points"]
    installed = md.entry_points  # attncheck's own papers, from the same group

    def entry_points(group=None, **kw):
        return [*installed(group=group, **kw),
                *[md.EntryPoint(name, value, group) for name, value in groups.get(group, {}).items()]]

    monkeypatch.setattr(md, "entry_points", entry_points)
    memos = (registry.claims, registry.figures, registry.problems, registry.benchmarks, core.notation_tables,
             core.papers_notation)
    for memo in memos:
        memo.cache_clear()
    try:
        yield registry, certify
    finally:
        monkeypatch.undo()
        for memo in memos:
            memo.cache_clear()


def test_the_paper_registers_its_claims_and_figure_through_the_entry_point(plugin):
    """The package's one PAPER (prefix S), read from the entry-point group attncheck's own papers
    are read from: its claims, and the figure two of them name."""
    registry, _ = plugin
    paper, = [p for p in registry.papers() if p.prefix == "S"]
    assert {"A", "B", "C", "S"} <= {p.prefix for p in registry.papers()}
    assert [c.id for c in paper.get_claims()] == list(IDS) and set(paper.get_figures()) == {"S.bbp.curve"}
    claims, figures = registry.claims(), registry.figures()
    assert set(IDS) <= set(claims) and "S.bbp.curve" in figures and "A.fig1" in figures
    assert [cid for cid in IDS if "S.bbp.curve" in claims[cid].figures] == ["S.bbp.outlier", "S.mp.edge"]


def test_claims_certifiers_and_latex_through_the_entry_points(plugin):
    registry, certify = plugin
    from numerics.latex import claim_section

    claims = {cid: registry.claims()[cid] for cid in IDS}
    for cid, claim in claims.items():
        assert len(claim.mutants) >= 2 and claim.outputs and claim.status == "paper"
        assert certify.certifiable(cid)
        params = claim.param_space.validate({})
        values = claim.evaluate(params, 45)  # more digits than the balls' width
        balls = certify.certify(cid, params, 30)
        assert set(balls) == set(values)
        assert all(b.contains(values[k]) for k, b in balls.items()), cid
        tex = claim_section(claim, certified=True)
        assert f"{cid}:statement" in tex and "Certified" in tex
    out = claims["S.bbp.outlier"].evaluate({"gamma": 0.5, "ell": 2.0}, 30)
    assert abs(out["top_eigenvalue"] - 3.75) < 1e-25 and abs(out["threshold"] ** 2 - 0.5) < 1e-25


def test_the_paper_prints_its_symbols_in_its_own_notation_and_only_there(plugin):
    """The plugin's notation module (its entry point of attncheck.notation, in its own
    pyproject.toml) prints its names as the paper writes them, in its equations, statements and
    LaTeX sections; another paper's equations print those names as SymPy does, and the plugin's
    print Paper A's prior as the constant it is there."""
    import sympy as sp

    from derivations.core import latex, printing_for
    from numerics.latex import claim_section

    registry, _ = plugin
    claims = registry.claims()
    edge, = [eq for eq in claims["S.mp.edge"].get_equations() if eq.name == "S.mp.edge"]
    assert edge.latex() == r"\lambda_{+} = 2 \sqrt{\gamma} + \gamma + 1"
    section = claim_section(claims["S.bbp.overlap"])
    assert r"\langle u_1, v\rangle^{2} = \frac{\ell^{2} - \gamma}{\ell \left(\ell + \gamma\right)}" in section
    assert "overlap^" not in section and "{overlap}" not in section
    overlap, pi = sp.Symbol("overlap"), sp.Symbol("pi")
    with printing_for("S"):
        assert (latex(overlap), latex(pi)) == (r"\langle u_1, v\rangle", r"\pi")
    with printing_for("A"):
        assert (latex(overlap), latex(pi)) == ("overlap", r"\pi_{+}")
    # a claim's statement, in the LaTeX document and the HTML report: its own paper's notation
    from numerics.latex import statement_latex
    from numerics.report_math import _statement_html

    fake = {p: SimpleNamespace(id=f"{p}.fake", paper=p, get_statement_eq=lambda: sp.Eq(overlap, pi)) for p in "AS"}
    spelt = "<mi>o</mi><mi>v</mi><mi>e</mi><mi>r</mi>"  # the name, letter by letter in MathML
    assert "\noverlap = \\pi_{+}\n" in statement_latex(fake["A"]) and spelt in _statement_html(fake["A"])
    assert "\n\\langle u_1, v\\rangle = \\pi\n" in statement_latex(fake["S"])
    assert spelt not in _statement_html(fake["S"])
    a_eq = dataclasses.replace(claims["A.thm3.q2_cosine"].get_equations()[0], lhs=overlap)
    assert a_eq.latex().startswith("overlap = ")
    assert latex(overlap) == r"\langle u_1, v\rangle"  # no paper: every paper's names that agree


def test_what_is_remembered_of_the_plugins_claims_ends_with_the_plugin(plugin, monkeypatch):
    """The certifiable claims remembered while the plugin is installed are not those of a process
    without it: the memo of the claim index is keyed by the installed entry points too."""
    import derivations.core as core

    registry, certify = plugin
    assert set(IDS) <= set(certify.certifiable_ids())
    monkeypatch.undo()
    for memo in (registry.claims, core.notation_tables, core.papers_notation):
        memo.cache_clear()
    assert not set(IDS) & set(certify.certifiable_ids())


def test_theory_comes_from_the_derivation_and_bad_input_is_one_line(plugin):
    registry, _ = plugin
    from derivations.core import MUTANTS, mutated
    from numerics.core.params import ParameterError

    claim = registry.claims()["S.bbp.overlap"]
    true = float(claim.evaluate({"gamma": 0.5, "ell": 2.0}, 30)["overlap"])
    with mutated(MUTANTS["S.bbp.overlap_den:unwhitened"]):
        wrong = float(claim.evaluate({"gamma": 0.5, "ell": 2.0}, 30)["overlap"])
    assert abs(true - 0.7) < 1e-12 and abs(wrong - true) > 0.05
    with pytest.raises(ParameterError, match="parameter ell") as e:
        claim.param_space.validate({"gamma": "2", "ell": "1"})  # below the threshold sqrt 2
    assert "\n" not in str(e.value)


def test_simulator_imports_no_derivation():
    tree = ast.parse((EXAMPLE / "spiked_covariance" / "simulator.py").read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"numpy", "__future__"}, imported
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))  # no sibling import


def test_the_verdict_cache_key_covers_the_package_modules(plugin):
    """Editing the package's derivation or simulator re-runs its claims (the key of recorded
    evidence hashes every module of the package that the claim module imports)."""
    from numerics.core.cache import dependencies

    registry, _ = plugin
    module = registry.claims()["S.mp.edge"].experiment.__module__
    deps = set(dependencies(module))
    assert {"spiked_covariance.derivation", "spiked_covariance.simulator", "spiked_covariance.theory",
            "derivations.core", "numerics.claims.base"} <= deps, deps


def test_the_claim_index_follows_an_edit_of_the_package(plugin, tmp_path, monkeypatch):
    """``attncheck list`` reads an index kept on disk; its key covers the package's sources."""
    registry, _ = plugin
    copy = tmp_path / "pkg"
    shutil.copytree(EXAMPLE / "spiked_covariance", copy / "spiked_covariance",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.syspath_prepend(str(copy))
    for name in [m for m in sys.modules if m.split(".")[0] == "spiked_covariance"]:
        monkeypatch.delitem(sys.modules, name)  # the copy is found first, read not imported
    before = registry._index_key()
    (copy / "spiked_covariance" / "claims.py").write_text((copy / "spiked_covariance" / "claims.py").read_text()
                                                         + "\n# edited\n")
    assert registry._index_key() != before


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=20)
@given(gamma=st.floats(0.05, 10.0), excess=st.floats(1.05, 20.0))
def test_above_the_threshold_the_outlier_leaves_the_bulk(plugin, gamma, excess):
    """Properties of the derived limits at random (gamma, ell > ell_c): the outlier lies above
    the edge, the overlap in (0, 1), and the certified balls contain the mpmath values."""
    from numerics.core.arb import ball
    from numerics.core.backends import ArbContext
    from spiked_covariance import theory

    ell = excess * float(theory.value("S.bbp.outlier", "threshold", {"gamma": gamma, "ell": 1.0}))
    point = {"gamma": gamma, "ell": ell}
    top = theory.value("S.bbp.outlier", "top_eigenvalue", point)
    edge = theory.value("S.mp.edge", "edge", point)
    overlap = theory.value("S.bbp.overlap", "overlap", point)
    assert top > edge and 0 < overlap < 1
    balls = theory.evaluator("S.bbp.outlier").under(ArbContext(30), point)
    assert ball(balls["top_eigenvalue"], 30).contains(top)


def test_explore_comes_free_from_the_parameter_declaration(plugin):
    """The plugin's claims declare a ``point_space`` and nothing else for explore: points are
    drawn from it (the defaults first), each run and judged as verify judges it."""
    import attncheck

    e, = attncheck.explore("S.bbp.outlier", examples=2, seed=3, shrinks=0)
    assert e.passed and not e.failed and len(e.runs) == 2, e.runs
    space = registry_claim(plugin, "S.bbp.outlier").point_space
    assert e.runs[0].params == space.defaults() and all(space.validate(r.params) == r.params for r in e.runs)


def registry_claim(plugin, cid):
    registry, _ = plugin
    return registry.claims()[cid]


def test_mutate_comes_free_from_the_derivation(plugin):
    """Automatic mutants of every step the claim reaches, with no mutant written for them: a
    sample is generated, run and classified, and the hand-written mutants are scored too."""
    import attncheck
    from derivations.core import derivation_caches_restored

    with derivation_caches_restored():
        r, = attncheck.mutate("S.bbp.outlier", sample=12, sample_seed=2, budget=5)
    assert not r.error and r.sampled and len(r.outcomes) == 12 and r.generated > 100
    steps = {o.step for o in r.outcomes}
    assert steps <= {"S.mp.cauchy", "S.mp.discriminant", "S.mp.edge", "S.bbp.secular", "S.bbp.outlier",
                     "S.bbp.threshold", "S.bbp.resolvent_sq", "S.bbp.overlap_num", "S.bbp.overlap_den",
                     "S.bbp.overlap"}
    assert r.count("killed") >= 3 and r.interval is not None and all(o.latex for o in r.outcomes)
    # the eigenvector's steps do not reach the top eigenvalue: their mutants change nothing
    assert all(o.status != "survived" for o in r.outcomes if o.step.startswith("S.bbp.overlap"))
    assert r.hand_written == {"killed": 3, "total": 3}


def test_the_sources_of_an_entry_point_are_read_for_the_index_key(tmp_path, monkeypatch):
    """The files whose edit renews the claim index: every .py file of a plugin's top-level
    package, the file of a one-module plugin, nothing for a module without Python source or one
    that cannot be found."""
    from numerics import registry

    (tmp_path / "one_file.py").write_text("CLAIMS = []\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for f in ("pkg/__init__.py", "pkg/claims.py", "pkg/sub/__init__.py"):
        (tmp_path / f).write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry._plugin_sources("one_file:CLAIMS") == [tmp_path / "one_file.py"]
    assert registry._plugin_sources("pkg.claims:CLAIMS") == sorted(
        tmp_path / f for f in ("pkg/__init__.py", "pkg/claims.py", "pkg/sub/__init__.py"))
    assert registry._plugin_sources("math:pi") == [] and registry._plugin_sources("no_such_pkg.x:y") == []
