"""Automatic mutants of a claim's derivation: a mutation score for any derivation
(``attncheck mutate``, ``attncheck.mutate``; ``docs/mutate.md``).

The claim is collected once, unmutated, while the named steps its theory evaluates are recorded
(:func:`derivations.core.recording_steps`); every operator of
:mod:`derivations.automutants` is applied at every node of every recorded step, one change at a
time; the experiment is memoised, so each mutant recomputes only the theory.  Each mutant is

* ``equivalent``: equal to its step on the step's domain (not counted);
* ``not applied``: the change never happened when the theory was recomputed (not counted);
* ``timed out``: classifying it took more than the budget (a mutated step that makes a solve
  of the derivation run away); not counted, reported;
* ``killed``: the claim fails under it (a row rejects it, or the mutated theory cannot be
  computed, which ``verify`` reports as an error);
* ``below resolution``: the claim passes, and the mutant moves the claim's theory values by
  less than the smallest relative change a row of the claim detects, at its rows and at seeded
  points of the claim's parameter domain (through its ``evaluate``); reported with its largest
  relative change, not counted;
* ``survived``: the claim passes though the mutant moves its theory by more than that
  somewhere; the report names where the change is largest (a row, or a point of the domain
  where a row would see it).

The score is killed / (killed + survived).  A claim with more mutants than ``sample`` runs a
seeded random sample of them and gives the score's 95 % interval (Wilson); ``all_mutants``
runs every one.  Changes giving the same mutated step are run once.
"""
from __future__ import annotations

import math
import random
import time
import warnings
from dataclasses import asdict, dataclass, field

from numerics.claims.base import CODE_ERRORS, Claim, Evidence, Settings
from numerics.core.stats import binomial_interval
from numerics.core.tasks import OverBudget
from numerics.core.tasks import time_budget as _budget

SCHEMA = "attncheck.mutate/1"
STATUSES = ("equivalent", "not applied", "timed out", "below resolution", "killed", "survived")
#: the seconds one mutant may take (its equivalence, its theory, its domain points)
BUDGET_S = 30.0
#: the least number of mutants a claim runs when its set is sampled
DEFAULT_SAMPLE = 100
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


@dataclass
class Mutation:
    """The automatic mutants of one claim and their outcomes."""

    id: str
    mode: str
    seed: int
    generated: int
    sample_seed: int
    sampled: bool
    outcomes: list = field(default_factory=list)
    elapsed_s: float = 0.0
    #: non-empty: the claim could not be run unmutated (nothing was mutated)
    error: str = ""
    #: the claim's hand-written mutants (``Claim.mutants``) side by side: {"killed": k, "total": n}
    hand_written: dict = field(default_factory=dict)
    #: read from the cache (recorded by an earlier run with the same code and settings)
    cached: bool = False
    #: ``{step: n}``: the mutants generated per step (before any sample), in the order reached
    step_generated: dict = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def counted(self) -> int:
        return self.count("killed") + self.count("survived")

    @property
    def score(self) -> float | None:
        """killed / (killed + survived) (None: no mutant counted)."""
        return self.count("killed") / self.counted if self.counted else None

    @property
    def interval(self) -> tuple | None:
        """The score's 95 % interval when the mutants were sampled (None when all were run)."""
        return binomial_interval(self.count("killed"), self.counted) if self.sampled and self.counted else None

    @property
    def survivors(self) -> list:
        return [o for o in self.outcomes if o.status == "survived"]

    def steps(self) -> dict:
        """``{step: {status: count}}`` in the order the steps were reached."""
        out: dict = {}
        for o in self.outcomes:
            row = out.setdefault(o.step, {s: 0 for s in STATUSES})
            row[o.status] += 1
        return out

    def to_json(self) -> dict:
        d = asdict(self)
        d["schema"] = SCHEMA
        d["counts"] = {s: self.count(s) for s in STATUSES}
        d["run"] = len(self.outcomes)
        d["score"] = self.score
        d["interval"] = list(self.interval) if self.interval else None
        d["steps"] = self.steps()
        return d


# --- the mutants of a claim ----------------------------------------------------------------------
def reference(claim: Claim, settings: Settings) -> tuple[Evidence, dict]:
    """The claim's unmutated evidence and the values of the steps it reached, ``{name: [value]}``."""
    from derivations.core import recording_steps
    from numerics.claims.runner import collect_one

    with recording_steps() as rec:
        base = collect_one(claim, settings)
    return base, rec


def sites(recorded: dict) -> list:
    """``[(site, original entry, mutated entry, earlier steps)]`` of every value of every step
    recorded (in the order reached), each site once."""
    from derivations import automutants as A

    out, names, earlier = [], set(), {}
    for step, values in recorded.items():
        for value in values:
            for site, mutated in A.generate(step, value, earlier):
                if site.name not in names:
                    names.add(site.name)
                    out.append((site, A._get(value, site.loc), mutated, dict(earlier)))
        if values:
            earlier[step] = values[0]
    return out


def choose(items: list, sample: int, all_mutants: bool, seed: int) -> tuple[list, bool]:
    """The mutants run: all (``all_mutants`` or no more than ``sample``), or a seeded random sample
    of ``sample`` in their order; and whether it is a sample."""
    if all_mutants or len(items) <= sample:
        return list(items), False
    keep = sorted(random.Random(seed).sample(range(len(items)), sample))
    return [items[i] for i in keep], True


def mutate(claim: Claim, settings: Settings, *, sample: int = DEFAULT_SAMPLE, all_mutants: bool = False,
           seed: int = 0, workers: int = 1, points: int = DOMAIN_POINTS, budget: float | None = BUDGET_S,
           use_cache: bool = True, scheduler: str | None = None) -> Mutation:
    """Generate, run and classify the automatic mutants of ``claim`` (module docstring).
    ``workers`` > 1 spreads them over that many processes (:func:`part`), ``scheduler`` over the
    dask.distributed cluster at that address (``local`` or ``tcp://host:port``, in ``workers``
    parts, or one per thread of the cluster when ``workers`` is 1); ``budget``: the
    seconds one mutant may take (None: no limit).  The result is cached as verdicts are
    (``numerics.core.cache``: keyed by the claim's code, this module's and the derivations'
    sources, the package versions, the settings and these arguments)."""
    import pickle

    from numerics.core import cache

    key = cache.module_key(__name__, cache.key(claim, settings), sample, all_mutants, seed, points, budget)
    if use_cache:
        raw = cache.load_artifact("mutate", key)
        if raw is not None:
            try:
                r = pickle.loads(raw)
                r.cached = True
                return r
            except Exception:  # an unreadable record: computed again
                pass
    t0 = time.perf_counter()
    if scheduler:
        r = _on_cluster(claim, settings, scheduler, workers, sample, all_mutants, seed, points, budget)
    elif workers > 1:
        r = _in_pool(claim, settings, workers, sample, all_mutants, seed, points, budget)
    else:
        r = part(claim, settings, 0, 1, sample=sample, all_mutants=all_mutants, seed=seed, points=points,
                 budget=budget)
    r.elapsed_s = time.perf_counter() - t0
    if use_cache and not r.error:
        cache.store_artifact("mutate", key, pickle.dumps(r))
        cache.record_time(f"mutate:{claim.id}", settings.mode, r.elapsed_s)  # the report's estimate
    return r


def recorded(claim: Claim, settings: Settings) -> Mutation | None:
    """The cached result of ``mutate`` at ``settings`` with its default options, every mutant
    (``all_mutants``) or the default sample, if there is one (what ``verify --power`` prints
    beside the hand-written mutants and the report shows)."""
    import pickle

    from numerics.core import cache

    for every in (True, False):
        key = cache.module_key(__name__, cache.key(claim, settings), DEFAULT_SAMPLE, every, 0, DOMAIN_POINTS, BUDGET_S)
        raw = cache.load_artifact("mutate", key)
        try:
            if raw is not None:
                r = pickle.loads(raw)
                r.cached = True
                return r
        except Exception:  # an unreadable record: none
            continue
    return None


def summary(r: Mutation) -> str:
    """One line: the score (and its interval) and the survivors of a claim's automatic mutants."""
    if r.error:
        return f"not run: {r.error}"
    score = "no mutant counted" if r.score is None else f"score {100 * r.score:.1f} %"
    if r.interval:
        score += f" (95 % interval {100 * r.interval[0]:.1f}-{100 * r.interval[1]:.1f} %)"
    run = f"a sample of {len(r.outcomes)}" if r.sampled else f"all {len(r.outcomes)}"
    return f"{score} over {run} of {r.generated}, {len(r.survivors)} survived"


def part(claim: Claim, settings: Settings, k: int, n: int, *, sample: int = DEFAULT_SAMPLE,
         all_mutants: bool = False, seed: int = 0, points: int = DOMAIN_POINTS,
         budget: float | None = BUDGET_S) -> Mutation:
    """Part ``k`` of ``n`` of :func:`mutate` in this process: the claim collected and its mutants
    generated and chosen here, and every ``n``-th chosen one from the ``k``-th classified (part 0
    runs the hand-written mutants too).  Each process generates the mutants it runs: a mutant
    is identified by its place in the tree of the step as this process built it."""
    base, rec = reference(claim, settings)
    if base.error:
        return Mutation(claim.id, settings.mode, settings.seed, 0, seed, False, error=base.error)
    items = sites(rec)
    chosen, sampled = choose(items, sample, all_mutants, seed)
    outcomes = classify(claim, settings, base, chosen[k::n], seed=seed, points=points, budget=budget)
    per_step: dict = {}
    for site, *_ in items:
        per_step[site.step] = per_step.get(site.step, 0) + 1
    return Mutation(claim.id, settings.mode, settings.seed, len(items), seed, sampled, outcomes,
                    hand_written=hand_written(claim, settings) if k == 0 else {}, step_generated=per_step)


def hand_written(claim: Claim, settings: Settings) -> dict:
    """How many of the claim's hand-written mutants (``Claim.mutants``) it kills, as
    ``verify --power`` counts them (the experiment is already collected)."""
    from derivations.core import all_mutants

    table = all_mutants()
    killed = sum(_run(claim, settings, table[name])[0] for name in claim.mutants)
    return {"killed": int(killed), "total": len(claim.mutants)}


def _in_pool(claim, settings, workers: int, *args) -> Mutation:
    """:func:`part` ``k`` of ``workers`` in each process of a pool, the outcomes merged in order."""
    from numerics.core.tasks import process_pool
    from numerics.registry import EXTRA_FILES

    files = tuple(EXTRA_FILES)
    with process_pool(workers) as pool:
        return _merged([f.result() for f in [pool.submit(_worker, claim.id, settings, k, workers, args, files)
                                             for k in range(workers)]])


def _on_cluster(claim, settings, address: str, workers: int, *args) -> Mutation:
    """:func:`part` ``k`` of ``n`` as a task of the dask cluster at ``address``
    (:func:`numerics.core.cluster.client_for`), the outcomes merged in order; ``n``: ``workers``,
    or the cluster's threads when ``workers`` is 1."""
    from numerics.core.cluster import client_for
    from numerics.registry import EXTRA_FILES

    files = tuple(EXTRA_FILES)
    with client_for(address) as client:
        n = workers if workers > 1 else max(1, sum(client.nthreads().values()))
        futures = [client.submit(_worker, claim.id, settings, k, n, args, files, pure=False) for k in range(n)]
        return _merged(client.gather(futures))


def _merged(parts: list) -> Mutation:
    """The parts of one claim's mutants (part ``k`` classified every ``n``-th from the ``k``-th)
    as one result, the outcomes in the order of the mutants."""
    first = parts[0]
    if first.error:
        return first
    first.outcomes = [p.outcomes[i] for i in range(max(len(p.outcomes) for p in parts)) for p in parts
                      if i < len(p.outcomes)]
    return first


def _worker(claim_id: str, settings: Settings, k: int, n: int, args: tuple, files: tuple = ()) -> Mutation:
    """:func:`part` in a pool's process (the claims of the user's files are loaded here too)."""
    from threadpoolctl import threadpool_limits

    from numerics import registry

    for f in files:
        registry.add_claims_file(f)
    claim = registry.claims()[claim_id]
    sample, all_mutants, seed, points, budget = args
    with threadpool_limits(1):
        return part(claim, settings, k, n, sample=sample, all_mutants=all_mutants, seed=seed, points=points,
                    budget=budget)


# --- classification ------------------------------------------------------------------------------
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
    from derivations import automutants as A

    if A.equivalent(original, mutated, seed=seed, given=domain.draws[:3]):
        o.how = "equal on the step's domain"
        return
    m = A.as_mutant(site, earlier)
    # HITS is kept: a build cached under this mutant's name (an earlier run in this process)
    # applies it without calling its transform again
    killed, how, ev = _run(claim, settings, m)
    if ev is not None and not A.HITS.get(site.name):
        o.status, o.how = "not applied", "the step's value held no such node when the theory was recomputed"
        return
    if killed:
        o.status, o.how = "killed", how
        return
    (o.largest, o.where, seen), row, point = _largest(base, ev, rows, domain, m, resolution)
    o.row_change, o.row = row
    o.point_change, o.point = point
    if seen is not None:
        o.resolution = seen
    o.status = "below resolution" if seen is None or o.largest < seen else "survived"
    o.how = "the claim passed"
    if o.status == "survived" and site.path:  # the changed node alone, for a long step
        from derivations.core import latex

        try:
            new = A._changes(site, original, earlier)
            o.node_latex = latex(new) if new is not None else ""
        except Exception:  # a node the printer cannot print: the step alone
            o.node_latex = ""


def _run(claim, settings, m) -> tuple:
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
