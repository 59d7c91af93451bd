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

import random
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from numerics.claims.base import Claim, Evidence, Settings
from numerics.claims.mutate_judge import (
    BUDGET_S,
    DOMAIN_POINTS,
    STATUSES,
    AutoOutcome,  # noqa: F401  (the record of one outcome)
    classify,
    run_one,
)
from numerics.core.stats import binomial_interval

SCHEMA = "attncheck.mutate/1"
#: the least number of mutants a claim runs when its set is sampled
DEFAULT_SAMPLE = 100


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
    from derivations import automutants

    out, names, earlier = [], set(), {}
    for step, values in recorded.items():
        for value in values:
            for site, mutated in automutants.generate(step, value, earlier):
                if site.name not in names:
                    names.add(site.name)
                    out.append((site, automutants._get(value, site.loc), mutated, dict(earlier)))
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
    options = (sample, all_mutants, seed, points, budget)
    found = _cached(claim, settings, options) if use_cache else None
    if found is not None:
        return found
    r = _computed(claim, settings, options, workers, scheduler)
    _record(claim, settings, options, r, use_cache)
    return r


def _computed(claim: Claim, settings: Settings, options: tuple, workers: int = 1,
              scheduler: str | None = None) -> Mutation:
    """The result of :func:`mutate` computed (nothing read or recorded), with its time."""
    sample, all_mutants, seed, points, budget = options
    t0 = time.perf_counter()
    if scheduler:
        r = _on_cluster(claim, settings, scheduler, workers, *options)
    elif workers > 1:
        r = _in_pool(claim, settings, workers, *options)
    else:
        r = part(claim, settings, 0, 1, sample=sample, all_mutants=all_mutants, seed=seed, points=points,
                 budget=budget)
    r.elapsed_s = time.perf_counter() - t0
    return r


def mutate_all(claims, settings: Settings, *, sample: int = DEFAULT_SAMPLE, all_mutants: bool = False,
               seed: int = 0, workers: int = 1, points: int = DOMAIN_POINTS, budget: float | None = BUDGET_S,
               use_cache: bool = True, scheduler: str | None = None) -> Iterator[Mutation]:
    """:func:`mutate` of each of ``claims``, yielded in their order.  With ``workers`` > 1 and
    more than one claim to compute (no ``scheduler``), the claims are the tasks of one pool of
    ``workers`` processes, started longest first by the times recorded on this machine
    (:func:`numerics.claims.runner.longest_first`): each claim's mutants run in one process,
    its experiment is collected once (the pool's processes share the experiment memo), and no
    process idles at the end of each claim.  Otherwise each claim in turn, its mutants spread
    as :func:`mutate` spreads them.  The results are those of :func:`mutate`, claim by claim."""
    import shutil
    import tempfile

    from numerics.claims.runner import longest_first
    from numerics.core.tasks import process_pool
    from numerics.registry import EXTRA_FILES

    claims = list(claims)
    options = (sample, all_mutants, seed, points, budget)
    found = {c.id: _cached(c, settings, options) for c in claims} if use_cache else {}
    todo = [c for c in claims if found.get(c.id) is None]
    if scheduler or workers <= 1 or len(todo) < 2:
        for c in claims:
            yield found.get(c.id) or mutate(c, settings, sample=sample, all_mutants=all_mutants, seed=seed,
                                            workers=workers, points=points, budget=budget, use_cache=use_cache,
                                            scheduler=scheduler)
        return
    folder = tempfile.mkdtemp(prefix="attncheck-memo-")
    try:
        with process_pool(min(workers, len(todo))) as pool:
            futures = {c.id: pool.submit(_claim_in_worker, c.id, settings, options, tuple(EXTRA_FILES), folder)
                       for c in longest_first(todo, settings, prefix="mutate:")}
            for c in claims:
                r = found.get(c.id)
                if r is None:
                    r = futures[c.id].result()
                    _record(c, settings, options, r, use_cache)
                yield r
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _key(claim: Claim, settings: Settings, options: tuple) -> str:
    """The cache key of a claim's result of :func:`mutate` with ``options`` (sample, all
    mutants, sample seed, domain points, budget)."""
    from numerics.core import cache

    return cache.module_key(__name__, cache.key(claim, settings), *options)


def _cached(claim: Claim, settings: Settings, options: tuple) -> Mutation | None:
    """The recorded result of :func:`mutate` with ``options``, or None (none, or unreadable)."""
    import pickle

    from numerics.core import cache

    raw = cache.load_artifact("mutate", _key(claim, settings, options))
    if raw is None:
        return None
    try:
        r = pickle.loads(raw)
    except Exception:  # an unreadable record: computed again
        return None
    r.cached = True
    return r


def _record(claim: Claim, settings: Settings, options: tuple, r: Mutation, use_cache: bool) -> None:
    """A computed result: its time recorded on this machine (the order of the next
    :func:`mutate_all` and the report's estimate), and, with ``use_cache``, the result itself."""
    import pickle

    from numerics.core import cache

    if r.error:
        return
    cache.record_time(f"mutate:{claim.id}", settings.mode, r.elapsed_s)
    if use_cache:
        cache.store_artifact("mutate", _key(claim, settings, options), pickle.dumps(r))


def _claim_in_worker(claim_id: str, settings: Settings, options: tuple, files: tuple, memo_folder: str) -> Mutation:
    """:func:`mutate` of one claim computed in a pool's process, its mutants in this process (the claims
    of the user's files loaded here too; the experiment memo shared with the pool's processes)."""
    from threadpoolctl import threadpool_limits

    from numerics import registry
    from numerics.claims.runner import share_memo

    share_memo(memo_folder, wait=True)
    for f in files:
        registry.add_claims_file(f)
    claim = registry.claims()[claim_id]
    with threadpool_limits(1):
        return _computed(claim, settings, options)  # recorded by the pool's parent


def recorded(claim: Claim, settings: Settings) -> Mutation | None:
    """The cached result of ``mutate`` at ``settings`` with its default options, every mutant
    (``all_mutants``) or the default sample, if there is one (what ``verify --power`` prints
    beside the hand-written mutants and the report shows)."""
    for every in (True, False):
        r = _cached(claim, settings, (DEFAULT_SAMPLE, every, 0, DOMAIN_POINTS, BUDGET_S))
        if r is not None:
            return r
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
    killed = sum(run_one(claim, settings, table[name])[0] for name in claim.mutants)
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
