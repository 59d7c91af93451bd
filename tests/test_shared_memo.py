"""The memo shared by processes (``numerics.core.shared_memo.SharedMemo``) with real processes:
the lock (a process asking for an entry another one is computing waits and reads its value;
the entry is computed once), the wait flag (``wait=False`` raises ``Busy`` instead of waiting),
``clear()`` (this process computes its entries again and rewrites them) and the release of a
lock whose computation raised.

The processes are spawned (as the pool of ``verify`` spawns them) and synchronised by events:
a process that must be waiting when another one writes has said that it is about to ask before
the writer is let go.  No assertion is on a time.
"""
from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from numerics.core.shared_memo import Busy, SharedMemo

CTX = multiprocessing.get_context("spawn")
KEY = ("Z.shared", "experiment", 1)
#: how long a test waits for an event of another process before it fails (never reached when
#: the memo works; it keeps a broken memo from hanging the suite)
TIMEOUT_S = 60.0
#: a broken lock or wait flag would make a waiting process wait this long instead of WAIT_S
SHORT_WAIT_S = 3.0


def _computed(log: str) -> None:
    with open(log, "a") as fh:  # one line per computation
        fh.write(f"{os.getpid()}\n")


def _computations(log) -> list:
    return open(log).read().split() if os.path.exists(log) else []


def _hold(folder, log, value, locked, release):
    """Ask for the missing KEY as ``numerics.claims.base.memo`` does (taking its lock), say
    so, wait to be let go, then compute it and write it."""
    memo = SharedMemo(folder)
    assert KEY not in memo
    locked.set()
    assert release.wait(TIMEOUT_S)
    _computed(log)
    memo[KEY] = value
    assert not memo.held


def _hold_and_raise(folder, locked, release, raised, done):
    """``numerics.claims.base.memo`` of KEY whose computation raises once let go; the process
    stays alive until ``done``, so that only the memo can have released the lock."""
    from numerics.claims import base
    from numerics.claims.base import Settings

    base._MEMO = SharedMemo(folder)

    def compute():
        locked.set()
        assert release.wait(TIMEOUT_S)
        raise RuntimeError("the computation fails")

    try:
        base.memo(Settings(), KEY, compute)
    except RuntimeError:
        raised.set()
    assert done.wait(TIMEOUT_S)


def _ask(folder, log, asking, out, wait=True, key=KEY):
    """Ask for ``key`` as ``numerics.claims.base.memo`` does (compute it if it is missing) and
    put ``(how, value)`` on ``out``: how is "read", "computed" or "busy"."""
    memo = SharedMemo(folder, wait=wait)
    memo.WAIT_S = SHORT_WAIT_S
    asking.set()
    try:
        if key in memo:
            out.put(("read", memo[key]))
            return
    except Busy:
        out.put(("busy", None))
        return
    _computed(log)
    memo[key] = f"computed by {os.getpid()}"
    out.put(("computed", memo[key]))


def _start(target, *args):
    p = CTX.Process(target=target, args=args, daemon=True)
    p.start()
    return p


def _finish(*procs):
    for p in procs:
        p.join(TIMEOUT_S)
        if p.is_alive():
            p.terminate()
            p.join(5)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]


@pytest.fixture
def folder(tmp_path):
    return str(tmp_path / "memo")


def test_a_second_process_waits_for_the_first_and_reads_its_value(folder, tmp_path):
    """Process A asks for a missing entry (taking its lock) and computes it slowly; process B
    asks meanwhile: B waits, reads A's value, and the entry is computed once."""
    log = str(tmp_path / "computed.log")
    locked, release, asking, out = CTX.Event(), CTX.Event(), CTX.Event(), CTX.Queue()
    a, b = _start(_hold, folder, log, "A's value", locked, release), None
    try:
        assert locked.wait(TIMEOUT_S)
        b = _start(_ask, folder, log, asking, out)
        assert asking.wait(TIMEOUT_S)
        time.sleep(0.5)  # B is at the lock (a memo without one would compute now)
        release.set()
        how, value = out.get(timeout=TIMEOUT_S)
    finally:
        release.set()
        _finish(a, *([b] if b else []))
    assert (how, value) == ("read", "A's value")
    assert len(_computations(log)) == 1


def test_wait_false_is_busy_while_another_process_holds_the_lock(folder, tmp_path):
    """A memo that does not wait raises ``Busy`` for an entry another process is computing
    (holding no lock of its own), and reads the entry once it is written."""
    log = str(tmp_path / "computed.log")
    locked, release = CTX.Event(), CTX.Event()
    a = _start(_hold, folder, log, "A's value", locked, release)
    try:
        assert locked.wait(TIMEOUT_S)
        memo = SharedMemo(folder, wait=False)
        memo.WAIT_S = SHORT_WAIT_S
        with pytest.raises(Busy):
            KEY in memo  # noqa: B015
        assert not memo.held
        release.set()
        a.join(TIMEOUT_S)
        assert KEY in memo and memo[KEY] == "A's value"
    finally:
        release.set()
        _finish(a)
    assert len(_computations(log)) == 1


def test_clear_computes_again_in_this_process_and_rewrites(folder, tmp_path):
    """After ``clear()`` an entry another process wrote is computed again here (the written
    file is ignored) and rewritten: a new process reads the new value.  A lock this process
    holds is released by ``clear()``: a process that does not wait then takes that entry."""
    log = str(tmp_path / "computed.log")
    locked, release = CTX.Event(), CTX.Event()
    release.set()
    _finish(_start(_hold, folder, log, "old", locked, release))
    memo = SharedMemo(folder)
    assert KEY in memo and memo[KEY] == "old"
    memo.clear()
    assert KEY not in memo  # to be computed again here (the lock is this process's now)
    memo[KEY] = "new"
    asking, out = CTX.Event(), CTX.Queue()
    _finish(_start(_ask, folder, log, asking, out))
    assert out.get(timeout=TIMEOUT_S) == ("read", "new")
    assert KEY in memo and memo[KEY] == "new"
    other = ("Z.shared", "another experiment")
    assert other not in memo and memo.held  # this process computes it ...
    memo.clear()  # ... until it forgets it
    assert not memo.held
    asking, out = CTX.Event(), CTX.Queue()
    _finish(_start(_ask, folder, log, asking, out, False, other))
    assert out.get(timeout=TIMEOUT_S)[0] == "computed"


def test_a_computation_that_raised_releases_its_lock(folder, monkeypatch):
    """``numerics.claims.base.memo`` releases the lock of an entry whose computation raised,
    while its process lives on: another process that does not wait computes the entry."""
    from numerics.claims import base
    from numerics.claims.base import Settings

    locked, release, raised, done = CTX.Event(), CTX.Event(), CTX.Event(), CTX.Event()
    a = _start(_hold_and_raise, folder, locked, release, raised, done)
    try:
        assert locked.wait(TIMEOUT_S)
        memo = SharedMemo(folder, wait=False)
        memo.WAIT_S = SHORT_WAIT_S
        monkeypatch.setattr(base, "_MEMO", memo)
        with pytest.raises(Busy):  # A is computing it
            base.memo(Settings(), KEY, lambda: "here")
        release.set()
        assert raised.wait(TIMEOUT_S) and a.is_alive()
        assert base.memo(Settings(), KEY, lambda: "here") == "here"
    finally:
        release.set()
        done.set()
        _finish(a)
