"""Errors at definition time: a claim, equation or step that is inconsistent is refused with one
line naming the claim, the object and the fix (exit 2 on the command line), the same for a
claim of the package and one from a file or a plugin."""
import pytest
from click.testing import CliRunner

from numerics import registry
from numerics.cli import main

HEAD = '''
from functools import lru_cache

import sympy as sp

from derivations.core import Equation, active_mutants, derivation, mutant, step
from numerics.claims.base import Claim, Comparison, memo
from numerics.core.backends import mp_eval
from numerics.core.params import Param, ParamSpace

a, b = sp.symbols("a b", positive=True)
SPACE = ParamSpace((Param("x", float, 0.5, 4.0, doc="x", default=1.0),))


@derivation
def law():
    half = step("D.law.half", a / 2)
    return step("D.law.value", 2 * half)


mutant("D.law.half:x3", "D.law.half", "a third too much", lambda e: 3 * e)
mutant("D.typo:x2", "D.law.hlaf", "a step of another name", lambda e: 2 * e)


@lru_cache(maxsize=8)
def _theory(_key):  # a cache of the theory keyed by the active mutants, as the package's are
    return float(mp_eval(law(), {a: 1}, 30))


def _experiment(settings, claim):
    x = settings.point["x"] if settings.point else 1.0
    mean = memo(settings, ("D", x), lambda: 1.0)
    return [Comparison("a", _theory(active_mutants()), mean)], {}, {}


def _reads_y(settings, claim):
    y = settings.point["y"] if settings.point else 1.0
    return [Comparison("a", _theory(active_mutants()), memo(settings, ("D", y), lambda: 1.0))], {}, {}


def claim(id, **kw):
    return Claim(**{**dict(id=id, paper="D", reference="-", statement="a = a", experiment=_experiment,
                           mutants=("D.law.half:x3",), outputs=("D.law.value",)), **kw})
'''

CASES = {
    "equation": ('CLAIMS = [claim("D.eq", equations=lambda: (Equation("D.eq.law", sp.Symbol("y"), a * b, "-", '
                 '(a,)),))]',
                 "claim D.eq: equation D.eq.law: its right-hand side has free symbols b not in its params (a); add "
                 "them to params"),
    "unregistered": ('CLAIMS = [claim("D.unregistered", mutants=("D.law.half:x4",))]',
                     "claim D.unregistered: mutant 'D.law.half:x4' is not registered; define it with "
                     "derivations.core.mutant("),
    "twice": ('CLAIMS = [claim("D.twice", mutants=("D.law.half:x3", "D.law.half:x3"))]',
              "claim D.twice: mutant D.law.half:x3 is listed twice in mutants; list it once"),
    "space": ('CLAIMS = [claim("D.space", point_space={"x": 1})]',
              "claim D.space: point_space must be a numerics.core.params.ParamSpace or None, got dict"),
}


def _file(tmp_path, body: str, name: str = "claims.py") -> str:
    path = tmp_path / name
    path.write_text(HEAD + "\n" + body + "\n")
    return str(path)


@pytest.fixture
def clean_registry():
    before = list(registry.EXTRA_FILES)
    yield
    registry.EXTRA_FILES[:] = before
    registry.claims.cache_clear()


def _one_line(res, text: str, alone: bool = True):
    """Exit 2 and one error line that starts with ``text``: the only line on stderr (``alone``:
    refused at load, before anything ran), or the last one after the run's progress."""
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith(f"error: {text}") and not [ln for ln in lines[:-1] if "error" in ln], res.stderr
    assert not alone or len(lines) == 1, res.stderr
    assert "Traceback" not in res.output and "internal error" not in res.output


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_inconsistent_claim_file_is_refused_at_load(tmp_path, clean_registry, case):
    """verify, list and latex refuse the file before anything runs: exit 2, one line."""
    body, text = CASES[case]
    path = _file(tmp_path, body)
    for args in (["verify", "--claims", path, "D", "--no-cache"], ["list", "--claims", path], ["latex", "--claims", path, "D"]):
        _one_line(CliRunner().invoke(main, args), text)


def test_the_issues_equation_passed_verify_and_failed_in_latex_as_an_internal_error(tmp_path, clean_registry):
    """A plugin equation with a symbol missing from its params: refused at load (it used to pass
    verify and --power and then make `latex` fail with "internal error ... please report it")."""
    path = _file(tmp_path, CASES["equation"][0])
    for args in (["verify", "--claims", path, "D.eq", "--power"], ["latex", "--claims", path, "D.eq"]):
        _one_line(CliRunner().invoke(main, args), CASES["equation"][1])
    with pytest.raises(registry.RegistryError, match="claim D.eq: equation D.eq.law"):
        registry.add_claims_file(path)
        registry.claims()


def test_a_claim_of_the_package_is_refused_with_the_same_line_when_its_equations_are_built():
    """Its equations are built when first used (building the 39 claims' on every command would
    cost seconds): the same error, the same line."""
    import sympy as sp

    from derivations.core import Equation
    from numerics.claims.base import Claim

    a, b = sp.symbols("a b")
    c = Claim(id="D.built_in", paper="D", reference="-", statement="-", experiment=lambda s, c: None,
              equations=lambda: (Equation("D.eq.law", sp.Symbol("y"), a * b, "-", (a,)),))
    registry.check(c)  # nothing is built at registration
    with pytest.raises(registry.RegistryError) as err:
        c.get_equations()
    assert str(err.value) == CASES["equation"][1].replace("D.eq:", "D.built_in:")
    with pytest.raises(registry.RegistryError, match="claim D.built_in: equation D.eq.law"):
        registry.check(c, built=True)


def test_a_mutant_or_an_output_whose_step_the_claim_never_reaches_is_refused(tmp_path, clean_registry):
    """At the claim's first run at its design (its theory must be computed to know the steps it
    reaches): exit 2, one line naming the claim, the mutant (or output) and the fix.  Two claims
    that share a cache of their theory both pass: the second one's steps, hidden by the cache,
    are probed."""
    import attncheck

    path = _file(tmp_path, 'CLAIMS = [claim("D.ok"), claim("D.ok2"), claim("D.mutant", mutants=("D.typo:x2",)), '
                           'claim("D.output", outputs=("D.law.valeu",))]')
    res = CliRunner().invoke(main, ["verify", "--claims", path, "D.mutant", "--no-cache"])
    _one_line(res, "claim D.mutant: mutant D.typo:x2 rewrites step 'D.law.hlaf', which its theory never reaches; "
                   "name a step of the derivation the claim computes (derivations.core.step), or drop it", alone=False)
    res = CliRunner().invoke(main, ["verify", "--claims", path, "D.output"])
    _one_line(res, "claim D.output: output step 'D.law.valeu' (scaled by the ±5 % test), which its theory never "
                   "reaches", alone=False)
    res = CliRunner().invoke(main, ["verify", "--claims", path, "D.ok", "D.ok2", "--no-cache", "--workers", "1"])
    assert res.exit_code == 0, res.output
    with pytest.raises(registry.RegistryError, match="claim D.mutant: mutant D.typo:x2"):
        attncheck.verify("D.mutant", cache=False)
    assert [v.passed for v in attncheck.verify(["D.ok", "D.ok2"], cache=False, workers=1)] == [True, True]


def test_a_parameter_the_experiment_reads_outside_its_point_space_is_named(tmp_path, clean_registry):
    """The experiment reads the point through a mapping that names the claim and the parameter
    its point_space does not declare."""
    import attncheck

    path = _file(tmp_path, 'CLAIMS = [claim("D.reads_y", experiment=_reads_y, point_space=SPACE)]')
    res = CliRunner().invoke(main, ["verify", "--claims", path, "D.reads_y", "--param", "x=2"])
    _one_line(res, "claim D.reads_y: its experiment reads parameter 'y', which its point_space does not declare "
                   "(it declares x); declare y in the point_space", alone=False)
    assert CliRunner().invoke(main, ["verify", "--claims", path, "D.reads_y", "--no-cache"]).exit_code == 0
    with pytest.raises(registry.RegistryError, match="claim D.reads_y: its experiment reads parameter 'y'"):
        attncheck.verify("D.reads_y", params={"x": 2})


def test_a_point_names_the_parameter_it_does_not_hold():
    """What an experiment is told when it reads a parameter: at its design (no point), or one its
    point_space does not declare, with the ones it does."""
    from numerics.claims.base import Point, UndeclaredParameter

    with pytest.raises(UndeclaredParameter) as err:
        Point()["y"]
    assert str(err.value) == ("its experiment reads parameter 'y' at its built-in design, where no point is given; "
                              "read it only when settings.point is not empty")
    with pytest.raises(UndeclaredParameter) as err:
        Point({"x": 1.0, "z": 2.0})["y"]
    assert str(err.value) == ("its experiment reads parameter 'y', which its point_space does not declare (it "
                              "declares x, z); declare y in the point_space")
    assert Point({"x": 1.0})["x"] == 1.0


def test_every_built_in_claim_is_consistent():
    """The checks at registration pass for the 39 claims of the package, and their equations
    and statements build."""
    claims = registry.claims()
    assert len(claims) >= 39
    for c in claims.values():
        registry.check(c, built=True)
