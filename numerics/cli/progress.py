"""Progress of long work on stderr, one printer for every command: on a terminal, rich (a line
per running loop: its label, a bar when its length is known, the count and the time elapsed;
gone when the loop ends); without one (a log, a pipe, CI), plain lines: nothing for a loop
that ends within :data:`PLAIN_QUIET` seconds; for a longer one a line then, at most one every
:data:`PLAIN_EVERY` seconds after it, and one at its end (``label: done/total (elapsed s)``).

A :class:`Progress` is the reporter of ``numerics.core.tasks.reporting``: ``(label, done,
total)`` from every tracked loop inside a claim (``track``, ``map_tasks``), every solver
iteration (``numerics.core.solve.driver.iterate``; ``total`` None), and the command's own steps
(claims, benchmarks)."""
from __future__ import annotations

import sys
import time

#: seconds between two plain lines of one loop
PLAIN_EVERY = 10.0
#: a loop that ends within this many seconds prints no plain line; one that runs longer, a line
#: when it is due and one at its end
PLAIN_QUIET = 2.0


class Progress:
    """``with Progress() as p: p(label, done, total)`` (``total`` None: a count without an end);
    ``stream`` is stderr unless given; ``terminal`` says whether it is one (default: asked)."""

    def __init__(self, stream=None, terminal: bool | None = None, every: float = PLAIN_EVERY,
                 quiet: float = PLAIN_QUIET):
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.every, self.quiet = every, quiet
        self._rich = None
        self._tasks: dict[str, int] = {}
        self._start: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._done: dict[str, int] = {}
        self._runs: dict[str, int] = {}

    def __enter__(self):
        if self.terminal:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TextColumn, TimeElapsedColumn

            self._rich = Bars(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                              TimeElapsedColumn(),
                              console=Console(file=self.stream), transient=True)
            self._rich.start()
        return self

    def __exit__(self, *exc):
        if self._rich is not None:
            self._rich.stop()
            self._rich = None
        return False

    def __call__(self, label: str, done: int, total: int | None = None) -> None:
        end = total is not None and done >= total
        if self._rich is not None:
            if label not in self._tasks:
                self._tasks[label] = self._rich.add_task(label, total=total)
            self._rich.update(self._tasks[label], completed=done, total=total)
            if end:
                self._rich.remove_task(self._tasks.pop(label))
            return
        if total is None:  # a count without an end (a solver's iterations): a new run when it restarts
            if done <= self._done.get(label, 0):
                self._runs[label] = self._runs.get(label, 1) + 1
            self._done[label] = done
        now = time.monotonic()
        start = self._start.setdefault(label, now)
        last = self._last.get(label)
        due = now - start >= self.quiet and (last is None or now - last >= self.every)
        if due or (end and last is not None):
            self._last[label] = now
            count = f"{done}/{total}" if total is not None else f"run {self._runs.get(label, 1)}, step {done}"
            print(f"{label}: {count} ({now - start:.0f} s)", file=self.stream, flush=True)
        if end:
            self._last.pop(label, None)
            self._start.pop(label, None)

    def current(self, label: str) -> None:
        """The item (a claim) now being waited for: on a terminal a line with its elapsed time,
        replacing the previous item's; without one, a plain line ``  ... label``."""
        if self._rich is None:
            print(f"  ... {label}", file=self.stream, flush=True)
            return
        if "\0current" in self._tasks:
            self._rich.remove_task(self._tasks.pop("\0current"))
        self._tasks["\0current"] = self._rich.add_task(f"  ... {label}", total=None)

    def line(self, text: str) -> None:
        """A line that stays (above the bars on a terminal)."""
        if self._rich is not None:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)
