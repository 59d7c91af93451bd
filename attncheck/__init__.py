"""attncheck: a symbolic-numeric derivation checker for the theory of attention.

The Python API mirrors the command line; parameter names are the CLI's (``alpha0``, not the
SymPy symbol ``alpha_0``)::

    >>> import attncheck
    >>> v = attncheck.evaluate("A.thm3.q2_cosine", alpha0=2, dps=50)   # doctest: +SKIP
    >>> print(v["q2_cosine"])                # 50 digits, whatever mpmath.mp.dps is
    >>> b = attncheck.certify("A.thm3.q2_cosine", alpha0=2, dps=50)  # doctest: +SKIP
    >>> b["logistic.q2_cosine"].mid, b["logistic.q2_cosine"].rad      # a rigorous enclosure
    >>> verdicts = attncheck.verify("B.coercivity")          # list of Verdict
    >>> attncheck.solve("sparse-token", model="pool", alpha1=2, lam=0.01)
    >>> eqs = attncheck.equations("A.thm3.q2_cosine")      # Equation objects (render in notebooks)
    >>> attncheck.latex("A.thm3")                          # the LaTeX of the equations
    >>> attncheck.report("B", "paper_b.html")              # or "paper_b.pdf" (pdflatex)

Functions:

* :func:`verify` — run claims, return their verdicts (cached, pooled or on a cluster);
* :func:`evaluate` — a claim's closed form at your parameters, at ``dps`` digits;
* :func:`certify` — the same values as certified balls (ball arithmetic, ``eval --certify``);
* :func:`solve` — a problem's equations at your parameters (``attncheck solve``);
* :func:`simulate` — a claim's unjudged evidence (theory next to experiment, per row);
* :func:`power` — the claim under each structural mutant of its derivation;
* :func:`equations`, :func:`latex` — the claim's equations;
* :func:`report` — the verification report, HTML or PDF (``attncheck report``);
* :func:`claims` — every registered claim, by id.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Value", "certify", "claims", "equations", "evaluate", "latex", "power", "report", "simulate", "solve",
           "verify"]


def claims() -> dict:
    """Every registered claim (built-in, plugins, files added with ``--claims``), by id."""
    from numerics.core import registry

    return registry.claims()


def _claim(claim_id: str):
    table = claims()
    if not isinstance(claim_id, str) or claim_id not in table:
        from numerics.core.params import ParameterError

        raise ParameterError(f"unknown claim id {claim_id!r}; attncheck.claims() lists them")
    return table[claim_id]


def _integer(name: str, value, lo: int, hi: int | None) -> int:
    from numerics.core.params import ParameterError

    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        raise ParameterError(f"{name} must be an integer in [{lo}, {hi if hi is not None else 'inf'}], got {value!r}")
    return value


def _settings(mode: str, seed: int | None, dps: int):
    from numerics.claims.base import MODES, Settings
    from numerics.core.params import ParameterError
    from numerics.core.seeding import DEFAULT_SEED

    if mode not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    seed = DEFAULT_SEED if seed is None else _integer("seed", seed, 0, None)
    return Settings(mode=mode, seed=seed, dps=_integer("dps", dps, 5, 2000))


def _select(ids):
    from numerics.core import registry
    from numerics.core.params import ParameterError

    if ids is not None and not isinstance(ids, (str, list, tuple)):
        raise ParameterError(f"ids must be a claim id, a list of ids or None, got {ids!r}")
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    if not all(isinstance(i, str) for i in ids):
        raise ParameterError(f"claim ids must be strings, got {ids!r}")
    try:
        return registry.select(ids)
    except KeyError as e:
        raise ParameterError(f"unknown claim id {e.args[0]!r}; attncheck.claims() lists them") from None


def verify(ids=None, *, mode: str = "quick", seed: int | None = None, dps: int = 30, workers: int = 1,
           scheduler: str | None = None, cache: bool = True, mutate: float = 0.0) -> list:
    """Run the claims ``ids`` (ids or prefixes; all if None) and return their verdicts.

    >>> [v.passed for v in attncheck.verify("B.coercivity")]          # doctest: +SKIP
    [True, True, True]
    """
    import math

    from numerics.claims.base import judge
    from numerics.claims.runner import collect_all
    from numerics.core.params import ParameterError

    settings = _settings(mode, seed, dps)
    _integer("workers", workers, 1, 64)
    if isinstance(mutate, bool) or not isinstance(mutate, (int, float)) or not math.isfinite(mutate) or mutate <= -1:
        raise ParameterError(f"mutate must be a finite number > -1, got {mutate!r}")
    chosen = _select(ids)
    out = []
    for claim, evidence, cached in collect_all(chosen, settings, workers=workers,
                                               use_cache=cache, scheduler=scheduler):
        v = judge(evidence, mutate, claim)
        v.details = {**v.details, "cached": cached}
        out.append(v)
    return out


def simulate(claim_id: str, *, mode: str = "quick", seed: int | None = None, dps: int = 30):
    """The claim's unjudged evidence: each row's theory value next to the experiment's mean,
    standard error and allowance (``numerics.claims.base.Evidence``)."""
    return _claim(claim_id).collect(_settings(mode, seed, dps))


def power(claim_id: str, *, mode: str = "quick", seed: int | None = None):
    """The claim under each structural mutant of its derivation and a ±5 % scaling of its
    outputs (``numerics.claims.base.Power``)."""
    from numerics.claims.base import power as _power

    return _power(_claim(claim_id), _settings(mode, seed, 30))


@dataclass(frozen=True)
class Value:
    """A number at a stated precision: ``str`` gives ``digits`` significant digits, whatever
    the global ``mpmath.mp.dps``; ``.mpf`` is the mpmath number, ``float()`` a double."""

    mpf: object
    digits: int

    def __str__(self) -> str:
        import mpmath

        if isinstance(self.mpf, (bool, int)):
            return str(self.mpf).lower() if isinstance(self.mpf, bool) else str(self.mpf)
        return mpmath.nstr(self.mpf, self.digits, strip_zeros=False)

    def __repr__(self) -> str:
        return f"Value({self}, digits={self.digits})"

    def __float__(self) -> float:
        return float(self.mpf)

    def _repr_latex_(self) -> str:
        return f"${self}$"


def _priced(cost, *args, what=""):
    """The request's estimate (``numerics.core.resources.priced``: the interpreter without a cost model)."""
    from numerics.core import resources

    return resources.priced(cost, *args, what=what)


def _within_limits(estimate, max_memory, max_time) -> None:
    """Refuse a request above the memory/time limits before it runs (``ResourceError``, a
    ``ParameterError``); ``max_memory`` ('4G') and ``max_time`` ('2h') override the defaults
    (numerics/core/resources.py)."""
    from numerics.core import resources

    with resources.limited(max_memory, max_time):
        resources.check(estimate)


def evaluate(claim_id: str, *, dps: int = 30, as_strings: bool = False, max_memory=None, max_time=None,
             **params) -> dict:
    """The claim's closed form at ``params`` (CLI names, e.g. ``alpha0=2``), at ``dps`` digits.

    Returns ``{name: Value}`` (or decimal strings with ``as_strings=True``). Monte Carlo
    estimates keep only the digits their standard error supports, as in ``attncheck eval``.
    A request estimated above ``max_memory``/``max_time`` is refused before it runs.
    """
    from numerics.cli import _digits
    from numerics.core.params import ParameterError

    claim = _claim(claim_id)
    if claim.evaluate is None:
        raise ParameterError(f"claim {claim_id} has no closed form to evaluate")
    if not isinstance(dps, int) or isinstance(dps, bool) or not 5 <= dps <= 2000:
        raise ParameterError(f"dps must be an integer in [5, 2000], got {dps!r}")
    values = claim.param_space.validate(params)
    _within_limits(_priced(claim.cost, values, what=f"evaluate of {claim_id}"), max_memory, max_time)
    out = claim.evaluate(values, dps)
    import mpmath

    bad = [k for k, v in out.items() if not isinstance(v, (bool, int)) and not mpmath.isfinite(v)]
    if bad:  # as `attncheck eval` (exit 1): a non-finite value is never returned as a result
        raise ArithmeticError(f"{claim_id}: non-finite value for {', '.join(bad)} at these parameters")
    res = {k: Value(v, _digits(out, k, dps)) for k, v in out.items()}
    return {k: str(v) for k, v in res.items()} if as_strings else res


def certify(claim_id: str, *, dps: int = 30, **params) -> dict:
    """The claim's closed forms at ``params`` as rigorous enclosures, as ``attncheck eval
    --certify``: ``{name: Ball}`` with ``.mid`` and ``.rad`` (decimal strings: the value lies
    in [mid - rad, mid + rad]), ``.digits`` (the certified digits) and ``.value`` (the
    ``flint.arb`` ball); each ball is narrower than 10^-(dps-3).  Raises ``ParameterError``
    for a claim without a certifier (``numerics.theory.certify.CERTIFIERS``)."""
    from numerics.core.params import ParameterError
    from numerics.theory import certify as cert

    claim = _claim(claim_id)
    if not cert.certifiable(claim_id):
        raise ParameterError(f"claim {claim_id} cannot be certified; certifiable: {', '.join(cert.CERTIFIERS)}")
    if not isinstance(dps, int) or not 10 <= dps <= 2000:
        raise ParameterError(f"dps must be an integer in [10, 2000], got {dps!r}")
    return cert.certify(claim_id, claim.param_space.validate(params), dps)


def solve(problem: str = "sparse-token", *, dps: int = 30, max_memory=None, max_time=None, **params) -> dict:
    """A problem's equations at your parameters, as ``attncheck solve`` (options ``model=``,
    ``loss=`` go with the parameters). Raises ``SolveError`` when the solve did not converge,
    ``ResourceError`` (a ``ParameterError``) before it runs when it is estimated above
    ``max_memory``/``max_time``."""
    from numerics.core import registry
    from numerics.core.params import ParameterError
    from numerics.core.results import RESULTS, SolveError, Solution

    table = registry.problems()
    if not isinstance(problem, str) or problem not in table:
        raise ParameterError(f"unknown problem {problem!r}; known: {', '.join(table)}")
    spec = table[problem]
    options = {k: params.pop(k) for k in list(params) if k in spec.options}
    for k, v in options.items():
        if v not in spec.options[k]:
            raise ParameterError(f"{k} must be one of {', '.join(spec.options[k])}, got {v!r}")
    if not isinstance(dps, int) or isinstance(dps, bool) or not 5 <= dps <= 2000:
        raise ParameterError(f"dps must be an integer in [5, 2000], got {dps!r}")
    values = spec.param_space.validate(params)
    _within_limits(_priced(spec.cost, options, values, what=f"solve of {problem}"), max_memory, max_time)
    out = spec.solve(options, values, dps)
    if not out.get("converged", False):
        raise SolveError(Solution(RESULTS.failed, int(out.get("iterations", 0)),
                                  float(out.get("residual", float("inf"))), out, str(out.get("status", ""))))
    return out


def equations(claim_id: str) -> tuple:
    """The claim's equations (``derivations.Equation``; they render as LaTeX in notebooks)."""
    return _claim(claim_id).get_equations()


def latex(ids=None) -> str:
    """The LaTeX of the claims' equations (ids or prefixes; all if None)."""
    from numerics.latex import claims_latex

    return claims_latex(_select(ids))


def report(ids=None, path: str = "report.html", *, mode: str = "quick", seed: int | None = None,
           power: bool = True, figures: bool = True, cache: bool = True) -> str:
    """Write the verification report of the claims (ids or prefixes; all if None) to ``path``:
    ``.html`` (self-contained, offline) or ``.pdf`` (typeset by pdflatex).  Returns ``path``."""
    import os

    from numerics import report as R
    from numerics.core.params import ParameterError

    kind = os.path.splitext(str(path))[1].lower()
    if kind not in (".html", ".htm", ".pdf"):
        raise ParameterError(f"path must end in .html or .pdf, got {path!r}")
    if kind == ".pdf" and R.pdflatex() is None:
        raise ParameterError("a PDF report needs pdflatex: apt-get install texlive-latex-base "
                             "texlive-latex-recommended texlive-fonts-recommended")
    settings = _settings(mode, seed, 30)
    entries, prov = R.collect(_select(ids), settings, with_power=power, with_figures=figures, use_cache=cache)
    if kind == ".pdf":
        R.to_latex_pdf(entries, prov, settings, str(path))
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(R.html_page(entries, prov, settings))
    return str(path)
