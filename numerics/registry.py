"""Discovery of papers, and through them of claims, figures, solvable problems and benchmarks.

Every paper, attncheck's own included, is one :class:`numerics.paper.Paper` named by an entry
point of the group ``attncheck.papers`` (attncheck's ``pyproject.toml`` declares A, B and C
there, a plugin its own paper in its own).  The registry reads that group, the older group
``attncheck.claims`` of plugins that export a module with a ``CLAIMS`` list (wrapped in a paper
without a prefix), and the files given with ``--claims`` (a ``PAPER`` or a bare ``CLAIMS``
list).  No package is walked and no list of papers is kept here: an install whose metadata
predates the group is refused with the command that renews it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

#: claim files loaded with ``attncheck verify --claims FILE.py`` (or :func:`add_claims_file`)
EXTRA_FILES: list[str] = []
#: the entry-point group of papers: each entry names a ``numerics.paper.Paper``
ENTRY_POINT_GROUP = "attncheck.papers"
#: the group of plugins written before papers were objects: a module with a ``CLAIMS`` list (and
#: optionally ``FIGURES``, ``PROBLEMS``, ``BENCHMARKS`` dicts), or the list itself; still read
LEGACY_GROUP = "attncheck.claims"


class RegistryError(ValueError):
    """A paper or a claim that cannot be registered: a plugin that could not be loaded (bad file,
    duplicate id or prefix, neither PAPER nor CLAIMS), a paper that is inconsistent
    (:class:`numerics.paper.Paper`), or a claim, equation or step that is inconsistent
    (:func:`check`).  One line naming the paper or the claim, the object and the fix; the command
    line exits 2."""


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


def _entry_points(group: str) -> list:
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda ep: (ep.name, ep.value))


def _own(value: str) -> bool:
    """An entry point (``module:attribute``) of attncheck itself."""
    from numerics.core.cache import PROJECT_PACKAGES

    return value.split(":")[0].split(".")[0] in PROJECT_PACKAGES


def _predates(what: str, group: str) -> RegistryError:
    """An install whose metadata names none of attncheck's own entries of ``group``: sources
    newer than the editable install."""
    return RegistryError(f"no {what} of attncheck is registered (the entry-point group {group} of the installed "
                         "metadata names none): the install predates the sources; run `pip install -e .` in the "
                         "checkout")


def _registered() -> list:
    """``(paper, own)`` for every registered paper, in the order they are read: the entry points
    of both groups, then the ``--claims`` files; ``own``: one of attncheck's papers."""
    from numerics.paper import wrap

    found = []
    for group in (ENTRY_POINT_GROUP, LEGACY_GROUP):
        for ep in _entry_points(group):
            try:
                obj = ep.load()
            except Exception as e:  # a broken plugin names itself, it does not break attncheck
                raise RegistryError(f"paper plugin {ep.name!r} ({ep.value}) failed to load: {type(e).__name__}: "
                                    f"{e}") from e
            own = group == ENTRY_POINT_GROUP and _own(ep.value)
            found.append((wrap(obj, f"entry point {ep.name!r} ({ep.value})"), own))
    if not any(own for _, own in found):
        raise _predates("paper", ENTRY_POINT_GROUP)
    found += [(wrap(_load_file(path), f"--claims {path!r}"), False) for path in EXTRA_FILES]
    owner = {}
    for paper, _ in found:
        if paper.prefix and paper.prefix in owner:
            raise RegistryError(f"paper {paper.prefix}: the prefix is registered twice ({owner[paper.prefix]!r} and "
                                f"{paper.title!r}); give one of them another prefix")
        owner[paper.prefix] = paper.title
    return found


def papers() -> tuple:
    """Every registered paper (``numerics.paper.Paper``), attncheck's own first."""
    return tuple(paper for paper, _ in sorted(_registered(), key=lambda r: not r[1]))


@lru_cache(maxsize=None)
def _load_file(path: str):
    import importlib.util
    import os
    import sys

    from numerics.paper import wrap

    if not os.path.isfile(path) or not path.endswith(".py"):
        raise RegistryError(f"--claims {path!r}: expected an existing .py file")
    name = "attncheck_user_claims_" + str(abs(hash(os.path.abspath(path))))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise RegistryError(f"--claims {path!r} failed to load: {type(e).__name__}: {e}") from e
    wrap(module, f"--claims {path!r}")  # a PAPER, or a CLAIMS list
    return module


def add_claims_file(path: str) -> None:
    """Register the paper (``PAPER``) or the bare ``CLAIMS`` of a user's file (``attncheck verify
    --claims FILE.py``)."""
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
    """Every claim of every registered paper (:func:`papers`), checked (:func:`check`); an id is
    registered once, and every figure a claim names is registered by some paper."""
    out = {}
    for paper, own in _registered():
        for claim in paper.get_claims():
            # a plugin's equations are built at once (small, once per process); attncheck's own
            # claims' when first used (all of them would cost seconds on every command), and the
            # default suite builds every one (tests/test_claims_catalogue.py)
            check(claim, built=not own)
            if claim.id in out:
                raise RegistryError(f"claim {claim.id}: registered twice (paper {out[claim.id][1]} and paper "
                                    f"{paper.name}); give one of them another id")
            out[claim.id] = (claim, paper.name)
    known = figures()
    for claim, paper in out.values():
        missing = [f for f in claim.figures if f not in known]
        if missing:
            raise RegistryError(f"claim {claim.id}: figure {missing[0]!r} is registered by no paper; add it to the "
                                f"figures of paper {paper} or drop it from the claim's figures")
    _check_notation()
    return {cid: claim for cid, (claim, _) in sorted(out.items())}


def _check_notation() -> None:
    """Each notation module of the entry-point group ``attncheck.notation`` loads and is named
    after a registered paper's prefix."""
    from derivations.core import NOTATION_GROUP, notation_tables

    if not any(_own(ep.value) for ep in _entry_points(NOTATION_GROUP)):  # Paper A prints pi_+ through it
        raise _predates("notation", NOTATION_GROUP)
    try:
        tables = notation_tables()
    except ValueError as e:
        raise RegistryError(str(e)) from e
    prefixes = {paper.prefix for paper, _ in _registered()}
    for prefix in tables:
        if prefix not in prefixes:
            raise RegistryError(f"notation {prefix}: the entry point {prefix!r} of {NOTATION_GROUP} names no registered "
                                "paper; name it after the prefix of the paper whose symbols it prints")


def _merged(part: str) -> dict:
    """The ``part`` tables (``figures``, ``problems``, ``benchmarks``) of every registered paper
    (and, for the benchmarks, those of attncheck's machinery), merged: an id registered twice is
    refused, naming it."""
    from numerics.paper import merge

    tables = [(f"paper {paper.name}", getattr(paper, f"get_{part}")()) for paper in papers()]
    if part == "benchmarks":
        from numerics.benchmarks import machinery

        tables = [(f"module {name}", table) for name, table in machinery()] + tables
    return merge(part, tables)


@lru_cache(maxsize=1)
def figures() -> dict:
    """Every figure, id -> ``callable(path, settings, progress)``: the figures of every paper (a
    claim names its own in ``Claim.figures``)."""
    return _merged("figures")


@lru_cache(maxsize=1)
def problems() -> dict:
    """Every solvable problem, name -> ``ProblemSpec``: the problems of every paper."""
    return _merged("problems")


@lru_cache(maxsize=1)
def benchmarks() -> dict:
    """Every benchmark: attncheck's own (``numerics.benchmarks.machinery``) and every paper's."""
    return _merged("benchmarks")


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
    """The registered papers' entry points (both groups), as ``(name, value)``: part of the key
    of anything remembered about the registered claims."""
    return tuple(sorted((ep.name, ep.value) for group in (ENTRY_POINT_GROUP, LEGACY_GROUP)
                        for ep in _entry_points(group)))


def _index_key() -> str:
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]  # the repository (numerics/registry.py)
    h = hashlib.sha256()
    for folder in ("numerics/claims", "numerics/registration", "numerics/core", "numerics/theory", "derivations"):
        for f in sorted((root / folder).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    for name, value in plugin_entry_points():
        h.update(f"{name}={value}".encode())
        for f in [] if _own(value) else _plugin_sources(value):  # an edited plugin is listed afresh
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
