"""Property-based exploration of claims over their parameter domains (``attncheck explore``).

For each claim with a ``point_space`` (the claims that take ``verify --param``), hypothesis
draws points from the declared domain (``ParamSpace.draw``: dependent endpoints, integer
kinds, defaults and round values first) and each point runs the claim's normal ``verify`` at
that point, through the request layer and the runner (cache, progress, workers and resource
limits as ``verify``).  Hypothesis is seeded from ``seed``, so a run is reproducible.

False alarms over the run.  A point is first *screened*: the claim's verdict at the point
(``judge``: family-wise rate ``FAMILY_ALPHA`` over its rows).  A point that fails is
*confirmed*: re-run at the larger size (``full``; a ``--full`` run re-runs at ``full``) with a
fresh seed (path ``(seed, "explore", "confirm", point)``, distinct from the screen's
``(seed, "explore", "screen", point)``; claims that share an experiment, as ``A.thm3.*`` do, are
drawn the same points and share its runs through the memo and the cache), and judged with the rows' z at
``FAMILY_ALPHA / (rows x M)`` where ``M`` bounds the number of confirm runs of the whole
exploration (claims x (examples + shrinks)).  Only a confirmed failure counts.  The confirm runs
are independent of the screens and of one another (fresh seed paths), so by Bonferroni the
probability that a run reports any confirmed failure while every claim holds is at most
``FAMILY_ALPHA`` (the allowances covering the finite-size bias, as at the design).

On a confirmed failure hypothesis shrinks toward a minimal failing point (the defaults and
round values are its simplest draws), each candidate screened and confirmed the same way, within
``max_shrinks`` new points; the minimal point, its failing rows and the command that reproduces
the confirm run are reported.

A claim without a ``point_space`` runs its design, judged as ``verify`` judges it (its own
``FAMILY_ALPHA``, outside the run-wide bound above), and is reported with the reason it takes no
point.  A claim that declares ``counterexamples`` (its statement as written is known false away
from its design, e.g. Paper A's Conjecture 1 in general) is explored the same way; a confirmed
failure is the counterexample it exists to find and does not count against the run.
``within`` pins parameters (``explore --param``): the points are drawn in that slice.

A point at which the claim raises (its theory or its experiment, at the screen or the confirm
run) is an error of the exploration: never a pass, whatever the other points give; the
exploration goes on with the next point, and the error names the side that raised and the claim.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from numerics.core.stats import FAMILY_ALPHA, z_critical

SCHEMA = "attncheck.explore/1"
SUMMARY_SCHEMA = "attncheck.explore-summary/1"


@dataclass
class PointRun:
    """One point of one claim: its verdict (``passed``, ``failed`` = screen failed and the
    confirm run rejected it too, ``unconfirmed`` = the screen failed and the confirm run did
    not, ``error``), and the seed paths of the screen and confirm runs."""

    claim_id: str
    stage: str  # "generate" | "shrink"
    params: dict
    verdict: str
    screen: dict
    confirm: dict | None = None

    @property
    def error(self) -> str:
        """Why the point is an error (the screen's or the confirm run's), else ``""``."""
        return self.screen.get("error") or (self.confirm or {}).get("error") or ""

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "claim": self.claim_id, "stage": self.stage, "params": self.params,
                "verdict": self.verdict, "error": self.error, "screen": self.screen, "confirm": self.confirm}


@dataclass
class Exploration:
    """The exploration of one claim: every point run, and the minimal confirmed failing point
    (None: no confirmed failure), its failing rows and the reproducing command."""

    claim_id: str
    runs: list = field(default_factory=list)
    minimal: dict | None = None
    failing_rows: list = field(default_factory=list)
    command: str = ""
    family_alpha: float = FAMILY_ALPHA
    confirm_runs_bound: int = 0
    #: non-empty: the claim takes no point (why); its design was run, as ``verify`` runs it
    design_only: str = ""
    #: non-empty: the statement as written is known to fail away from its design
    #: (``Claim.counterexamples``); a confirmed failure is the counterexample found, as expected
    counterexamples: str = ""

    @property
    def failed(self) -> bool:
        """A confirmed failure (or, for a design-only claim, its design failed)."""
        if self.design_only:
            return bool(self.runs) and self.runs[0].verdict == "failed"
        return self.minimal is not None

    @property
    def errors(self) -> list:
        """The points at which the claim raised (its theory or its experiment, at the screen or
        the confirm run): each an error of the exploration, never a pass."""
        return [r for r in self.runs if r.verdict == "error"]

    @property
    def error(self) -> str:
        """The first error (``""``: none), naming the side that raised and the claim."""
        return next((r.error for r in self.errors), "")

    @property
    def passed(self) -> bool:
        """No error and no confirmed failure (or the counterexample of a statement known to
        have one)."""
        return not self.errors and (not self.failed or bool(self.counterexamples))

    def __repr__(self) -> str:
        errors = f", {len(self.errors)} ERRORS" if self.errors else ""
        if self.design_only:
            return f"Exploration({self.claim_id!r}, design only, {'FAILS' if self.failed else 'passes'}{errors})"
        what = "no confirmed failure" if not self.failed else f"FAILS at {self.minimal}"
        return f"Exploration({self.claim_id!r}, {len(self.runs)} points, {what}{errors})"

    def to_pandas(self):
        """One row per point run: ``claim``, ``stage`` (generate, shrink), the point's
        parameters (a column each), ``verdict`` and ``error`` (pandas: the optional extra
        ``tables``)."""
        from numerics.core import tables

        names = list(dict.fromkeys(k for r in self.runs for k in r.params))
        rows = [{"claim": r.claim_id, "stage": r.stage, **r.params, "verdict": r.verdict, "error": r.error or None}
                for r in self.runs]
        return tables.frame(rows, ["claim", "stage", *names, "verdict", "error"], ("error",))

    def to_xarray(self):
        """The same, along one dimension ``point`` (xarray: the optional extra ``tables``)."""
        from numerics.core import tables

        tables.require("xarray", "to_xarray()")
        return self.to_pandas().rename_axis("point").to_xarray()

    def to_json(self) -> dict:
        return {"schema": SUMMARY_SCHEMA, "claim": self.claim_id, "points": len(self.runs), "passed": self.passed,
                "failed": self.failed, "error": self.error,
                "errors": [{"params": r.params, "stage": r.stage, "error": r.error} for r in self.errors],
                "design_only": self.design_only, "counterexamples": self.counterexamples,
                "minimal": self.minimal, "failing_rows": self.failing_rows, "command": self.command,
                "family_alpha": self.family_alpha, "confirm_runs_bound": self.confirm_runs_bound,
                "bound": f"P(any confirmed failure | every claim holds) <= {self.family_alpha:g} (Bonferroni over "
                         f"at most {self.confirm_runs_bound} confirm runs x their rows)"}


def _key(point: dict) -> str:
    return ",".join(f"{k}={point[k]!r}" for k in sorted(point))


def _seed(root: int, *path) -> int:
    """The root seed of a run at seed path ``(root, *path)`` (numerics.core.seeding)."""
    from numerics.core.seeding import seed_sequence

    return int(seed_sequence(root, *path).generate_state(1)[0])


def _run(claim, point: dict, mode: str, seed: int, dps: int, workers: int, use_cache: bool):
    """The claim's verify at ``point``: (evidence, settings), through the request layer and runner."""
    from numerics import request as Q
    from numerics.claims.runner import collect_all

    settings = Q.point_settings([claim], Q.settings(mode, seed, dps), point)
    (_, evidence, _), = list(collect_all([claim], settings, workers=workers, use_cache=use_cache))
    return evidence, settings


def _failing(evidence, z: float) -> list:
    """Labels of the rows outside z se + allowance."""
    return [c.label for c in evidence.comparisons if abs(c.mean - c.theory) > z * c.se + c.allowance]


def _design(claim, *, seed: int, mode: str, dps: int, workers: int, use_cache: bool, on_point=None) -> Exploration:
    """A claim that takes no point: its design, run and judged as ``verify`` runs it (same seed,
    so the same cache entry), reported with the reason it takes no point."""
    from numerics.claims.base import judge

    ev, _ = _run(claim, {}, mode, seed, dps, workers, use_cache)
    v = judge(ev)  # (the claim would add its titles and statement, which the run does not keep)
    run = PointRun(claim.id, "design", {}, v.status,
                   {"mode": mode, "seed": seed, "seed_path": [seed], "z": v.z_crit,
                    "failing_rows": [r.label for r in v.rows if not r.passed], "error": v.error})
    if on_point:
        on_point(run)
    return Exploration(claim.id, runs=[run], failing_rows=run.screen["failing_rows"],
                       design_only=claim.design_only or "(no reason declared)",
                       counterexamples=claim.counterexamples)


def explore_claim(claim, *, examples: int = 3, seed: int, mode: str = "quick", dps: int = 30, workers: int = 1,
                  max_shrinks: int = 8, confirm_bound: int | None = None, on_point=None,
                  within: dict | None = None) -> Exploration:
    """Explore one claim (validated by :func:`numerics.request.explore_request`); a claim
    without a ``point_space`` runs its design (:func:`_design`).  ``within`` pins some of the
    parameters (validated values): the points are drawn in that slice of the domain."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hseed, settings as hsettings

    from derivations.core import active_mutants
    from numerics.claims.base import judge

    use_cache = not active_mutants()  # the cache holds the true derivation's theory values
    if getattr(claim, "point_space", None) is None:
        return _design(claim, seed=seed, mode=mode, dps=dps, workers=workers, use_cache=use_cache,
                       on_point=on_point)
    bound = confirm_bound or (examples + max_shrinks)
    out = Exploration(claim.id, confirm_runs_bound=bound, counterexamples=claim.counterexamples)
    outcomes: dict = {}
    # the points the exploration may screen: ``examples`` drawn, and after the first confirmed
    # failure at most ``max_shrinks`` new ones while shrinking
    state = {"last": None, "found": False, "budget": examples}
    confirm_mode = "full"

    def check(point: dict) -> bool:
        key = _key(point)
        if key in outcomes:
            return outcomes[key]
        if len(outcomes) >= state["budget"]:
            return False  # the budget is spent: not run, not a failure
        path = ("explore", "screen", key)
        s_seed = _seed(seed, *path)
        ev, st = _run(claim, point, mode, s_seed, dps, workers, use_cache)
        v = judge(ev, 0.0, claim)
        run = PointRun(claim.id, "shrink" if state["found"] else "generate", dict(point),
                       "error" if v.error else "passed" if v.passed else "failed",
                       {"mode": mode, "seed": s_seed, "seed_path": [seed, *path], "z": v.z_crit,
                        "failing_rows": [r.label for r in v.rows if not r.passed], "error": v.error})
        confirmed = False
        if not v.error and not v.passed:
            cpath = ("explore", "confirm", key)
            c_seed = _seed(seed, *cpath)
            ev2, _ = _run(claim, point, confirm_mode, c_seed, dps, workers, use_cache)
            if ev2.error:
                rows, z = [], 0.0
            else:
                z = z_critical(len(ev2.comparisons) * bound)
                rows = _failing(ev2, z)
            confirmed = bool(rows)
            run.confirm = {"mode": confirm_mode, "seed": c_seed, "seed_path": [seed, *cpath], "z": z,
                           "failing_rows": rows, "error": ev2.error}
            run.verdict = "error" if ev2.error else "failed" if confirmed else "unconfirmed"
        out.runs.append(run)
        outcomes[key] = confirmed
        if confirmed and not state["found"]:
            state["found"], state["budget"] = True, len(outcomes) + max_shrinks
        if on_point:
            on_point(run)
        return confirmed

    class _Confirmed(AssertionError):
        pass

    @hsettings(max_examples=examples, database=None, deadline=None, derandomize=False, report_multiple_bugs=False,
               phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
               verbosity=Verbosity.quiet, print_blob=False)
    @hseed(seed)
    @given(claim.point_space.draw(prefer_simple=True, fixed=within))
    def prop(point):
        if check(point):
            state["last"] = dict(point)
            raise _Confirmed(_key(point))

    try:
        prop()
    except _Confirmed:
        pass
    if state["last"] is not None:
        point = state["last"]
        run = next(r for r in reversed(out.runs) if r.params == point)
        out.minimal = point
        out.failing_rows = run.confirm["failing_rows"]
        args = " ".join(f"--param {k}={point[k]}" for k in claim.point_space.names if k in point)
        out.command = (f"attncheck verify {claim.id} --{confirm_mode} --seed {run.confirm['seed']} {args}")
    return out


def explore(chosen, *, examples: int, seed: int, mode: str, dps: int = 30, workers: int = 1, max_shrinks: int = 8,
            on_point=None, within: dict | None = None) -> list:
    """Explore each claim of ``chosen`` (validated); the confirm level is split over the claims
    that take a point (a design-only claim runs its design, judged as ``verify`` judges it)."""
    takers = sum(getattr(c, "point_space", None) is not None for c in chosen)
    bound = max(1, takers) * (examples + max_shrinks)
    return [explore_claim(c, examples=examples, seed=seed, mode=mode, dps=dps, workers=workers,
                          max_shrinks=max_shrinks, confirm_bound=bound, on_point=on_point, within=within)
            for c in chosen]
