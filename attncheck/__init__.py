"""attncheck: a symbolic-numeric derivation checker for the theory of attention.

The Python API mirrors the command line; parameter names are the CLI's (``alpha0``, not the
SymPy symbol ``alpha_0``).  Numbers come back as :class:`Value`: a number with its uncertainty
that adds, compares and converts to ``float`` and ``mpmath.mpf``::

    >>> import attncheck, mpmath
    >>> v = attncheck.evaluate("A.thm3.q2_cosine", alpha0=2, dps=50)
    >>> sorted(v)                             # one limit per loss
    ['logistic.q2_cosine', 'square.q2_cosine']
    >>> print(v["logistic.q2_cosine"])        # 50 digits, whatever mpmath.mp.dps is
    0.90749190620775527977374389004732531566066757582737
    >>> v["logistic.q2_cosine"] < v["square.q2_cosine"] < 1
    True
    >>> mpmath.mpf(v["square.q2_cosine"] - v["logistic.q2_cosine"]) > 0
    True
    >>> import numpy as np                    # arrays: evaluated elementwise
    >>> a = attncheck.evaluate("B.rate.exponent", beta=np.array([1, 2, 4]), M=10000, dps=20)
    >>> np.asarray(a["exponent"], dtype=float).round(4)
    array([-0.6667, -0.8   , -0.8889])
    >>> b = attncheck.certify("A.thm1.linear_threshold", dps=30)     # rigorous enclosures
    >>> b["threshold c* = S/2 + kappa/S"].digits[:6]
    '2.9743'
    >>> s = attncheck.solve("sparse-token", model="pool", loss="square", alpha1=2, lam=0.01, dps=20)
    >>> s.ok, round(float(s["test_error"]), 6)
    (True, 0.319027)
    >>> attncheck.verify("B.kl.bound")                     # doctest: +ELLIPSIS
    [Verdict('B.kl.bound', PASS, ...)]

Functions:

* :func:`verify` — run claims, return their verdicts (cached, pooled or on a cluster);
* :func:`evaluate` — a claim's closed form at your parameters, at ``dps`` digits (arrays too);
* :func:`certify` — the same values as certified balls (ball arithmetic, ``eval --certify``);
* :func:`solve` — a problem's equations at your parameters (``attncheck solve``);
* :func:`sweep` — a claim's closed form or a problem's solve over a grid (``attncheck sweep``);
* :func:`figure` — a figure of a paper, or a drawn sweep (``attncheck figure``);
* :func:`simulate` — a claim's unjudged evidence (theory next to experiment, per row);
* :func:`explore` — a claim's verify at points drawn from its parameter domain (``attncheck explore``);
* :func:`power` — the claim under each structural mutant of its derivation;
* :func:`mutate` — the claim under automatic mutants of every step of its derivation, with a score;
* :func:`equations`, :func:`latex` — the claim's equations;
* :func:`report` — the verification report, HTML or PDF (``attncheck report``);
* :func:`claims` — every registered claim, by id.

Everything goes through the request layer (``numerics.request``) that the command line uses
too: the same validation, the same resource checks, the same errors (``ParameterError`` for bad
input, ``ArithmeticError`` for a numerical failure, ``SolveError`` for a solve that did not
converge).
"""
from __future__ import annotations

__all__ = ["Sweep", "Value", "certify", "claims", "equations", "evaluate", "explore", "figure", "latex", "mutate",
           "power", "report", "simulate", "solve", "solve_estimate", "sweep", "verify"]


def claims() -> dict:
    """Every registered claim (built-in, plugins, files added with ``--claims``), by id."""
    from numerics import registry

    return registry.claims()


def verify(ids=None, *, mode: str = "quick", seed: int | None = None, dps: int = 30, workers: int | None = None,
           scheduler: str | None = None, cache: bool = True, mutate: float = 0.0, params: dict | None = None,
           max_memory=None, max_time=None) -> list:
    """Run the claims ``ids`` (ids or prefixes; all if None) and return their verdicts (a list,
    with ``.to_pandas()``: one row per compared row of each claim, and ``.to_xarray()``).
    ``params`` runs the experiment at a parameter point of yours, as ``verify --param`` (claims
    with a ``point_space``: ``A.thm3.*``); such a run neither reads nor writes the cache.
    ``workers``: the processes the claims run on (default: one per CPU when two or more claims
    are computed, sharing one experiment memo; the records are the same for any number).  With
    ``max_memory``/``max_time`` (or ``$ATTNCHECK_MAX_MEMORY``/``$ATTNCHECK_MAX_TIME``) a run
    estimated above them from the times recorded on this machine is refused before it starts,
    as ``verify --max-memory/--max-time``.

    >>> [v.passed for v in attncheck.verify("B.coercivity")]          # doctest: +SKIP
    [True, True, True]
    """
    import numerics.report_labels  # noqa: F401  (the verdicts' table in a notebook: Verdict._repr_html_)
    from numerics import request as Q
    from numerics.claims.verdicts import VerdictSet
    from numerics.core import resources

    out = VerdictSet()
    with resources.limited(max_memory, max_time):
        plan = Q.plan_verify(ids, mode, seed, dps, mutate_=mutate, params=params, workers_=workers,
                             scheduler=scheduler, cache=cache, announce=_announce)
        for _, v, cached in Q.run_verify(plan):
            v.details = {**v.details, "cached": cached}
            out.append(v)
    return out


def explore(ids=None, *, examples: int = 3, seed: int | None = None, mode: str = "quick", workers: int = 1,
            shrinks: int = 8, within: dict | None = None) -> list:
    """``attncheck explore``: for each claim that takes a parameter point (all such if None),
    hypothesis draws ``examples`` points of its domain (seeded by ``seed``); each point runs the
    claim's verify, a failing one is confirmed at full size with a fresh seed, and a confirmed
    failure is shrunk to a minimal point (``numerics.explore``).  Returns one
    :class:`numerics.explore.Exploration` per claim (``.passed``, ``.minimal``, ``.command``,
    ``.runs`` with every point's verdict and seed paths, ``.errors``: the points at which the
    claim raised, each making ``.passed`` False).  A claim that takes no point runs its
    design.  ``within`` pins some parameters (``{name: value}``, as ``explore --param``): the
    points are drawn in that slice of the domain."""
    from numerics import explore as X
    from numerics import request as Q

    chosen = Q.explore_request(ids, examples, shrinks)
    pinned = None
    if within:
        chosen, pinned = Q.explore_request(ids, examples, shrinks, within=dict(within))
    settings = Q.settings(mode, seed)
    Q.workers(workers)
    return X.explore(chosen, examples=examples, seed=settings.seed, mode=settings.mode, dps=settings.dps,
                     workers=workers, max_shrinks=shrinks, within=pinned)


def simulate(claim_id: str, *, mode: str = "quick", seed: int | None = None, dps: int = 30):
    """The claim's unjudged evidence: each row's theory value next to the experiment's mean,
    standard error and allowance (``numerics.claims.base.Evidence``)."""
    from numerics import request as Q

    return Q.claim(claim_id).collect(Q.settings(mode, seed, dps))


def power(claim_id: str, *, mode: str = "quick", seed: int | None = None):
    """The claim under each structural mutant of its derivation and a ±5 % scaling of its
    outputs (``numerics.claims.power.Power``; ``.to_pandas()``: one row per mutant)."""
    from numerics import request as Q
    from numerics.claims.power import power as _power

    return _power(Q.claim(claim_id), Q.settings(mode, seed))


def mutate(ids=None, *, mode: str = "quick", seed: int | None = None, sample: int = 100, all: bool = False,
           sample_seed: int = 0, workers: int = 1, budget: float | None = 30.0, cache: bool = True,
           scheduler: str | None = None) -> list:
    """``attncheck mutate``: the automatic mutants of each claim's derivation (every operator of
    ``derivations.automutants`` at every node of every step the claim reaches), each run through
    the claim with the experiment collected once; one
    :class:`numerics.claims.mutate.Mutation` per claim (``.score``, ``.interval``,
    ``.survivors``, ``.to_json()``; ``docs/mutate.md``).  A claim with more than ``sample``
    mutants runs a seeded random sample of them (``sample_seed``) unless ``all``; a mutant taking
    more than ``budget`` seconds is reported as timed out (None: no limit); ``workers`` processes
    share the claims (one claim's mutants when it is the only one to compute), the
    dask.distributed cluster at ``scheduler`` (``"local"`` or ``"tcp://host:port"``) each claim's
    mutants in turn, with the results of one process.  Results are cached as verdicts are
    (``cache=False``: recomputed, not recorded).

    >>> attncheck.mutate("S.mp.edge")[0].score                      # doctest: +SKIP
    1.0
    """
    from numerics import request as Q
    from numerics.claims.mutate import mutate_all

    chosen, settings, sample, sample_seed, workers, budget = Q.automatic_mutants(
        ids, mode, seed, sample=sample, sample_seed=sample_seed, workers_=workers, budget=budget)
    return list(mutate_all(chosen, settings, sample=sample, all_mutants=bool(all), seed=sample_seed,
                           workers=workers, budget=budget, use_cache=cache, scheduler=scheduler))


def evaluate(claim_id: str, *, dps: int = 30, as_strings: bool = False, max_memory=None, max_time=None,
             **params) -> dict:
    """The claim's closed form at ``params`` (CLI names, e.g. ``alpha0=2``), at ``dps`` digits.

    Returns ``{name: Value}``.  A Monte Carlo / QMC estimate is a Value carrying its standard
    error (``.error``, ``.kind``) and prints only the digits that error supports, as ``attncheck
    eval`` does; ``as_strings=True`` gives the CLI's decimal strings instead (the error back on
    its ``_se``-suffixed key).  A parameter given as a numpy array (several broadcast together)
    is evaluated elementwise, through the claim's mpmath evaluator at every point; each output
    is then an object array of Values of the broadcast shape (``np.asarray(a, dtype=float)``
    gives the floats).  Every point is validated, and the whole request priced, before any point
    is computed: a request estimated above ``max_memory``/``max_time`` is refused before it runs.
    """
    from numerics import request as Q
    from numerics.core import value as V

    res = Q.evaluate(claim_id, params, dps, max_memory=max_memory, max_time=max_time)
    if not as_strings:
        return res.values
    if res.shape is None:
        return V.flatten(res.values)
    import numpy as np

    return {k: np.vectorize(str, otypes=[object])(a) for k, a in res.values.items()}


def certify(claim_id: str, *, dps: int = 30, as_values: bool = False, **params) -> dict:
    """The claim's closed forms at ``params`` as rigorous enclosures, as ``attncheck eval
    --certify``: ``{name: Ball}`` with ``.mid`` and ``.rad`` (decimal strings: the value lies
    in [mid - rad, mid + rad]), ``.digits`` (the certified digits) and ``.value`` (the
    ``flint.arb`` ball); each ball is narrower than 10^-(dps-3).  With ``as_values=True``:
    ``{name: Value}`` of kind ``"radius"`` (midpoint, radius), to compute with.  Raises
    ``ParameterError`` for a claim without a certifier (``numerics.theory.certify.certifiable_ids``)."""
    from numerics import request as Q
    from numerics.core import value as V

    balls = Q.certify(claim_id, params, dps)[1]
    return {k: V.from_ball(b, dps) for k, b in balls.items()} if as_values else balls


def solve(problem: str = "sparse-token", *, dps: int = 30, max_memory=None, max_time=None, **params):
    """A problem's equations at your parameters, as ``attncheck solve`` (options ``model=``,
    ``loss=`` go with the parameters).

    Returns a ``SolveResult`` (a ``numerics.core.results.Solution``), the same for every model:
    ``.ok``, ``.result``, ``.iterations``, ``.residual``, ``.message`` (the solver's status),
    ``.value`` = ``{name: Value}`` (also ``result["test_error"]``; an attention solve's QMC
    estimates carry their standard error), ``.stats`` (quadrature, precision).  Raises
    ``SolveError`` when the solve did not converge, ``ResourceError`` (a ``ParameterError``)
    before it runs when it is estimated above ``max_memory``/``max_time``."""
    from numerics import request as Q

    opts, params = _solve_split(problem, params)
    out = Q.solve(problem, opts, params, dps, max_memory=max_memory, max_time=max_time, announce=_announce)
    if not out.ok:
        from numerics.core.results import SolveError

        raise SolveError(out)
    return out


def solve_estimate(problem: str = "sparse-token", **params):
    """The up-front estimate of ``solve(problem, **params)`` (a ``numerics.core.resources.Estimate``:
    ``bytes``, ``seconds``, ``knobs``), the one ``attncheck solve`` prints and checks against
    the limits; nothing is computed."""
    from numerics import request as Q

    opts, params = _solve_split(problem, params)
    return Q.solve_request(problem, opts, params)[3]


def _solve_split(problem: str, params: dict) -> tuple[dict, dict]:
    """A problem's options (``model=``, ``loss=``) apart from its parameters."""
    from numerics import request as Q

    spec = Q.problem(problem)
    return {k: v for k, v in params.items() if k in spec.options}, {k: v for k, v in params.items()
                                                                    if k not in spec.options}


def _announce(text: str) -> None:
    """A long request is announced on stderr before it runs, as on the command line."""
    import sys

    print(text, file=sys.stderr)


def sweep(target: str, out, *, grid: dict | None = None, dps: int = 30, workers: int = 1, scheduler=None,
          format: str = "parquet", model=None, loss=None, max_memory=None, max_time=None, **params) -> dict:
    """``attncheck sweep``: a claim's closed forms (or a problem's solve) at every point of
    ``grid`` ({name: values}, their Cartesian product; a numpy array or list per name), with the
    other parameters fixed by ``params``.  Points go to the folder ``out`` (content-addressed:
    a rerun computes only the missing ones) with the table ``sweep.parquet`` or ``sweep.csv``.
    Returns a ``Sweep`` (``numerics.sweep.Sweep``): the provenance as a dict (``points``,
    ``computed``, ``reused``, ``table``...) with the table in memory, ``.to_pandas()`` (one row
    per point) and ``.to_xarray()`` (one dimension per swept parameter); their ``values=``
    keeps the sweep's ``dps`` digits (``"value"``: a column of Values, ``"text"``: strings),
    the default (``"auto"``) does above 15 digits (pandas and xarray: ``pip install
    'attncheck[tables]'``).  A point whose closed form raised or whose solve did not converge
    has no values: ``passed`` is then False and ``errors`` lists each such point with its error
    (a rerun retries them).

    >>> s = attncheck.sweep("A.thm3.q2_cosine", "sweeps/cos", grid={"alpha0": np.linspace(0.5, 8, 16)})  # doctest: +SKIP
    >>> s.to_pandas()[["alpha0", "logistic.q2_cosine"]]                                  # doctest: +SKIP
    """
    import os

    from numerics import request as Q
    from numerics import sweep as SW
    from numerics.core import resources
    from numerics.core.params import ParameterError

    if not isinstance(grid, dict) or not grid:
        raise ParameterError("grid must be a dict {name: values} with at least one parameter")
    grid = {k: list(v.tolist() if hasattr(v, "tolist") else v) if not isinstance(v, (str, bytes)) else [v]
            for k, v in grid.items()}
    plan = Q.plan_sweep(target, grid, params, {"model": model, "loss": loss}, dps, workers_=workers)
    out = os.fspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ParameterError(f"out {out!r}: exists and is not a folder")
    resources.check_cost(plan.cost, max_memory=max_memory, max_time=max_time)
    return SW.Sweep(out, SW.run(plan.target, plan.grid, out, dps=dps, workers=workers, scheduler=scheduler,
                                fmt=format))


def figure(figure_id: str | None, path, *, sweep_dir=None, mode: str = "quick", seed: int | None = None) -> str:
    """``attncheck figure``: a figure of a paper (theory lines + simulation points) written to
    ``path`` (.png, .pdf or .svg), or, with ``sweep_dir``, a finished sweep drawn.  Returns
    ``path``."""
    from numerics import request as Q
    from numerics.core.params import ParameterError

    path = Q.output_path(path, (".png", ".pdf", ".svg"))
    if sweep_dir is not None:
        from numerics.figures.sweep_plot import draw_sweep

        try:
            draw_sweep(sweep_dir, path)
        except (OSError, KeyError, ValueError) as e:
            raise ParameterError(f"sweep_dir {sweep_dir!r}: not a finished sweep folder ({e})") from None
        return path
    fn = Q.figure_fn(figure_id)
    fn(path, Q.settings(mode, seed), lambda iterable, label: iterable)
    return path


def equations(claim_id: str) -> tuple:
    """The claim's equations (``derivations.Equation``; they render as LaTeX in notebooks)."""
    from numerics import request as Q

    return Q.claim(claim_id).get_equations()


def latex(ids=None) -> str:
    """The LaTeX of the claims' equations (ids or prefixes; all if None)."""
    from numerics import request as Q
    from numerics.latex import claims_latex

    return claims_latex(Q.select(ids))


def report(ids=None, path: str = "report.html", *, mode: str = "quick", seed: int | None = None,
           power: bool = True, figures: bool = True, cache: bool = True) -> str:
    """Write the verification report of the claims (ids or prefixes; all if None) to ``path``:
    ``.html`` (self-contained, offline) or ``.pdf`` (typeset by pdflatex).  Returns ``path``."""
    import os

    from numerics import report as R
    from numerics import report_latex as RL
    from numerics import request as Q
    from numerics.report_content import collect
    from numerics.core.params import ParameterError

    kind = os.path.splitext(str(path))[1].lower()
    if kind not in (".html", ".htm", ".pdf"):
        raise ParameterError(f"path must end in .html or .pdf, got {path!r}")
    if kind == ".pdf" and RL.pdflatex() is None:
        raise ParameterError("a PDF report needs pdflatex: apt-get install texlive-latex-base "
                             "texlive-latex-recommended texlive-fonts-recommended")
    settings = Q.settings(mode, seed)
    entries, prov = collect(Q.select(ids), settings, with_power=power, with_figures=figures, use_cache=cache)
    if kind == ".pdf":
        RL.to_latex_pdf(entries, prov, settings, str(path))
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(R.html_page(entries, prov, settings))
    return str(path)


def __getattr__(name):  # Value and the errors, imported on first use: ``import attncheck`` stays cheap
    if name == "Value":
        from numerics.core.value import Value

        return Value
    if name == "Sweep":
        from numerics.sweep import Sweep

        return Sweep
    if name == "SolveError":
        from numerics.core.results import SolveError

        return SolveError
    if name == "ParameterError":
        from numerics.core.params import ParameterError

        return ParameterError
    raise AttributeError(f"module 'attncheck' has no attribute {name!r}")
