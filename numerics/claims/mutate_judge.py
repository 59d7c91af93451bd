"""How one automatic mutant of a claim is judged (:mod:`numerics.claims.mutate`): equivalent to
its step, not applied, killed by the claim, below the rows' resolution over the claim's
parameter domain, or survived; and the record of its outcome.

Each mutant runs within a time budget; the claim's theory over its domain is computed once,
unmutated, outside every mutant's budget.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from derivations.core import in_its_papers_notation
from numerics.claims.base import CODE_ERRORS, Claim, Evidence, Settings
from numerics.core.tasks import OverBudget
from numerics.core.tasks import time_budget as _budget

STATUSES = ("equivalent", "not applied", "timed out", "below resolution", "killed", "survived")
#: the seconds one mutant may take (its equivalence, its theory, its domain points)
BUDGET_S = 30.0
#: the points of the claim's parameter domain a surviving mutant is evaluated at
DOMAIN_POINTS = 8


@dataclass
class AutoOutcome:
    """One automatic mutant of one claim."""

    name: str
    step: str
    operator: str
    #: the change as a reviewer says it ("term 2 of `...` sign flipped")
    change: str
    #: the mutated entry of the step, printed by the project's one printer
    latex: str
    status: str
    #: how the status was reached ("verdict failed", the error the mutated claim raised, ...)
    how: str = ""
    #: the largest relative change of the claim's theory values found (rows and domain points)
    largest: float | None = None
    #: where that change is: a row's label or a point of the domain
    where: str = ""
    #: the smallest relative change of its theory value a row of the claim detects
    resolution: float | None = None
    #: the row whose theory value it moves most (its label), and by how much (relative)
    row: str = ""
    row_change: float | None = None
    #: that row's parameter point (:attr:`numerics.claims.base.Comparison.at`)
    row_at: dict = field(default_factory=dict)
    #: the point of the domain where it moves a theory value most (`` `KEY` at a=1, b=2 ``), and by how much
    point: str = ""
    point_change: float | None = None
    #: a survivor's changed node as it reads after the change (one printer; "" for a whole-step change)
    node_latex: str = ""

    def said(self) -> str:
        """As a reviewer says it: "step `S.x`: term 2 ... sign flipped; moves row `...` by 3.1 %
        (the rows see 1.2 %); survived"."""
        text = f"step `{self.step}`: {self.change}"
        if self.largest == 0 and self.status == "below resolution":
            text += "; changes none of the claim's theory values"
        elif self.largest is not None and self.status in ("survived", "below resolution"):
            text += f"; moves {self.where} by {_percent(self.largest)}"
            if self.resolution is not None:
                text += f" (the rows see {_percent(self.resolution)})"
        elif self.how and self.status != "killed":
            text += f"; {self.how}"
        return f"{text}; {self.status}"


def _percent(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "an unbounded amount"
    return f"{100 * x:.2g} %"


@in_its_papers_notation
def classify(claim: Claim, settings: Settings, base: Evidence, items: list, *, seed: int = 0,
             points: int = DOMAIN_POINTS, budget: float | None = BUDGET_S) -> list:
    """The outcome of each ``(site, original, mutated, earlier)`` against ``base``."""
    from derivations.core import latex
    from numerics.claims.power import detectable

    rows = detectable(base)
    resolution = min((d["relative"] for d in rows if d["relative"]), default=None)
    domain = _Domain(claim, settings, seed, points)
    if items:  # the unmutated theory over the domain once, outside every mutant's budget
        domain.values()
    out = []
    for site, original, mutated, earlier in items:
        try:
            text = latex(mutated)
        except Exception:  # a printer that cannot print it: its SymPy form
            text = str(mutated)
        o = AutoOutcome(site.name, site.step, site.operator, site.said(), text, "equivalent",
                        resolution=resolution)
        out.append(o)
        try:  # a mutated theory's numerical warnings (a sqrt of a negative) are its outcome's business
            with _budget(budget), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _judge(o, claim, settings, base, site, original, mutated, earlier, rows, resolution, domain, seed)
        except OverBudget:
            o.status, o.how, o.largest, o.where = "timed out", f"took more than {budget:g} s", None, ""
    return out


def _judge(o, claim, settings, base, site, original, mutated, earlier, rows, resolution, domain, seed) -> None:
    from derivations import automutants

    if automutants.equivalent(original, mutated, seed=seed, given=domain.draws[:3]):
        o.how = "equal on the step's domain"
        return
    m = automutants.as_mutant(site, earlier)
    # HITS is kept: a build cached under this mutant's name (an earlier run in this process)
    # applies it without calling its transform again
    killed, how, ev = run_one(claim, settings, m)
    if ev is not None and not automutants.HITS.get(site.name):
        o.status, o.how = "not applied", "the step's value held no such node when the theory was recomputed"
        return
    if killed:
        o.status, o.how = "killed", how
        return
    (o.largest, o.where, seen), row, point = _largest(base, ev, rows, domain, m, resolution)
    o.row_change, o.row = row
    o.row_at = next((dict(c.at) for c in base.comparisons if c.label == o.row), {})
    o.point_change, o.point = point
    if seen is not None:
        o.resolution = seen
    o.status = "below resolution" if seen is None or o.largest < seen else "survived"
    o.how = "the claim passed"
    if o.status == "survived" and site.path:  # the changed node alone, for a long step
        from derivations.core import latex

        try:
            new = automutants._changes(site, original, earlier)
            o.node_latex = latex(new) if new is not None else ""
        except Exception:  # a node the printer cannot print: the step alone
            o.node_latex = ""


def run_one(claim, settings, m) -> tuple:
    """(killed, how, evidence) of the claim under mutant ``m``: an error of the code under an
    automatic mutant (which can make a step of the wrong shape) is reported, as ``verify``
    does, and kills it."""
    from numerics.claims.power import _run_mutated

    try:
        return _run_mutated(claim, settings, (m,))
    except CODE_ERRORS as e:
        return True, f"raised {type(e).__name__}: {str(e)[:200]}", None


class _Domain:
    """The claim's theory at seeded points of its parameter domain (``evaluate`` and
    ``param_space``), unmutated once and under each mutant asked for."""

    def __init__(self, claim, settings, seed: int, n: int):
        self.claim, self.dps = claim, settings.dps
        space = getattr(claim, "param_space", None)
        self.points, self.draws = [], []  # draws: the seeded points (also the equivalence test's)
        try:
            self.draws = space.sample(n, seed) if space is not None and n > 0 else []
        except ValueError:  # a space that cannot be sampled: the symbols' assumptions only
            pass
        if claim.evaluate is not None and self.draws:
            try:  # the defaults first, where the space has them
                self.points = [space.validate({})]
            except ValueError:
                pass
            self.points += self.draws
        self._base = None

    def values(self) -> list:
        from derivations.core import unmutated

        if self._base is None:
            with unmutated():
                self._base = [self._at(p) for p in self.points]
        return self._base

    def _at(self, point) -> dict | None:
        try:
            out = self.claim.evaluate(point, self.dps)
            return {k: float(v) for k, v in out.items() if not isinstance(v, bool)}
        except Exception:  # not computable there: the point says nothing
            return None

    def changes(self, m) -> list:
        """``[(relative change, where)]`` at each point under ``m``."""
        from derivations.core import mutated

        out = []
        for point, base in zip(self.points, self.values()):
            if not base:
                continue
            with mutated(m):
                new = self._at(point)
            at = ", ".join(f"{k}={v:.4g}" for k, v in point.items())
            for key, b in base.items():
                v = None if new is None else new.get(key)
                rel = math.inf if v is None or not math.isfinite(v) else (
                    abs(v - b) / abs(b) if b else abs(v - b))
                out.append((rel, f"`{key}` at {at}"))
        return out


def _largest(base: Evidence, ev: Evidence, rows: list, domain: _Domain, m, resolution) -> tuple:
    """``(change, where, what a row there detects)`` of the largest relative change of the
    theory, measured against what a row detects: at a row its own detectable change, at a
    point of the domain the smallest of the rows' (``resolution``); then ``(change, label)``
    of the row it moves most and ``(change, where)`` of the point of the domain it moves most
    (``(None, "")`` where there is none)."""
    found = [(0.0, "no theory value", resolution)]
    by_row, by_point = [], domain.changes(m)
    for c0, c1, d in zip(base.comparisons, ev.comparisons, rows):
        rel = abs(c1.theory - c0.theory) / abs(c0.theory) if c0.theory else abs(c1.theory - c0.theory)
        found.append((rel, f"row `{c0.label}`", d["relative"] or resolution))
        by_row.append((rel, c0.label))
    found += [(rel, where, resolution) for rel, where in by_point]

    def ratio(t):
        return t[0] / t[2] if t[2] else (math.inf if t[0] else 0.0)
    most = [max(f, key=lambda t: t[0]) if f else (None, "") for f in (by_row, by_point)]
    return (max(found, key=ratio), *most)
