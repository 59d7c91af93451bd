"""A paper registers as one ``Paper`` (numerics.paper), attncheck's own papers through the same
entry-point group as a plugin's: what is inconsistent is refused with one line naming the paper
or the claim, the object and the fix; and the papers register exactly what their modules define."""
import importlib
import pkgutil

import pytest
from click.testing import CliRunner

from numerics import registry
from numerics.cli import main
from numerics.paper import Paper

#: a claim file that registers a paper of its own (``--claims FILE.py`` reads a PAPER)
FILE = '''
from numerics.claims.base import Claim
from numerics.paper import Paper


def claim(id, paper="Q", **kw):
    return Claim(id=id, paper=paper, reference="-", statement="-", experiment=lambda s, c: None, **kw)


def figure(path, settings, progress):
    pass


PAPER = Paper(prefix={prefix!r}, title={title!r}, claims=[{claims}], figures={figures})
'''


def _claim(cid, paper, **kw):
    from numerics.claims.base import Claim

    return Claim(id=cid, paper=paper, reference="-", statement="-", experiment=lambda s, c: None, **kw)


def _refused(make) -> str:
    with pytest.raises(registry.RegistryError) as err:
        make()
    text = str(err.value)
    assert "\n" not in text, text
    return text


def _file(tmp_path, name, prefix="Q", title="Paper Q", claims='claim("Q.one")', figures="{}") -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(FILE.format(prefix=prefix, title=title, claims=claims, figures=figures))
    return str(path)


@pytest.fixture
def files():
    """Claim files added for one test, removed after it (with every memo of the registry)."""
    before = list(registry.EXTRA_FILES)
    yield registry.add_claims_file
    registry.EXTRA_FILES[:] = before
    for memo in (registry.claims, registry.figures, registry.problems, registry.benchmarks):
        memo.cache_clear()


def test_a_claim_whose_id_has_another_prefix_is_refused_with_one_line():
    """At construction when the claims are given, when first asked for when they are a function."""
    bad = [_claim("Q.one", "Q"), _claim("R.two", "Q")]
    line = "paper Q: claim R.two does not start with 'Q.'; name it Q.two or register it with its own paper"
    assert _refused(lambda: Paper(prefix="Q", title="Paper Q", claims=bad)) == line
    lazy = Paper(prefix="Q", title="Paper Q", claims=lambda: bad)  # nothing imported yet
    assert _refused(lazy.get_claims) == line


def test_a_claim_of_another_paper_or_listed_twice_is_refused_with_one_line():
    assert _refused(lambda: Paper(prefix="Q", title="Paper Q", claims=[_claim("Q.one", "R")])) == (
        "paper Q: claim Q.one has paper='R'; set paper='Q'")
    twice = [_claim("Q.one", "Q"), _claim("Q.one", "Q")]
    assert _refused(lambda: Paper(prefix="Q", title="Paper Q", claims=twice)) == (
        "paper Q: claim Q.one is listed twice in claims; list it once")
    assert _refused(lambda: Paper(prefix="Q.x", title="Paper Q")).startswith("paper 'Q.x': prefix must be")
    assert _refused(lambda: Paper(prefix="Q", title="", claims=[])).startswith("paper Q: title must be")
    assert _refused(lambda: Paper(prefix="Q", title="Paper Q", figures=[("Q.f", None)])).startswith(
        "paper Q: figures must be a dict id -> object")
    broken = Paper(prefix="Q", title="Paper Q", figures=lambda: __import__("no_such_module_of_q"))
    assert _refused(broken.get_figures).startswith("paper Q: its figures failed to load: ModuleNotFoundError")


def test_a_claim_naming_a_figure_nobody_registers_is_refused(tmp_path, files):
    """Checked by the registry once every paper is loaded (a figure of another paper would do)."""
    ok = _file(tmp_path, "ok", claims='claim("Q.one", figures=("Q.curve", "A.fig1"))', figures='{"Q.curve": figure}')
    files(ok)
    assert registry.claims()["Q.one"].figures == ("Q.curve", "A.fig1") and "Q.curve" in registry.figures()
    registry.EXTRA_FILES.remove(ok)
    bad = _file(tmp_path, "bad", claims='claim("Q.one", figures=("Q.nowhere",))')
    files(bad)
    line = ("claim Q.one: figure 'Q.nowhere' is registered by no paper; add it to the figures of paper Q or drop it "
            "from the claim's figures")
    assert _refused(registry.claims) == line
    res = CliRunner().invoke(main, ["list", "--claims", bad])
    assert res.exit_code == 2 and res.stderr == f"error: {line}\n", res.output


def test_two_papers_with_one_prefix_are_refused(tmp_path, files):
    files(_file(tmp_path, "one", title="First Q"))
    files(_file(tmp_path, "two", title="Second Q", claims='claim("Q.two")'))
    assert _refused(registry.claims) == ("paper Q: the prefix is registered twice ('First Q' and 'Second Q'); give one "
                                         "of them another prefix")
    registry.EXTRA_FILES.pop()
    files(_file(tmp_path, "a", prefix="A", title="Not A", claims='claim("A.mine", paper="A")'))
    assert _refused(registry.problems).startswith("paper A: the prefix is registered twice (")


def test_a_file_with_a_bare_claims_list_is_a_paper_without_a_prefix(tmp_path, files):
    path = tmp_path / "bare.py"
    path.write_text(FILE.split("\n\nPAPER")[0] + '\n\nCLAIMS = [claim("Z.bare", paper="Z"), claim("Y.other", '
                    'paper="Y")]\nFIGURES = {"Z.curve": figure}\n')
    files(str(path))
    bare, = [p for p in registry.papers() if not p.prefix]
    assert bare.title == f"--claims {str(path)!r}" and [c.id for c in bare.get_claims()] == ["Z.bare", "Y.other"]
    assert {"Z.bare", "Y.other"} <= set(registry.claims()) and "Z.curve" in registry.figures()
    neither = tmp_path / "neither.py"
    neither.write_text("x = 1\n")
    assert _refused(lambda: registry.add_claims_file(str(neither))) == (
        f"--claims {str(neither)!r}: defines neither a PAPER (numerics.paper.Paper) nor a CLAIMS list; export "
        "PAPER = Paper(prefix=..., title=..., claims=[...])")


@pytest.mark.parametrize("what, group, memo", [("paper", "attncheck.papers", "problems"),
                                               ("notation", "attncheck.notation", "claims")])
def test_an_install_that_names_none_of_attnchecks_entries_is_refused(monkeypatch, what, group, memo):
    """Sources newer than the installed metadata (an editable install from before the group): one
    line with the command that renews it, never an empty list of claims, nor Paper A's prior
    printed as the constant pi."""
    import importlib.metadata as md

    installed, memo, empty = md.entry_points, getattr(registry, memo), group
    monkeypatch.setattr(md, "entry_points", lambda group=None, **kw: [] if group == empty else
                        installed(group=group, **kw))
    memo.cache_clear()
    try:
        assert _refused(memo) == (
            f"no {what} of attncheck is registered (the entry-point group {group} of the installed metadata names "
            "none): the install predates the sources; run `pip install -e .` in the checkout")
    finally:
        monkeypatch.undo()
        memo.cache_clear()
    assert "A.thm3.q2_cosine" in registry.claims()


def test_attnchecks_papers_are_those_its_pyproject_declares():
    """The installed metadata names the papers the sources declare (the tests run from it), each
    entry named by its paper's prefix."""
    import tomllib
    from importlib.metadata import entry_points
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["entry-points"][registry.ENTRY_POINT_GROUP]
    installed = {ep.name: ep.value for ep in entry_points(group=registry.ENTRY_POINT_GROUP) if registry._own(ep.value)}
    assert installed == declared, "the installed entry points are not the sources': run `pip install -e .`"
    own = [p for p, mine in registry._registered() if mine]
    assert [p.prefix for p in own] == sorted(declared) and all(p.title for p in own)


def test_a_notation_named_after_no_paper_is_refused_with_one_line(monkeypatch):
    """A notation entry point prints the symbols of the paper whose prefix names it: one named
    after no registered paper (a typo, a paper not installed) is refused when the claims load,
    and so is one that does not load."""
    import importlib.metadata as md
    import sys
    import types

    import derivations.core as core

    installed = md.entry_points
    extra = [md.EntryPoint("Q", "attncheck_fake_notation", core.NOTATION_GROUP)]
    monkeypatch.setitem(sys.modules, "attncheck_fake_notation", types.ModuleType("attncheck_fake_notation"))
    monkeypatch.setattr(md, "entry_points", lambda group=None, **kw: [*installed(group=group, **kw),
                                                                      *(extra if group == core.NOTATION_GROUP else [])])
    memos = (registry.claims, core.notation_tables, core.papers_notation)
    try:
        for memo in memos:
            memo.cache_clear()
        assert _refused(registry.claims) == ("notation Q: the entry point 'Q' of attncheck.notation names no registered "
                                             "paper; name it after the prefix of the paper whose symbols it prints")
        extra[0] = md.EntryPoint("B", "attncheck_no_such_module", core.NOTATION_GROUP)
        for memo in memos:
            memo.cache_clear()
        assert _refused(registry.claims).startswith("notation: the entry point 'B' (attncheck_no_such_module) of "
                                                    "attncheck.notation failed to load: ModuleNotFoundError")
    finally:
        monkeypatch.undo()
        for memo in memos:
            memo.cache_clear()
    assert "A.thm3.q2_cosine" in registry.claims()


def _defined(package: str, attribute: str) -> set:
    """The ids of ``attribute`` in every module of ``package`` (the modules that define them)."""
    found = set()
    pkg = importlib.import_module(package)
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
        leaf = info.name.rsplit(".", 1)[-1]
        if info.ispkg or leaf.startswith("_"):
            continue
        table = getattr(importlib.import_module(info.name), attribute, None)
        if table is None:
            continue
        found |= {c.id for c in table} if attribute == "CLAIMS" else set(table)
    return found


@pytest.mark.parametrize("part, package", [("claims", "numerics.claims"), ("figures", "numerics.figures"),
                                           ("problems", "numerics.problems"), ("benchmarks", "numerics.benchmarks")])
def test_the_papers_register_every_id_their_modules_define(part, package):
    """The registry no longer walks the packages; this walk finds that nothing a module of
    attncheck defines is left out of a paper (or, for a benchmark, of the machinery's), and
    nothing is registered that no module defines."""
    own = [p for p, mine in registry._registered() if mine]
    registered = {k for p in own for k in ([c.id for c in p.get_claims()] if part == "claims"
                                           else getattr(p, f"get_{part}")())}
    if part == "benchmarks":
        from numerics.benchmarks import machinery

        registered |= {k for _, table in machinery() for k in table}
    assert registered == _defined(package, part.upper())


def test_a_plugins_sources_are_the_files_of_its_top_level_package(tmp_path, monkeypatch):
    """The files whose edits renew the claim index: every .py file of an entry point's top-level
    package, the one file of a top-level module, none for a module that is not Python source or
    cannot be found."""
    (tmp_path / "attncheck_probe_pkg" / "sub").mkdir(parents=True)
    for name in ("__init__.py", "paper.py", "sub/__init__.py", "sub/deep.py"):
        (tmp_path / "attncheck_probe_pkg" / name).write_text("")
    (tmp_path / "attncheck_probe_pkg" / "notes.txt").write_text("")
    (tmp_path / "attncheck_probe_single.py").write_text("PAPER = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    files = registry._plugin_sources("attncheck_probe_pkg.paper:PAPER")
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "attncheck_probe_pkg/__init__.py", "attncheck_probe_pkg/paper.py", "attncheck_probe_pkg/sub/__init__.py",
        "attncheck_probe_pkg/sub/deep.py"]
    assert registry._plugin_sources("attncheck_probe_single:PAPER") == [tmp_path / "attncheck_probe_single.py"]
    assert registry._plugin_sources("sys:modules") == [] and registry._plugin_sources("attncheck_no_such:X") == []
