"""All randomness comes from :class:`numpy.random.SeedSequence`.

A run has one root seed (``--seed``).  Each task derives its own sequence from the root and a
stable hash of its path (claim id, then the names of the sub-task), so adding a claim never
changes another claim's draws and no result depends on the order tasks run in.  Children are
derived by key (:func:`child`, :func:`children`), never by the stateful ``SeedSequence.spawn``:
``spawn`` counts its calls, so the same object spawned twice gives different draws.

Every path drawn from while a :func:`recording` is open is recorded, so a verdict lists the
seed paths it actually used.
"""
from __future__ import annotations

import contextvars
import hashlib
from contextlib import contextmanager

import numpy as np

DEFAULT_SEED = 20260429


def stable_key(text: str) -> int:
    """A platform-independent 32-bit integer for ``text`` (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


_RECORD: contextvars.ContextVar = contextvars.ContextVar("attncheck_seed_paths", default=None)


def _key(p) -> int:
    return stable_key(p) if isinstance(p, str) else int(p)


def seed_sequence(root: int, *path: str | int) -> np.random.SeedSequence:
    rec = _RECORD.get()
    if rec is not None:
        entry = [int(root), *path]
        if entry not in rec:
            rec.append(entry)
    return np.random.SeedSequence(entropy=int(root), spawn_key=tuple(_key(p) for p in path))


def child(ss: np.random.SeedSequence, key: str | int) -> np.random.SeedSequence:
    """The child of ``ss`` at ``key``: what ``ss.spawn(k + 1)[k]`` gives a fresh ``ss`` for an
    integer key, but stateless (the same call always gives the same child)."""
    return np.random.SeedSequence(entropy=ss.entropy, spawn_key=tuple(ss.spawn_key) + (_key(key),))


def children(ss: np.random.SeedSequence, n: int, start: int = 0) -> list[np.random.SeedSequence]:
    """``[child(ss, start), ..., child(ss, start + n - 1)]``."""
    return [child(ss, k) for k in range(start, start + n)]


@contextmanager
def recording(into: list | None = None):
    """Record every seed path drawn inside the block into ``into`` (returned)."""
    rec = [] if into is None else into
    token = _RECORD.set(rec)
    try:
        yield rec
    finally:
        _RECORD.reset(token)


def replay(paths) -> None:
    """Re-record ``paths`` (seed paths of a memoised experiment) into the open recording."""
    rec = _RECORD.get()
    if rec is not None:
        for p in paths:
            if list(p) not in rec:
                rec.append(list(p))


def rng(root: int, *path: str | int) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(root, *path))
