"""Discovery of claims, figures and solvable problems.

Modules in :mod:`numerics.claims` (and its subpackages) export ``CLAIMS`` (a list of Claim), modules in
:mod:`numerics.figures` export ``FIGURES`` (a dict id -> callable(path, settings, progress)),
and modules in :mod:`numerics.problems` export ``PROBLEMS`` (a dict name -> ProblemSpec).
Nothing is registered by editing a central list.
"""
from __future__ import annotations

import importlib
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


@lru_cache(maxsize=1)
def claims() -> dict:
    out = {}
    for group in _discover("numerics.claims", "CLAIMS"):
        for claim in group:
            if claim.id in out:
                raise RuntimeError(f"duplicate claim id {claim.id}")
            out[claim.id] = claim
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def figures() -> dict:
    out = {}
    for group in _discover("numerics.figures", "FIGURES"):
        out.update(group)
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def problems() -> dict:
    out = {}
    for group in _discover("numerics.problems", "PROBLEMS"):
        out.update(group)
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def benchmarks() -> dict:
    out = {}
    for group in _discover("numerics.benchmarks", "BENCHMARKS"):
        out.update(group)
    return dict(sorted(out.items()))


def select(ids) -> list:
    """Claims by exact id or id prefix (``A.thm3`` selects all of ``A.thm3.*``)."""
    table = claims()
    if not ids:
        return list(table.values())
    chosen = []
    for key in ids:
        hits = [c for cid, c in table.items() if cid == key or cid.startswith(key.rstrip(".") + ".")]
        if not hits:
            raise KeyError(key)
        chosen.extend(h for h in hits if h not in chosen)
    return chosen
