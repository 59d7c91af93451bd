"""Discovery of claims, figures and solvable problems.

Modules in :mod:`numerics.claims` (and its subpackages) export ``CLAIMS`` (a list of Claim), modules in
:mod:`numerics.figures` export ``FIGURES`` (a dict id -> callable(path, settings, progress)),
and modules in :mod:`numerics.problems` export ``PROBLEMS`` (a dict name -> ProblemSpec).
Nothing is registered by editing a central list.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
import pkgutil
from functools import lru_cache


def _discover(package: str, attribute: str):
    pkg = importlib.import_module(package)
    found = []
    walk = pkgutil.walk_packages(pkg.__path__, prefix=f"{package}.")
    for info in sorted(walk, key=lambda i: i.name):
        leaf = info.name.rsplit(".", 1)[-1]
        if leaf.startswith("_") or leaf == "base" or info.ispkg:
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, attribute):
            found.append(getattr(module, attribute))
    return found


#: claim files loaded with ``attncheck verify --claims FILE.py`` (or :func:`add_claims_file`)
EXTRA_FILES: list[str] = []
ENTRY_POINT_GROUP = "attncheck.claims"


class RegistryError(ValueError):
    """A claim that cannot be registered: a plugin that could not be loaded (bad file, duplicate
    id, no CLAIMS), or a claim, equation or step that is inconsistent (:func:`check`).  One line
    naming the claim, the object and the fix; the command line exits 2."""


def check(claim, built: bool = False) -> None:
    """The consistency of a claim's definition, checked when it is registered (built-in claims
    and plugins alike; nothing is computed): ``id`` and ``paper``, ``mutants`` registered
    (``derivations.core.MUTANTS``) and each named once, ``outputs`` step names, ``point_space``
    and ``param_space`` parameter spaces.  ``built``: its equations and statement are built too
    (:meth:`Claim.get_equations`: an inconsistent :class:`~derivations.core.Equation` is
    refused).  The steps its mutants and outputs rewrite are checked where its theory is
    computed (``numerics.claims.runner.check_steps``)."""
    from derivations.core import all_mutants
    from numerics.core.params import ParamSpace

    cid = getattr(claim, "id", None)
    if not isinstance(cid, str) or not cid or not isinstance(getattr(claim, "paper", None), str):
        raise RegistryError(f"claim {cid!r}: id and paper must be non-empty strings")
    known = all_mutants()
    for name in claim.mutants:
        if name not in known:
            raise RegistryError(f"claim {cid}: mutant {name!r} is not registered; define it with "
                                "derivations.core.mutant(name, step, description, transform) where the claim "
                                "is loaded, or drop it from mutants")
    twice = sorted({m for m in claim.mutants if list(claim.mutants).count(m) > 1})
    if twice:
        raise RegistryError(f"claim {cid}: mutant {twice[0]} is listed twice in mutants; list it once")
    figs = getattr(claim, "figures", ())
    if isinstance(figs, str) or not all(isinstance(f, str) and f for f in figs):
        raise RegistryError(f"claim {cid}: figures must be a tuple of figure ids, got {figs!r}")
    if isinstance(claim.outputs, str) or not all(isinstance(s, str) and s for s in claim.outputs):
        raise RegistryError(f"claim {cid}: outputs must be a tuple of step names, got {claim.outputs!r}")
    for name in ("point_space", "param_space"):
        space = getattr(claim, name)
        if space is not None and not isinstance(space, ParamSpace):
            raise RegistryError(f"claim {cid}: {name} must be a numerics.core.params.ParamSpace or None, got "
                                f"{type(space).__name__}")
    if built:
        claim.get_equations()
        claim.get_statement_eq()


def _plugin_objects():
    """What each claim plugin registers: the loaded object of each entry point, then each file
    added with :func:`add_claims_file` (a module, or for an entry point a CLAIMS list itself)."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as e:  # a broken plugin names itself, it does not break attncheck
            raise RegistryError(f"claim plugin {ep.name!r} ({ep.value}) failed to load: {e}") from e
        yield obj
    for path in EXTRA_FILES:
        yield _load_file(path)


def _plugin_groups():
    for obj in _plugin_objects():
        yield getattr(obj, "CLAIMS", obj)


@lru_cache(maxsize=None)
def _load_file(path: str):
    import importlib.util
    import os

    if not os.path.isfile(path) or not path.endswith(".py"):
        raise RegistryError(f"--claims {path!r}: expected an existing .py file")
    name = "attncheck_user_claims_" + str(abs(hash(os.path.abspath(path))))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise RegistryError(f"--claims {path!r} failed to load: {type(e).__name__}: {e}") from e
    if not isinstance(getattr(module, "CLAIMS", None), (list, tuple)):
        raise RegistryError(f"--claims {path!r}: the file defines no CLAIMS list")
    return module


def add_claims_file(path: str) -> None:
    """Register the CLAIMS of a user's file (``attncheck verify --claims FILE.py``)."""
    import os

    path = os.path.abspath(path)
    _load_file(path)
    if path not in EXTRA_FILES:
        EXTRA_FILES.append(path)
        claims.cache_clear()
        figures.cache_clear()
        problems.cache_clear()
        benchmarks.cache_clear()


@lru_cache(maxsize=1)
def claims() -> dict:
    """Every claim: the built-in ones, those of installed plugins (entry-point group
    ``attncheck.claims``: a module with a CLAIMS list, or the list itself) and those of the
    files added with :func:`add_claims_file`."""
    out = {}
    built_in = list(_discover("numerics.claims", "CLAIMS"))
    plugins = list(_plugin_groups())
    for group, plugin in [(g, False) for g in built_in] + [(g, True) for g in plugins]:
        for claim in group:
            # a plugin's equations are built at once (small, once per process); the built-in
            # claims' when first used (all of them would cost seconds on every command), and
            # the default suite builds every one (tests/test_claims_catalogue.py)
            check(claim, built=plugin)
            if claim.id in out:
                raise RegistryError(f"duplicate claim id {claim.id}")
            out[claim.id] = claim
    return dict(sorted(out.items()))


def _merged(package: str, attribute: str) -> dict:
    """The ``attribute`` dicts of the modules of ``package`` and those the claim plugins export
    next to their CLAIMS, merged (the same attribute: a plugin registers its figures, problems
    and benchmarks as the built-in papers do).  An id registered twice is refused."""
    out = {}
    groups = list(_discover(package, attribute))
    groups += [getattr(obj, attribute) for obj in _plugin_objects() if isinstance(getattr(obj, attribute, None), dict)]
    for group in groups:
        twice = sorted(set(out) & set(group))
        if twice:
            raise RegistryError(f"{attribute}: {twice[0]!r} is registered twice; give it another id")
        out.update(group)
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def figures() -> dict:
    """Every figure, id -> ``callable(path, settings, progress)``: the ``FIGURES`` of the modules
    of :mod:`numerics.figures` and of the claim plugins (a claim names its own in
    ``Claim.figures``)."""
    return _merged("numerics.figures", "FIGURES")


@lru_cache(maxsize=1)
def problems() -> dict:
    """Every solvable problem: the ``PROBLEMS`` of :mod:`numerics.problems` and of the plugins."""
    return _merged("numerics.problems", "PROBLEMS")


@lru_cache(maxsize=1)
def benchmarks() -> dict:
    """Every benchmark: the ``BENCHMARKS`` of :mod:`numerics.benchmarks` and of the plugins."""
    return _merged("numerics.benchmarks", "BENCHMARKS")


def claim(claim_id: str):
    """One claim, importing only the module that defines it (through the index); KeyError if
    there is none."""
    import importlib

    info = getattr(claims, "cache_info", None)  # (tests replace claims() by a plain function)
    if not EXTRA_FILES and info is not None and info().currsize == 0:
        rec = next((r for r in claim_index() if r["id"] == claim_id), None)
        if rec is None:
            raise KeyError(claim_id)
        try:
            module = importlib.import_module(rec["module"])
            for c in getattr(module, "CLAIMS", ()):
                if c.id == claim_id:
                    check(c)
                    return c
        except ImportError:
            pass
    return claims()[claim_id]


@dataclass(frozen=True)
class ClaimStub:
    """What the index knows of a claim: enough to judge recorded evidence without importing it."""

    id: str
    reference: str
    statement: str
    module: str
    status: str
    title: str = ""
    statement_tex: str = ""


def stubs(ids) -> list:
    """Index entries of the claims selected by ``ids`` (as :func:`select`), without importing
    the claims."""
    table = {r["id"]: ClaimStub(r["id"], r["reference"], r["statement"], r["module"], r["status"], r.get("title", ""),
                                r.get("statement_tex", ""))
             for r in claim_index()}
    return _choose(table, ids)


def _choose(table: dict, ids) -> list:
    if not ids:
        return list(table.values())
    chosen = []
    for key in ids:
        hits = [c for cid, c in table.items() if cid == key or cid.startswith(key.rstrip(".") + ".")]
        if not hits:
            raise KeyError(key)
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def select(ids) -> list:
    """Claims by exact id or id prefix (``A.thm3`` selects all of ``A.thm3.*``)."""
    check_ids(ids)
    return _choose(claims(), ids)


def check_ids(ids) -> None:
    """KeyError for the first of ``ids`` (ids or prefixes) that selects no claim, read from the
    index when the claims are not imported yet: an unknown id is refused without importing
    every claim (and SymPy).  Once they are imported (or with ``--claims`` files), the
    selection itself checks."""
    info = getattr(claims, "cache_info", None)  # (tests replace claims() by a plain function)
    if ids and not EXTRA_FILES and info is not None and info().currsize == 0:
        stubs(ids)


# --- the claim index: what ``attncheck list`` shows, without importing any claim ---------------
def plugin_entry_points() -> tuple:
    """The installed claim plugins, as ``(name, value)`` of their entry points: part of the key
    of anything remembered about the registered claims."""
    from importlib.metadata import entry_points

    return tuple(sorted((ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP)))


def _index_key() -> str:
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]  # the repository (numerics/registry.py)
    h = hashlib.sha256()
    for folder in ("numerics/claims", "numerics/core", "numerics/theory", "derivations"):
        for f in sorted((root / folder).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    for name, value in plugin_entry_points():
        h.update(f"{name}={value}".encode())
        for f in _plugin_sources(value):  # an edited plugin is listed afresh
            h.update(f.read_bytes())
    return h.hexdigest()


def _plugin_sources(value: str) -> list:
    """The .py files of the top-level package of an entry point's module (read, not imported)."""
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec(value.split(":")[0].split(".")[0])
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return sorted(f for d in spec.submodule_search_locations for f in Path(d).rglob("*.py"))
    return [Path(spec.origin)] if spec.origin and spec.origin.endswith(".py") else []


def _describe(claim) -> dict:
    return {"id": claim.id, "paper": claim.paper, "reference": claim.reference, "status": claim.status,
            # the heading of the claim's section (numerics.latex.title: the reference if untitled)
            "title": getattr(claim, "title", "") or claim.reference,
            "statement": claim.statement, "statement_tex": getattr(claim, "statement_tex", ""),
            "evaluable": claim.evaluate is not None,
            "params": claim.param_space.describe() if claim.param_space else [],
            "mutants": len(claim.mutants), "module": claim.experiment.__module__,
            # the point a run may take (verify --param, explore): the free parameters, the fixed
            # ones with their reasons, or why the claim runs only at its design
            "point": (None if getattr(claim, "point_space", None) is None else
                      {"free": list(claim.point_space.names), "fixed": [list(f) for f in claim.point_space.fixed]}),
            "design_only": claim.design_only,
            "max_dps": claim.max_dps if claim.evaluate is not None else None,
            # certifiable: the claim's own evaluator runs under the arb context (numerics.theory.certify)
            "certifiable": bool(callable(getattr(claim.evaluate, "supports", None)) and claim.evaluate.supports("arb"))}


def claim_index() -> list[dict]:
    """One record per claim (id, paper, reference, status, statement, evaluable, params).
    Kept on disk by the hash of the claims' and derivations' sources, so that listing the
    claims does not import them (or SymPy) again; claim files given with ``--claims`` are
    always read."""
    import json

    from numerics.core.cache import cache_dir

    if EXTRA_FILES:
        return [_describe(c) for c in claims().values()]
    path = cache_dir() / f"index-{_index_key()[:32]}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    index = [_describe(c) for c in claims().values()]
    try:
        from numerics.core.cache import write_atomic

        write_atomic(path, json.dumps(index).encode())  # a unique temporary name: processes share the folder
    except OSError:
        pass
    return index
