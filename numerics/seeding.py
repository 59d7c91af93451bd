"""All randomness comes from :class:`numpy.random.SeedSequence`.

A run has one root seed (``--seed``).  Each claim derives its own child sequence from the
root and a stable hash of its id, so adding a claim never changes another claim's draws, and a
verdict records both the root seed and the spawn key needed to replay it.
"""
from __future__ import annotations

import hashlib

import numpy as np

DEFAULT_SEED = 20260429


def stable_key(text: str) -> int:
    """A platform-independent 32-bit integer for ``text`` (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def seed_sequence(root: int, *path: str | int) -> np.random.SeedSequence:
    key = tuple(stable_key(p) if isinstance(p, str) else int(p) for p in path)
    return np.random.SeedSequence(entropy=int(root), spawn_key=key)


def rng(root: int, *path: str | int) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(root, *path))
