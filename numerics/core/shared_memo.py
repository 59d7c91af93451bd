"""A memo shared by processes through the files of one folder.

The experiment memo of the claims (``numerics.claims.base.memo``) is a dict of one process.
Claims that read the same experiment (``C.sim.semantic``, ``C.transition`` and ``C.baseline``;
``B.rate.d_independence`` and ``B.rate.smoothness``) compute it once in one process; in a pool
(``verify`` on several workers, ``pytest -n N``) each process would compute it again.  A
:class:`SharedMemo` installed in every process of the pool keeps one computation: the first
process to ask computes the entry under a file lock, the others wait and read its pickle.
"""
from __future__ import annotations

import fcntl
import hashlib
import pickle
import time
from pathlib import Path


class Busy(BaseException):
    """Raised by a :class:`SharedMemo` that does not wait (``wait = False``) when another
    process is computing the entry asked for: the caller gives its task back and takes it up
    again later.  A ``BaseException``, so that the claims' own error handling lets it pass."""


class SharedMemo(dict):
    """A dict whose entries are also files of one folder, so that several processes (the pool
    of ``verify``, the processes of ``pytest -n N``) compute each entry once: ``k in memo``
    looks in this process, then in the folder; when the entry is in neither, it takes the
    entry's lock (waiting while another process computes it, then reading its file) and keeps
    it until ``memo[k] = v`` has written the file (a computation that raised releases it:
    ``release_all``).

    The file of a key is named by a hash of its ``repr`` and holds the pickled key, which must
    equal ``k`` on reading: a key whose objects compare by identity, or that cannot be pickled,
    stays in this process. ``clear()`` forgets this process's entries and ignores the files
    written so far, so what this process asks for next is computed again (and rewritten)."""

    WAIT_S = 900.0

    def __init__(self, folder: Path, wait: bool = True):
        super().__init__()
        #: False: an entry another process is computing raises :class:`Busy` instead of waiting
        self.wait = wait
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.held: dict = {}
        self.ignored: set = set()

    def _file(self, k) -> Path | None:
        text = repr(k)
        if " at 0x" in text:
            return None
        return self.folder / f"{hashlib.sha256(text.encode()).hexdigest()}.pickle"

    def _read(self, k, f: Path) -> bool:
        if f.name in self.ignored:
            return False
        try:
            stored_key, value = pickle.loads(f.read_bytes())
        except FileNotFoundError:
            return False
        except Exception:  # a file this process cannot read back: compute the entry here
            return False
        if stored_key != k:
            return False
        dict.__setitem__(self, k, value)
        self._release(f)
        return True

    def _lock(self, f: Path) -> None:
        if f.name in self.held:
            return
        fh = open(f.with_suffix(".lock"), "a+")
        end = time.monotonic() + self.WAIT_S
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not self.wait:
                    fh.close()
                    raise Busy(f.name) from None
                if time.monotonic() > end:  # never wait forever: compute it here too
                    fh.close()
                    return
                time.sleep(0.05)
        self.held[f.name] = fh

    def _release(self, f: Path) -> None:
        fh = self.held.pop(f.name, None)
        if fh is not None:
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def release_all(self) -> None:
        for name in list(self.held):
            self._release(self.folder / name)

    def __contains__(self, k) -> bool:
        if dict.__contains__(self, k):
            return True
        f = self._file(k)
        if f is None:
            return False
        if self._read(k, f):
            return True
        self._lock(f)  # another process may be computing it: wait, then read its file
        return self._read(k, f)

    def __setitem__(self, k, v) -> None:
        dict.__setitem__(self, k, v)
        f = self._file(k)
        if f is None:
            return
        try:
            data = pickle.dumps((k, v), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # not picklable: this process only
            data = None
        if data is not None:
            from numerics.core.cache import write_atomic

            write_atomic(f, data)
            self.ignored.discard(f.name)
        self._release(f)

    def clear(self) -> None:
        dict.clear(self)
        self.release_all()
        self.ignored |= {p.name for p in self.folder.glob("*.pickle")}
