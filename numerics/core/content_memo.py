"""A bounded in-process memo of deterministic computations, keyed by what they read.

A theory's solve under a structural mutant of an output step, or under the ±5 % scaling of an
output, reads the same equations as the true solve: keyed by the SymPy expressions it compiles
(hashable, equal when equal) and a digest of its numeric inputs, the second solve is the
first's, and a mutant that reaches the equations has another key.  The caller builds the key
from everything the computation reads; the memo keeps the latest ``kept`` entries."""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Callable, Hashable

import numpy as np


class ContentMemo:
    """``memo.get(key, compute)``: the value kept under ``key``, or ``compute()`` kept there
    (the oldest entry dropped beyond ``kept``).  Values are the caller's to keep immutable."""

    def __init__(self, kept: int):
        self.kept = kept
        self._entries: OrderedDict = OrderedDict()

    def get(self, key: Hashable, compute: Callable):
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        value = compute()
        self._entries[key] = value
        if len(self._entries) > self.kept:
            self._entries.popitem(last=False)
        return value

    def keys(self) -> list:
        return list(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def digest(*parts) -> bytes:
    """16 bytes that change with any part: a numpy array by its dtype, shape and values, any
    other part by its ``repr``."""
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        if isinstance(p, np.ndarray):
            a = np.ascontiguousarray(p)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        else:
            h.update(repr(p).encode())
        h.update(b"\x00")
    return h.digest()
