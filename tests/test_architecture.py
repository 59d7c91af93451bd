"""The layering rules of DESIGN.md, enforced by folder.

* ``numerics/experiments`` (simulators, estimators, experiment drivers) never imports
  ``derivations`` or ``numerics.theory`` — not even through another module — because a
  simulation that used the formula it tests would check nothing;
* ``numerics/core`` is generic machinery: it imports neither ``derivations`` nor the theory,
  experiments or claims;
* ``derivations`` is pure SymPy: it imports neither numpy nor ``numerics``;
* the command line and the Python API run claims only through the request layer's verify plan
  (``numerics.request.verify``), and the request layer imports neither of them.
Each module is imported in a fresh process so earlier imports cannot mask a violation: one
interpreter per folder forks a child per module (``_imported_after``), after loading only the
third-party packages the folder's rule does not forbid.  That sees what a module imports when it is loaded; a second, static check reads every import in the
source, at module level or inside a function, and every ``import_module`` target (a literal, or
the literal head of an f-string, relative ones resolved; ``__import__`` too), so that an import
made only at run time cannot cross a layer either.  Discovery (``numerics.registry``) sits above
the roles it finds, outside ``core``; every role has one folder per paper."""
import ast
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _modules(folder):
    return sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / folder).rglob("*.py")
        if p.name != "__init__.py"
    )


#: what the probe interpreter of a folder loads before it forks a child per module: third-party
#: packages the folder's rule does not forbid (sympy and mpmath load neither numpy nor scipy),
#: so that each child pays only for its own module's imports
PRELOAD = {
    "derivations": ("sympy", "mpmath"),
    "numerics": ("numpy", "scipy.special", "scipy.stats", "scipy.optimize", "scipy.integrate", "sympy", "mpmath"),
}

_PROBE = r"""
import importlib, json, os, sys
preload, modules = json.loads(sys.argv[1])
for name in preload:
    importlib.import_module(name)
out = {}
for module in modules:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the probe's modules, then what this one module loads
        os.close(r)
        try:
            importlib.import_module(module)
            text = "\n".join(sys.modules)
        except BaseException as e:
            text = "!" + repr(e)
        with os.fdopen(w, "w") as fh:
            fh.write(text)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as fh:
        out[module] = fh.read()
    os.waitpid(pid, 0)
print(json.dumps(out))
"""
_PROBED: dict = {}


def _probe(modules, preload=(), cwd=ROOT) -> dict[str, set[str]]:
    """{module: the modules loaded after importing it in a process of its own}."""
    import json
    import os

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps([list(preload), list(modules)])],
                         capture_output=True, text=True, cwd=cwd, check=True, env=env)
    found = {}
    for module, text in json.loads(out.stdout).items():
        assert not text.startswith("!"), f"importing {module} failed: {text[1:]}"
        found[module] = set(text.split())
    return found


def _imported_after(module: str) -> set[str]:
    if module not in _PROBED:  # the whole folder in one probe interpreter
        top = module.split(".")[0]
        folder = "/".join(module.split(".")[:2]) if top == "numerics" else top
        _PROBED.update(_probe(_modules(folder), PRELOAD[top]))
    return _PROBED[module]


def _under(mods, *prefixes):
    return sorted(m for m in mods if any(m == p or m.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("module", _modules("numerics/experiments"))
def test_experiments_never_import_the_formulas(module):
    bad = _under(_imported_after(module), "derivations", "numerics.theory", "numerics.claims")
    assert not bad, f"{module} imports {bad}"


@pytest.mark.parametrize("module", _modules("numerics/core"))
def test_core_is_generic(module):
    bad = _under(_imported_after(module), "derivations", "numerics.theory", "numerics.experiments",
                 "numerics.claims")
    assert not bad, f"{module} imports {bad}"


@pytest.mark.parametrize("module", _modules("derivations"))
def test_derivations_are_pure_sympy(module):
    bad = sorted(m for m in _imported_after(module) if m.split(".")[0] in ("numpy", "numerics", "scipy"))
    assert not bad, f"{module} imports {bad}"


#: the layers that present a verdict or take a user's request: nothing below them imports them
PRESENTATION = ("numerics.cli", "numerics.request", "numerics.sweep", "numerics.explore", "numerics.report",
                "numerics.report_math", "numerics.report_assets", "numerics.report_chromium",
                "numerics.report_mutate", "numerics.report_latex", "numerics.latex", "numerics.latex_text")

#: what runs claims (their evidence from the cache, in process, in a pool or on a cluster): the
#: request layer's verify plan is the one caller of the command line and the API
RUNS_CLAIMS = ("numerics.claims.runner.collect_all",)

#: what each folder may never import, at load time or at run time (the static check)
FORBIDDEN = {
    "numerics/experiments": ("derivations", "numerics.theory", "numerics.claims"),
    "numerics/core": ("derivations", "numerics.theory", "numerics.experiments", "numerics.claims",
                      "numerics.figures", "numerics.problems", "numerics.benchmarks", "numerics.registry",
                      "numerics.paper", "numerics.registration", "numerics.cli", "numerics.request",
                      "numerics.report", "numerics.latex", "numerics.sweep"),
    "derivations": ("numpy", "scipy", "numerics"),
    # a paper's vocabulary is the ground floor: names and domains, no formula and no other role
    "numerics/papers": ("derivations", "sympy", "numerics.theory", "numerics.experiments", "numerics.claims",
                        *PRESENTATION, "numerics.figures", "numerics.problems", "numerics.benchmarks",
                        "numerics.registry", "numerics.paper", "numerics.registration"),
    # the theory and the problems solve; they never run an experiment or read a claim
    "numerics/theory": ("numerics.experiments", "numerics.claims", *PRESENTATION, "numerics.figures",
                        "numerics.problems", "numerics.benchmarks"),
    "numerics/problems": ("numerics.experiments", "numerics.claims", *PRESENTATION, "numerics.figures",
                          "numerics.benchmarks"),
    # a claim computes a verdict; how it is shown, and how a user asked for it, sit above it
    "numerics/claims": (*PRESENTATION, "numerics.registration"),
    # a paper's registration names the objects of its roles; it sits below what shows them
    "numerics/registration": PRESENTATION,
    # the request layer sits under the command line and the API, and shows nothing itself (a
    # sweep's points and target are numerics.sweep's, which it plans)
    "numerics/request": ("numerics.cli", "attncheck", "numerics.report_labels", "numerics.report_tables",
                         *(p for p in PRESENTATION if p not in ("numerics.request", "numerics.sweep"))),
    # a verify runs through the request layer's one plan (numerics.request.verify: the claims,
    # the cache, the estimate, the pool), never by calling the runner directly
    "numerics/cli": RUNS_CLAIMS,
    "attncheck": ("numerics.cli", *RUNS_CLAIMS),
}


def import_targets(path: pathlib.Path):
    """Every module ``path`` imports anywhere in its source, with the line: import statements
    at any depth (relative ones resolved) and ``import_module(...)`` calls."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(parts + ([node.module] if node.module else []))
            else:
                module = node.module
            yield module, node.lineno
            for alias in node.names:
                yield f"{module}.{alias.name}", node.lineno
        elif isinstance(node, ast.Call) and (node.args or node.keywords):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in ("import_module", "__import__"):
                continue
            arg = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "name"), None)
            head = None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                head = arg.value
            elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                head = str(arg.values[0].value)
            if head is None:
                continue
            if head.startswith("."):  # import_module(".x", package="a.b") or (".x", __package__)
                anchor = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "package"), None)
                base = anchor.value if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str) else package
                dots = len(head) - len(head.lstrip("."))
                parts = base.split(".")
                head = ".".join(parts[: len(parts) - dots + 1] + ([head.lstrip(".")] if head.lstrip(".") else []))
            yield head.rstrip("."), node.lineno


def _violations(folder: str) -> list[str]:
    bad = FORBIDDEN[folder]
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for module, line in import_targets(path):
            if module and any(module == b or module.startswith(b + ".") for b in bad):
                out.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    return out


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_import_crosses_a_layer_even_at_run_time(folder):
    bad = _violations(folder)
    assert not bad, "imports that cross a layer:\n" + "\n".join(bad)


def test_the_static_check_sees_function_level_and_importlib_imports(tmp_path, monkeypatch):
    """The check can fail: a function-level import and an f-string import_module are both seen."""
    folder = tmp_path / "numerics" / "core"
    folder.mkdir(parents=True)
    (folder / "sneaky.py").write_text(
        "from importlib import import_module\n"
        "def f(name):\n"
        "    from numerics.claims import base\n"
        "    return import_module(f'derivations.paper_a.{name}')\n")
    (folder / "sneakier.py").write_text(
        "import importlib\n"
        "def g():\n"
        "    importlib.import_module('.figures.paper_a', package='numerics')\n"
        "    return __import__('numerics.benchmarks.scaling')\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = _violations("numerics/core")
    assert any("numerics.claims" in v for v in found) and any(v.endswith(": derivations.paper_a") for v in found), found
    assert any(v.endswith(": numerics.figures.paper_a") for v in found), found
    assert any(v.endswith(": numerics.benchmarks.scaling") for v in found), found


#: shared modules that import a paper's package, each with its reason (nothing a paper adds
#: needs an edit of a shared module: this list is not where a new paper goes)
NAMES_A_PAPER = {
    # the machinery's benchmarks time a pool, the precision and the simulator on one workload
    "numerics/benchmarks/scaling.py": ("numerics.theory.paper_a", "numerics.experiments.paper_a"),
}
_A_PAPER = re.compile(r"paper_[a-z]")


def test_adding_a_paper_touches_no_shared_module():
    """Outside a paper's own folders (``<role>/paper_x/``) and its registration
    (``numerics/registration/paper_x.py``), no module of ``numerics``, ``derivations`` or
    ``attncheck`` imports a paper's package: a paper is added by its folders and the entry
    points of a ``pyproject.toml`` (shown by the example third paper), never by editing a
    shared table or dispatch."""
    found = _naming_a_paper()
    assert not found, "shared modules that name a paper:\n" + "\n".join(found)


def test_the_paper_check_can_fail(tmp_path, monkeypatch):
    (tmp_path / "numerics" / "claims" / "paper_z").mkdir(parents=True)
    (tmp_path / "numerics" / "claims" / "paper_z" / "mine.py").write_text("from numerics.theory.paper_z import x\n")
    (tmp_path / "numerics" / "report.py").write_text("def f():\n    from numerics.claims.paper_c import y\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _naming_a_paper() == ["numerics/report.py:2: numerics.claims.paper_c",
                                 "numerics/report.py:2: numerics.claims.paper_c.y"]


def _naming_a_paper() -> list:
    found = []
    for top in ("numerics", "derivations", "attncheck"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if any(_A_PAPER.fullmatch(part) for part in rel.parts[:-1]) or rel.parts[:2] == ("numerics", "registration"):
                continue
            for module, line in import_targets(path):
                if module and any(_A_PAPER.fullmatch(part) for part in module.split(".")):
                    if not module.startswith(NAMES_A_PAPER.get(str(rel), ("\0",))):
                        found.append(f"{rel}:{line}: {module}")
    return found


#: the roles that carry the paper axis: one folder per paper, shared pieces on top
ROLES = ("derivations", "numerics/papers", "numerics/theory", "numerics/claims", "numerics/experiments", "numerics/figures",
         "numerics/benchmarks", "numerics/problems")


@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_a_folder_per_paper(role):
    """A paper's module sits in ``<role>/paper_x/``, never as ``<role>/paper_x_name.py`` or in a
    paper-less subfolder of a role; what stays at the top of a role is shared by the papers."""
    folder = ROOT / role
    flat = sorted(p.name for p in folder.glob("paper_*.py"))
    assert not flat, f"{role}: per-paper modules outside a paper folder: {flat}"
    others = sorted(p.name for p in folder.iterdir()
                    if p.is_dir() and (p / "__init__.py").exists() and not p.name.startswith("paper_"))
    assert not others, f"{role}: subpackages that are not a paper's folder: {others}"


@pytest.mark.parametrize("module", _modules("numerics/registration"))
def test_a_papers_registration_imports_none_of_its_parts_when_loaded(module):
    """Loading a paper's ``PAPER`` (as the registry does for every command) imports none of its
    claims, figures, problems or benchmarks: each part is imported when first asked for, so
    listing the problems imports no claim."""
    bad = _under(_imported_after(module), "derivations", "numerics.theory", "numerics.experiments",
                 "numerics.claims", "numerics.figures", "numerics.problems", "numerics.benchmarks")
    assert not bad, f"{module} imports {bad}"


def test_discovery_lives_outside_core():
    """Finding claims, figures, problems and benchmarks is ``numerics.registry``'s job, above the
    roles it finds: nothing in ``numerics/core`` walks packages or reads entry points."""
    assert (ROOT / "numerics" / "registry.py").exists()
    assert not (ROOT / "numerics" / "core" / "registry.py").exists()
    walkers = []
    for path in sorted((ROOT / "numerics" / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("walk_packages", "entry_points"):
                walkers.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.attr}")
            elif isinstance(node, ast.alias) and node.name in ("walk_packages", "entry_points"):
                walkers.append(f"{path.relative_to(ROOT)}: imports {node.name}")
    assert not walkers, "discovery inside numerics/core:\n" + "\n".join(walkers)


#: the longest a module of numerics/ may grow before it is split along its seams
MAX_LINES = 500


def test_no_module_is_too_long():
    long = sorted(f"{p.relative_to(ROOT)}: {n} lines" for p in (ROOT / "numerics").rglob("*.py")
                  if (n := len(p.read_text().splitlines())) > MAX_LINES)
    assert not long, f"modules over {MAX_LINES} lines (split them along their seams):\n" + "\n".join(long)


def test_the_import_probe_sees_what_each_module_loads(tmp_path):
    """The probe can fail: a module that imports a forbidden package shows it, and a sibling
    probed in the same interpreter does not inherit it."""
    pkg = tmp_path / "probe_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bad.py").write_text("import numpy\n")
    (pkg / "good.py").write_text("import wave\n")
    found = _probe(["probe_pkg.bad", "probe_pkg.good"], PRELOAD["derivations"], cwd=tmp_path)
    assert "numpy" in found["probe_pkg.bad"] and "numpy" not in found["probe_pkg.good"]
    assert "wave" in found["probe_pkg.good"] and "sympy" in found["probe_pkg.good"]


def _aliases(paths) -> dict[str, set[str]]:
    """Every ``import M as X`` / ``from P import M as X`` of ``paths``: alias -> the modules it
    names (a relative import counted by its text)."""
    out: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                pairs = [(a.name, a.asname) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                pairs = [(f"{base}.{a.name}", a.asname) for a in node.names]
            else:
                continue
            for name, alias in pairs:
                if alias:
                    out.setdefault(alias, set()).add(name)
    return out


def test_an_import_alias_names_one_thing_across_the_project():
    """``A`` is the alignment derivation wherever it is read: an alias never names two modules
    (or a module and a name of another), in the package, the API, the tools and the tests."""
    paths = [p for folder in ("numerics", "derivations", "attncheck", "tests", "tools")
             for p in sorted((ROOT / folder).rglob("*.py"))]
    aliases = _aliases(paths)
    assert aliases["np"] == {"numpy"} and aliases["E"] == {"numerics.theory.paper_c.equations"}  # it reads them
    twice = {alias: sorted(names) for alias, names in aliases.items() if len(names) > 1}
    assert not twice, twice



#: the one compiler: SymPy expressions become functions through a context's ``compile``
#: (``numerics.core.backends``), as mpmath's algorithms ask only their context
COMPILER = "numerics/core/backends.py"


def _compilers(path: pathlib.Path) -> list[str]:
    """Every call ``lambdify(..., "numpy")`` / ``sp.lambdify(..., modules="mpmath")`` naming its
    backend by a string literal, and every import of ``lambdify`` from ``numerics.core.backends``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            literals = [a.value for a in [*node.args, *(k.value for k in node.keywords)]
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name == "lambdify" and literals:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: lambdify(..., {literals[0]!r})")
        elif isinstance(node, ast.ImportFrom) and node.module == "numerics.core.backends":
            if any(a.name == "lambdify" for a in node.names):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports the backends' lambdify")
    return out


def test_every_compilation_goes_through_a_context():
    """The package compiles SymPy only through ``NumpyContext`` / ``MpContext`` /
    ``ArbContext.compile``: no module outside ``numerics/core/backends.py`` calls ``lambdify``
    with a backend name or imports one from there.  The tests may call SymPy's own
    ``sp.lambdify`` for an independent reference value, never the project's."""
    package = [p for folder in ("numerics", "derivations", "attncheck", "tools", "examples")
               for p in sorted((ROOT / folder).rglob("*.py")) if p != ROOT / COMPILER]
    bad = [v for p in package for v in _compilers(p)]
    bad += [v for p in sorted((ROOT / "tests").rglob("*.py")) for v in _compilers(p) if "imports" in v]
    assert not bad, "compilations outside a context:\n" + "\n".join(bad)


def _check_one_file(check, source: str, tmp_path, monkeypatch) -> list[str]:
    """What the static ``check`` finds in a module ``m.py`` of ``source`` (the tree's root moved
    to ``tmp_path``): how each check is shown to fail."""
    (tmp_path / "m.py").write_text(source)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    return check(tmp_path / "m.py")


def test_the_compiler_check_can_fail(tmp_path, monkeypatch):
    source = ("import sympy as sp\n"
              "from numerics.core.backends import lambdify\n"
              "f = lambdify(x, (x,), 'numpy')\n"
              "g = sp.lambdify((x,), x, modules='mpmath')\n"
              "h = sp.lambdify((x,), x)\n")
    assert _check_one_file(_compilers, source, tmp_path, monkeypatch) == [
        "m.py:2: imports the backends' lambdify", "m.py:3: lambdify(..., 'numpy')", "m.py:4: lambdify(..., 'mpmath')"]


#: the names of a user's choices (a loss, a model, a law of the tokens, a number system): a
#: user's string becomes the object once, where it enters (``DOORS`` and the API), and below
#: that the object carries its behaviour, so no code asks for the string or compares it
CHOICES = ("loss", "model", "law", "position_law", "backend")
#: where a user's strings enter: the request layer and the command line (the API is ``attncheck``)
DOORS = ("numerics/request", "numerics/cli")
#: the contexts' own compiler, which names lambdify's modules ("numpy", "mpmath") and the
#: special functions of each (``numerics.core.special.namespace``)
NAMED_MODULES = (COMPILER, "numerics/core/special.py")


def _named(node) -> str | None:
    """The choice a name or an attribute (``law``, ``self.position_law``) stands for, if any; a
    context's name (``ctx.name``) stands for the backend."""
    if (isinstance(node, ast.Attribute) and node.attr == "name" and isinstance(node.value, ast.Name)
            and node.value.id in ("ctx", "context")):
        return "backend"
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name if name in CHOICES else None


def _text(node) -> bool:
    return isinstance(node, (ast.Constant, ast.JoinedStr)) and (
        isinstance(node, ast.JoinedStr) or isinstance(node.value, str))


def _is_str(annotation) -> bool:
    """``str``, ``"str"`` or a union with ``str`` in it (``str | None``)."""
    if isinstance(annotation, ast.Name):
        return annotation.id == "str"
    if isinstance(annotation, ast.Constant):
        return annotation.value == "str"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _is_str(annotation.left) or _is_str(annotation.right)
    return False


def _choices_as_strings(path: pathlib.Path) -> list[str]:
    """Every parameter named like a choice and annotated ``str``, and every comparison of such a
    name with a string (``loss == "logistic"``, ``law != 'fixed'``, ``law.startswith("block:")``)."""
    out = []
    rel = path.relative_to(ROOT)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            out += [f"{rel}:{arg.lineno}: parameter {arg.arg}: str"
                    for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs) if arg.arg in CHOICES and _is_str(arg.annotation)]
        elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in CHOICES
              and _is_str(node.annotation)):
            out.append(f"{rel}:{node.lineno}: field {node.target.id}: str")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            names = [n for n in map(_named, sides) if n]
            equal = isinstance(node.ops[0], (ast.Eq, ast.NotEq)) and any(map(_text, sides))
            member = (isinstance(node.ops[0], (ast.In, ast.NotIn)) and _named(node.left)
                      and isinstance(sides[1], (ast.Tuple, ast.List, ast.Set)) and any(map(_text, sides[1].elts)))
            if names and (equal or member):
                out.append(f"{rel}:{node.lineno}: compares {names[0]} with a string")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith", "split", "partition") and _named(node.func.value)):
            out.append(f"{rel}:{node.lineno}: reads {_named(node.func.value)} as a string ({node.func.attr})")
    return out


def test_below_the_request_layer_a_choice_is_an_object():
    """A loss, a model, a token law or a backend below the request layer is an object
    (``numerics.papers.paper_a.vocabulary``, ``derivations.paper_a.models``, ``derivations.paper_b.
    coercivity``, ...): no function in ``numerics`` (outside ``DOORS``) or ``derivations`` takes
    one as ``str``, and none compares one with a string; only the contexts' compiler names its
    modules by their names."""
    paths = [p for folder in ("numerics", "derivations") for p in sorted((ROOT / folder).rglob("*.py"))
             if not any(p.is_relative_to(ROOT / d) for d in (*DOORS, *NAMED_MODULES))]
    bad = [v for p in paths for v in _choices_as_strings(p)]
    assert not bad, "choices handled as strings below the request layer:\n" + "\n".join(bad)


def test_the_choice_check_can_fail(tmp_path, monkeypatch):
    source = ("def f(loss: str, model: str | None = None, law='uniform', kind: str = 'pool'):\n"
              "    if law == 'fixed' or self.position_law != \"uniform\":\n"
              "        return law.startswith('block:')\n"
              "    if backend in ('numpy', 'mpmath') and 'atoms' in law:\n"
              "        return 1\n"
              "    return loss is LOSS and kind == 'pool' and ctx.name != 'arb'\n"
              "class S:\n"
              "    backend: str = 'mpmath'\n"
              "    kind: str = 'pool'\n")
    assert sorted(_check_one_file(_choices_as_strings, source, tmp_path, monkeypatch)) == [
        "m.py:1: parameter loss: str", "m.py:1: parameter model: str",
        "m.py:2: compares law with a string", "m.py:2: compares position_law with a string",
        "m.py:3: reads law as a string (startswith)", "m.py:4: compares backend with a string",
        "m.py:6: compares backend with a string", "m.py:8: field backend: str"]
