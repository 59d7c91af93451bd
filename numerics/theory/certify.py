"""``attncheck eval ID --certify``: rigorous enclosures of a claim's closed forms.

A claim is certifiable when its own evaluator runs under the arb context: its ``evaluate`` is
a :class:`numerics.core.backends.Evaluator` whose ``contexts`` include ``"arb"`` (the compiled
step chain of its derivation, run in FLINT balls instead of mpmath; or, for the capacity
boxes, a Krawczyk proof behind the same interface).  No table names them:
:func:`certifiable_ids` asks the registry.

:func:`certify` runs the evaluator at a working precision of N digits plus guard bits and
raises the precision until every ball is narrower than 10^-(N-3) (absolutely, and relative to
the value unless the ball contains 0), then returns :class:`numerics.core.arb.Ball` values
(midpoint, radius, certified digits).  Before it returns, the certificate checks itself
(:func:`cross_check`): every ball must contain an independent mpmath value of the same
derivation (``Evaluator.reference``: the other Gaussian quadrature, tanh-sinh on the whole
line instead of the shared trapezoid, or the claim's independent algorithm, at 2N digits)
and be as narrow as promised; otherwise :class:`numerics.core.arb.CertificateMismatch` is
raised and nothing is printed.  The same check is a row of ``verify`` for every certifiable
claim (:func:`certified_row`).

What is rigorous: the ball arithmetic (FLINT's arb/acb), the quadrature error of
``acb.integral``, the Gaussian-tail bound, the Krawczyk root proof.  What is not: the
derivation itself (that is what the claims check) and FLINT's correctness.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from numerics.core.params import ParameterError

#: extra guard bits of the working precision, tried in turn
GUARD_BITS = (24, 64, 160, 400)


def _claim(claim_or_id):
    if isinstance(claim_or_id, str):
        from numerics import registry

        try:
            return registry.claim(claim_or_id)
        except KeyError:
            raise ParameterError(f"unknown claim id {claim_or_id!r}; run `attncheck list` for the ids") from None
    return claim_or_id


def evaluator(claim_or_id):
    """The claim's evaluator if it runs under the arb context, else None."""
    try:
        claim = _claim(claim_or_id)
    except ParameterError:
        return None
    ev = getattr(claim, "evaluate", None)
    supports = getattr(ev, "supports", None)
    return ev if callable(supports) and supports("arb") else None


def _index() -> dict:
    """{id: certifiable} from the registry's claim index (written from the claims' own
    evaluators, without importing them again); {} when the index does not say."""
    from numerics import registry

    # the claims registered: the files given with --claims and the installed plugins' entry points
    key = (tuple(registry.EXTRA_FILES), registry.plugin_entry_points())
    if key not in _INDEX:
        _INDEX[key] = _read_index(registry)
    return _INDEX[key]


_INDEX: dict = {}


def _read_index(registry) -> dict:
    try:
        return {r["id"]: r["certifiable"] for r in registry.claim_index() if "certifiable" in r}
    except Exception:  # noqa: BLE001 (an unreadable index: ask the claims themselves)
        return {}


def certifiable(claim_or_id) -> bool:
    if isinstance(claim_or_id, str):
        known = _index()
        if claim_or_id in known:
            return bool(known[claim_or_id])
    return evaluator(claim_or_id) is not None


def certifiable_ids() -> tuple:
    """The ids of every certifiable claim (asked of the claims' evaluators through the
    registry's index, never listed by hand)."""
    from numerics import registry

    known = _index()
    if known:
        return tuple(cid for cid, ok in known.items() if ok)
    return tuple(c.id for c in registry.claims().values() if certifiable(c))


def _balls(ev, params: dict, digits: int, timings: dict | None):
    from numerics.core.arb import CertifyError, ball, bits, precision, width_ok
    from numerics.core.backends import ArbContext

    last = None
    t0 = time.perf_counter()
    for guard in GUARD_BITS:
        with precision(bits(digits) + guard):
            try:
                out = ev.under(ArbContext(digits), params)
            except CertifyError as e:
                last = str(e)
                continue
            wide = [k for k, v in out.items() if not width_ok(v, digits - 3)]
            if not wide:
                res = {k: ball(v, digits) for k, v in out.items()}
                if timings is not None:
                    timings.update(seconds=time.perf_counter() - t0, guard_bits=guard)
                return res
            last = f"balls too wide for {', '.join(wide)}"
    raise CertifyError(f"no certificate at {digits} digits ({last})")


def certify(claim_id, params: dict, digits: int, *, timings: dict | None = None, check: bool = True) -> dict:
    """``{key: Ball}`` for a certifiable claim (:func:`certifiable`) at the (validated)
    ``params``, each ball of width <= 10^-(digits-3).  The claim is taken to be certifiable: a
    request for one that is not is refused where it is parsed (``numerics.request.certify``),
    and the other callers here ask :func:`certifiable` first.  Raises
    :class:`numerics.core.arb.CertifyError` when the balls stay too wide at the largest working
    precision, and :class:`numerics.core.arb.CertificateMismatch` when a ball fails its
    cross-check (``check=False`` skips it: for the tests of the check)."""
    from numerics.core.arb import CertifyError

    claim = _claim(claim_id)
    ev = evaluator(claim)
    try:
        balls = _balls(ev, params, digits, timings)
    except CertifyError as e:
        raise type(e)(f"{claim.id}: {e}") from None
    if check:
        t0 = time.perf_counter()
        bad = [c for c in cross_check(claim, params, balls, digits) if not c.ok]
        if timings is not None:
            timings["check_seconds"] = time.perf_counter() - t0
        if bad:
            from numerics.core.arb import CertificateMismatch

            raise CertificateMismatch(f"wrong certificate, not printed: {bad[0].why}"
                                      + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
    return balls


@dataclass(frozen=True)
class Check:
    """The cross-check of one ball: ``offset`` = (independent value - midpoint) / radius
    (|offset| <= 1: contained), ``width`` = ball width / promised width (<= 1: as promised)."""

    key: str
    contained: bool
    offset: float
    width: float
    why: str = ""
    #: the ball as printed, ``[mid ± rad]``, and the independent value (its digits as computed)
    ball: str = ""
    reference: str = ""

    @property
    def ok(self) -> bool:
        return self.contained and self.width <= 1.0

    @property
    def score(self) -> float:
        """max(|offset|, width), clipped to agree with the exact containment test."""
        off = min(abs(self.offset), 1.0) if self.contained else max(abs(self.offset), 1.0 + 1e-9)
        return max(off, self.width)


def promised_width(b, digits: int):
    """The width a ball of ``certify(..., digits)`` promises: 10^-(digits-3), relative to
    the value unless the ball contains 0 (as the precision loop demands)."""
    from decimal import Decimal

    tol = Decimal(10) ** -(digits - 3)
    mid, rad = Decimal(b.mid), Decimal(b.rad)
    return tol if abs(mid) <= rad else tol * min(Decimal(1), abs(mid) - rad)


def width_ratio(b, digits: int) -> float:
    """The ball's width, 2 x its radius, over the width it promises (:func:`promised_width`):
    at most 1 for a ball as narrow as promised."""
    from decimal import Decimal

    return float(Decimal(2) * Decimal(b.rad) / promised_width(b, digits))


def cross_check(claim_id, params: dict, balls: dict, digits: int) -> list:
    """One :class:`Check` per ball: against the evaluator's independent mpmath value at
    2 ``digits`` (``Evaluator.reference``) and the promised width."""
    import mpmath

    claim = _claim(claim_id)
    ref = evaluator(claim).reference(params, 2 * digits)
    out = []
    for k, b in balls.items():
        if k not in ref:
            out.append(Check(k, False, float("inf"), 0.0, f"{k}: no independent value", f"[{b.mid} ± {b.rad}]"))
            continue
        width = width_ratio(b, digits)
        with mpmath.workdps(2 * digits + 20):
            mid, rad, r = mpmath.mpf(b.mid), mpmath.mpf(b.rad), mpmath.mpf(ref[k])
            offset = float((r - mid) / rad) if rad else (0.0 if r == mid else float("inf"))
            gap = abs(r - mid) - rad
        contained = b.contains(ref[k])
        why = ""
        if not contained:
            why = (f"{k}: the ball [{b.mid} ± {b.rad}] excludes the independent value "
                   f"{mpmath.nstr(ref[k], 2 * digits)} by {mpmath.nstr(gap, 3)}")
        elif width > 1:
            why = f"{k}: the ball is {width:.3g} times wider than promised (10^-{digits - 3})"
        out.append(Check(k, contained, offset, width, why, f"[{b.mid} ± {b.rad}]",
                         mpmath.nstr(ref[k], 2 * digits)))
    return out


#: the largest digits of the certified row of ``verify`` (its cost grows with the digits)
ROW_MAX_DIGITS = 60


def certified_row(claim, dps: int):
    """The certified row of a certifiable claim in ``verify`` (None for the others), as
    (label, score, n, text): the claim certified at its defaults with min(dps, ROW_MAX_DIGITS)
    digits and cross-checked (:func:`cross_check`); the score is the worst over the balls of
    max(|offset| / radius, width / promised width), and the row passes when it is <= 1.
    ``label`` names the row (stable: the power ratchet is keyed by it); ``text`` says what was
    checked of the worst ball, ``key: ball [mid ± rad] contains the independent value v
    (N digits)``, or why it does not.  A certificate that cannot be obtained scores inf (the row
    fails, naming the reason).  The row is listed apart from the statistical rows and takes no
    part in their Bonferroni correction (``numerics.claims.base.Comparison.certified``)."""
    from numerics.core.arb import ArbPrintError, CertifyError

    if not certifiable(claim) or claim.param_space is None:
        return None
    digits = max(10, min(int(dps), ROW_MAX_DIGITS))
    params = claim.param_space.validate({})
    what = f"certified ({digits} digits, defaults): ball contains the independent value ({2 * digits} digits)"
    try:
        balls = certify(claim, params, digits, check=False)
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        why = f"no certificate at the defaults ({str(e)[:120]})"
        return f"{what}: {why}", float("inf"), None, why
    checks = cross_check(claim, params, balls, digits)
    worst = max(checks, key=lambda c: c.score)
    text = (f"{worst.key}: ball {worst.ball} contains the independent value {worst.reference} "
            f"({2 * digits} digits), width <= 1e-{digits - 3}" if worst.ok else worst.why)
    return (f"{what}, width <= 1e-{digits - 3} [worst: {worst.key}]", worst.score, len(checks),
            f"{text} (the worst of {len(checks)} balls at the defaults)")


@dataclass(frozen=True)
class Certificate:
    """A certifiable claim certified at its default parameters: ``balls`` ({key: Ball}) or,
    when no certificate was found, ``error`` (the reason)."""

    claim_id: str
    params: dict
    digits: int
    balls: dict | None = None
    error: str | None = None


def at_defaults(claim, digits: int = 30) -> Certificate | None:
    """The claim certified (and cross-checked) at its default parameters, or None if it is
    not certifiable (what the report and ``attncheck latex --certified`` show)."""
    from numerics.core.arb import ArbPrintError, CertifyError

    if not certifiable(claim) or claim.param_space is None:
        return None
    params = claim.param_space.validate({})
    try:
        return Certificate(claim.id, params, digits, balls=certify(claim, params, digits))
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        return Certificate(claim.id, params, digits, error=str(e))
