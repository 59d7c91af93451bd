"""numerics.core.cache: the verdict cache's keys, records, artifacts and recorded times."""
import os
import pickle
import sys
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from numerics.core import cache


@dataclass
class Ev:  # what the cache checks of numerics.claims.base.Evidence: its fields
    claim_id: str
    comparisons: list = field(default_factory=list)
    error: str = ""


def _claim(id="T.cache", module="numerics.core.stats"):
    return SimpleNamespace(id=id, module=module)


def _settings(**kw):
    base = dict(mode="quick", seed=1, dps=30, params=())
    return SimpleNamespace(**{**base, **kw})


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "c"))
    return tmp_path / "c"


def test_the_folder_is_the_variable_or_the_platforms_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    assert cache.cache_dir() == tmp_path
    monkeypatch.delenv(cache.ENV)
    import platformdirs

    assert cache.cache_dir() == __import__("pathlib").Path(platformdirs.user_cache_dir("attncheck"))


def test_the_key_changes_with_every_part_it_depends_on():
    c, s = _claim(), _settings()
    k = cache.key(c, s)
    assert len(k) == 64 and k == cache.key(_claim(), _settings())
    others = [cache.key(_claim(id="T.other"), s), cache.key(c, _settings(mode="full")),
              cache.key(c, _settings(seed=2)), cache.key(c, _settings(dps=31)),
              cache.key(c, _settings(params=(("alpha", 2),))),
              cache.key(_claim(module="numerics.core.seeding"), s)]
    assert len({k, *others}) == len(others) + 1
    # a claim without ``module`` is keyed by its experiment's module
    stub = SimpleNamespace(id="T.cache", experiment=SimpleNamespace(__module__="numerics.core.stats"))
    assert cache.claim_module(stub) == "numerics.core.stats" and cache.key(stub, s) == k


def test_versions_name_python_and_the_numerical_packages():
    v = cache.versions()
    assert set(v) == {"python", *cache.VERSIONED}
    assert v["python"].count(".") == 2 and all(v[name] != "absent" for name in cache.VERSIONED)


def _package(root, name):
    files = {
        "__init__.py": "",
        "a.py": "import json\nfrom . import b\nfrom .sub import c\nimport numerics.core.stats\n",
        "b.py": f"NAME = '{name}.d'\nOTHER = 'not a module'\n",
        "d.py": f"import importlib\nX = importlib.import_module(f'{name}.dyn.' + 'x')\nY = '{name}.dyn.'\n",
        "e.py": "",
        "sub/__init__.py": "",
        "sub/c.py": "from .. import e\nfrom ..sub import f\n",
        "sub/f.py": "",
        "dyn/__init__.py": "",
        "dyn/x.py": "",
        "dyn/y.py": "",
        "unused.py": "",
    }
    for rel, text in files.items():
        p = root / name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_dependencies_follow_relative_absolute_and_by_name_imports(tmp_path, monkeypatch):
    name = "attncheck_cache_probe_pkg"
    _package(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    deps = cache.dependencies(f"{name}.a")
    own = {m for m in deps if m.startswith(name)}
    assert own == {name, f"{name}.a", f"{name}.b", f"{name}.d", f"{name}.e", f"{name}.sub",
                   f"{name}.sub.c", f"{name}.sub.f", f"{name}.dyn", f"{name}.dyn.x", f"{name}.dyn.y"}
    assert "numerics.core.stats" in deps and "numerics" in deps and "numerics.core" in deps
    assert "json" not in deps and list(deps) == sorted(deps)
    before = cache._module_digest(f"{name}.a")
    assert cache._module_digest(f"{name}.a") == before
    # the digest covers every dependency's source: a changed one gives a new module key
    key = cache.module_key(f"{name}.a", "x")
    assert key != cache.module_key(f"{name}.a", "y") and len(key) == 64
    cache._module_digest.cache_clear()
    (tmp_path / name / "sub" / "f.py").write_text("Z = 1\n")
    try:
        assert cache._module_digest(f"{name}.a") != before
        assert cache.module_key(f"{name}.a", "x") != key
    finally:
        cache._module_digest.cache_clear()
        for m in [m for m in sys.modules if m.startswith(name)]:
            del sys.modules[m]


def test_imports_resolve_relative_names_from_a_package_init(tmp_path):
    (tmp_path / "__init__.py").write_text("from . import a\nfrom .b import c\nfrom .. import up\n")
    found = cache._imports("numerics.probe", tmp_path / "__init__.py")
    assert found == {"numerics.probe", "numerics.probe.a", "numerics.probe.b", "numerics.probe.b.c",
                     "numerics", "numerics.up"}
    assert cache._source_path("numerics.no_such_module") is None
    assert cache._source_path("json") is not None and cache._source_path("sys") is None
    assert cache._package_modules("numerics.core.stats") == {"numerics.core.stats"}
    assert "numerics.core.stats" in cache._package_modules("numerics.core")


def test_a_record_is_loaded_only_for_its_own_claim(folder, capsys):
    c, s = _claim(), _settings()
    assert cache.load(c, s) is None
    cache.store(c, s, Ev("T.cache", [1, 2]))
    assert cache.load(c, s) == Ev("T.cache", [1, 2])
    assert cache.load(c, _settings(seed=9)) is None
    path = cache._path(cache.key(c, s))
    assert path.parent.name == cache.key(c, s)[:2] and path.parent.parent == folder / "evidence"
    for bad in (Ev("T.other", []), SimpleNamespace(claim_id="T.cache", comparisons=(), error=""),
                Ev("T.cache", [], error="boom")):
        path.write_bytes(pickle.dumps(bad))
        cache._REPORTED.clear()
        assert cache.load(c, s) is None and not path.exists()
        assert "not the evidence of this claim" in capsys.readouterr().err


def test_an_unreadable_record_is_reported_once_and_removed(folder, capsys):
    c, s = _claim(), _settings()
    cache._REPORTED.clear()
    path = cache._path(cache.key(c, s))
    path.parent.mkdir(parents=True)
    for _ in range(2):
        path.write_bytes(b"\x80\x05truncated")
        assert cache.load(c, s) is None and not path.exists()
    err = capsys.readouterr().err
    assert err.count("is unreadable") == 1 and "recomputing it" in err and str(path) in err
    path.mkdir()  # a folder in its place: an OSError that is not FileNotFoundError
    assert cache.load(c, s) is None


def test_errors_are_never_stored_and_a_read_only_cache_is_not_fatal(folder, capsys):
    c, s = _claim(), _settings()
    cache.store(c, s, Ev("T.cache", [], error="raised"))
    assert not (folder / "evidence").exists()
    folder.mkdir(parents=True)
    (folder / "evidence").write_text("a file where the folder should be")
    cache.store(c, s, Ev("T.cache", []))
    assert "verdict cache not written" in capsys.readouterr().err


def test_write_atomic_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "deep" / "f.bin"
    cache.write_atomic(target, b"one")
    cache.write_atomic(target, b"two")
    assert target.read_bytes() == b"two" and os.listdir(target.parent) == ["f.bin"]

    with pytest.raises(TypeError):
        cache.write_atomic(target, object())
    assert os.listdir(target.parent) == ["f.bin"] and target.read_bytes() == b"two"


def test_artifacts_info_and_clear(folder):
    assert cache.load_artifact("power", "k") is None
    cache.store_artifact("power", "k", b"data")
    assert cache.load_artifact("power", "k") == b"data"
    assert cache.info() == {"path": str(folder), "entries": 0, "bytes": 0}
    for i in range(3):
        cache.store(_claim(), _settings(seed=i), Ev("T.cache", [i]))
    stray = folder / "evidence" / "ab" / ".tmp-left"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"x")
    info = cache.info()
    assert info["entries"] == 3 and info["bytes"] == sum(
        f.stat().st_size for f in (folder / "evidence").rglob("*.pickle"))
    assert cache.clear() == 3
    assert cache.info()["entries"] == 0 and not stray.exists()
    assert cache.load_artifact("power", "k") is None  # derived from the evidence: gone too
    assert cache.clear() == 0
    (folder / "artifacts").mkdir()
    (folder / "artifacts" / "power").write_text("not a folder")
    cache.store_artifact("power", "k", b"data")  # cannot be written: not an error


def test_recorded_times_by_mode(folder):
    assert cache.recorded_times("quick") == {}
    cache.record_time("A.x", "quick", 1.234)
    cache.record_time("A.y", "quick", 2)
    cache.record_time("A.x", "full", 30.0)
    cache.record_time("A.x", "quick", 1.5)
    assert cache.recorded_times("quick") == {"A.x": 1.5, "A.y": 2.0}
    assert cache.recorded_times("full") == {"A.x": 30.0}
    cache.record_time("B.z", "quick", 0.123456)
    assert cache.recorded_times("quick")["B.z"] == 0.12
    cache._timings_path().write_text("{broken")
    assert cache.recorded_times("quick") == {}
    cache.record_time("A.x", "quick", 3.0)  # a broken file is started again
    assert cache.recorded_times("quick") == {"A.x": 3.0}


def test_git_commit_is_the_checkout_head_or_unknown():
    c = cache.git_commit()
    assert c == "unknown" or (len(c) == 40 and int(c, 16) >= 0)


class _Raises:
    """Unpickles by calling ``fn(*args)``, which raises."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


def test_an_unreadable_record_says_why_word_by_word(folder, capsys):
    c, s = _claim(), _settings()
    path = cache._path(cache.key(c, s))
    path.parent.mkdir(parents=True)

    def why(data=None):
        cache._REPORTED.clear()
        if data is not None:
            path.write_bytes(data)
        assert cache.load(c, s) is None
        err = capsys.readouterr().err
        assert err.startswith(f"warning: verdict cache record {path} is unreadable (") and err.endswith(
            "); recomputing it\n"), err
        return err[len(f"warning: verdict cache record {path} is unreadable ("):-len("); recomputing it\n")]

    assert why(pickle.dumps(_Raises(next, iter(())))) == "StopIteration"  # an exception without a message
    long = why(pickle.dumps(_Raises(int, "x" * 500)))
    assert long.startswith("ValueError: invalid literal for int() with base 10: 'xxx") and len(long) == 200
    assert why(pickle.dumps(Ev("T.other", []))) == "not the evidence of this claim"
    # a message over several lines (as pickle's own errors have) is reported on one
    assert why(pickle.dumps(_Raises(exec, "raise ValueError('first line,\\n  second\\tline\\n')"))) == "ValueError: first line, second line"
    assert why(pickle.dumps(_Raises(exec, "raise ValueError(' \\n')"))) == "ValueError"
    path.mkdir()  # a folder in its place: the OSError's own words
    assert why() == os.strerror(21) == "Is a directory"


def test_the_key_at_a_users_point_still_names_the_claim_and_its_settings():
    point = (("alpha", 2),)
    keys = {cache.key(_claim(), _settings(params=point)), cache.key(_claim(id="T.other"), _settings(params=point)),
            cache.key(_claim(), _settings(params=point, seed=2)), cache.key(_claim(), _settings(params=point, mode="full")),
            cache.key(_claim(), _settings(params=(("alpha", 3),)))}
    assert len(keys) == 5


def test_a_module_loaded_by_path_is_read_from_that_path(tmp_path):
    import importlib.util

    path = tmp_path / "attncheck_by_path_probe.py"
    path.write_text("X = 1\n")
    spec = importlib.util.spec_from_file_location("attncheck.by_path_probe", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["attncheck.by_path_probe"] = module
    try:
        spec.loader.exec_module(module)
        assert cache._source_path("attncheck.by_path_probe") == path
        # the module's own file wins over its spec's origin ...
        module.__file__ = str(tmp_path / "moved.py")
        assert cache._source_path("attncheck.by_path_probe") == tmp_path / "moved.py"
        # ... when it is Python source; otherwise the finders answer (here: the spec's origin)
        module.__file__ = str(tmp_path / "compiled.so")
        assert cache._source_path("attncheck.by_path_probe") == path
        module.__spec__ = None  # and a module the finders cannot place has no source
        assert cache._source_path("attncheck.by_path_probe") is None
    finally:
        del sys.modules["attncheck.by_path_probe"]


def test_modules_named_in_strings_are_dotted_project_names_without_spaces(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import numerics.core.stats\n"
                   "A = 'numerics.core.seeding'\n"       # a module named by its text
                   "B = 'numerics.core'\n"               # a package, itself
                   "C = 'derivations.paper_b.'\n"        # every module of the package
                   "D = 'numerics core stats'\n"         # words, not a module
                   "E = 'numerics.core is fine'\n"       # a sentence that starts like a module
                   "F = 'numerics'\n"                    # no dot: not counted
                   "G = 'json.decoder'\n")               # not a project package
    found = cache._imports("numerics.probe", src)
    assert {"numerics.core.stats", "numerics.core.seeding", "numerics.core", "derivations.paper_b",
            "derivations.paper_b.rate_exponent"} <= found
    assert not {m for m in found if " " in m} and "numerics" not in found and "json.decoder" not in found


def test_the_cache_reads_evidence_by_its_fields_and_survives_any_object(folder, capsys, monkeypatch):
    c, s = _claim(), _settings()
    # core stays generic: an object with the claim's id and a list of comparisons is evidence,
    # with or without an ``error`` field; anything else is not, and is never an exception
    bare = SimpleNamespace(claim_id="T.cache", comparisons=[1])
    cache.store(c, s, bare)
    assert cache.load(c, s) == bare
    path = cache._path(cache.key(c, s))
    for other in (42, None, "T.cache"):
        path.write_bytes(pickle.dumps(other))
        cache._REPORTED.clear()
        assert cache.load(c, s) is None and "not the evidence of this claim" in capsys.readouterr().err
    # settings without a user's point are keyed as settings with an empty one
    assert cache.key(c, SimpleNamespace(mode="quick", seed=1, dps=30)) == cache.key(c, s)

    # an OSError without an errno: its message
    def failing_open(*a, **k):
        raise OSError("the disk is on fire")
    cache.store(c, s, bare)
    monkeypatch.setattr(cache, "open", failing_open, raising=False)
    cache._REPORTED.clear()
    assert cache.load(c, s) is None
    assert "is unreadable (the disk is on fire); recomputing it" in capsys.readouterr().err


def test_git_commit_asks_git_at_the_repository_root_briefly(monkeypatch):
    import subprocess
    from pathlib import Path

    asked = []

    def run(args, **kw):
        asked.append((args, kw))
        return SimpleNamespace(stdout="  abc123\n")

    monkeypatch.setattr(subprocess, "run", run)
    assert cache.git_commit() == "abc123"
    (args, kw), = asked
    assert args == ["git", "rev-parse", "HEAD"] and kw["cwd"] == Path(cache.__file__).resolve().parents[2]
    assert kw["capture_output"] and kw["text"] and 0 < kw["timeout"] <= 5
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: SimpleNamespace(stdout="\n"))
    assert cache.git_commit() == "unknown"  # not a checkout: git says nothing on stdout

    def missing(*a, **k):
        raise FileNotFoundError("git")
    monkeypatch.setattr(subprocess, "run", missing)
    assert cache.git_commit() == "unknown"


def test_write_atomic_writes_a_hidden_temporary_file_beside_its_target(tmp_path, monkeypatch):
    target = tmp_path / "deep" / "f.bin"
    renamed = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renamed.append(a), real(a, b)))
    cache.write_atomic(target, b"one")
    (tmp,) = renamed
    assert os.path.dirname(tmp) == str(target.parent) and os.path.basename(tmp).startswith(".tmp-")


def test_the_timings_live_beside_the_evidence(folder):
    assert cache._timings_path() == folder / "timings.json"
