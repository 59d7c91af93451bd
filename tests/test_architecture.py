"""The layering rules of DESIGN.md, enforced by folder.

* ``numerics/experiments`` (simulators, estimators, experiment drivers) never imports
  ``derivations`` or ``numerics.theory`` — not even through another module — because a
  simulation that used the formula it tests would check nothing;
* ``numerics/core`` is generic machinery: it imports neither ``derivations`` nor the theory,
  experiments or claims;
* ``derivations`` is pure SymPy: it imports neither numpy nor ``numerics``.
Each module is imported in a fresh interpreter so earlier imports cannot mask a violation."""
import pathlib
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


def _imported_after(module: str) -> set[str]:
    code = f"import sys, importlib; importlib.import_module({module!r}); print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(out.stdout.split())


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
