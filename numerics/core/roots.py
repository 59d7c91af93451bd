"""Roots of increasing scalar functions: vectorised (numpy) and scalar (any number type).

Used for proximal points: G(h) = 0 with G compiled from SymPy and G_h = dG/dh > 0.  Newton's
method safeguarded by a bracket that every iterate tightens (the rtsafe rule: bisect when the
Newton step leaves the bracket or |G| did not halve; before both ends are known, step further
towards the root).  Nothing here knows a model: G and G_h are compiled callables.
"""
from __future__ import annotations

import numpy as np

from numerics.core.results import RESULTS, Solution, SolveError


def _flat(args, shape):
    out = []
    for v in args:
        v = np.asarray(v, dtype=float)
        out.append(v if v.ndim == 0 else np.broadcast_to(v, shape).ravel())
    return out


def _take(args, idx):
    return [v if v.ndim == 0 else v[idx] for v in args]


def _eval(GG, h, args):
    g, gh = GG(h, *args)
    return (np.broadcast_to(np.asarray(g, dtype=float), np.shape(h)),
            np.broadcast_to(np.asarray(gh, dtype=float), np.shape(h)))


def increasing_root(GG, args, h0, *, tol: float = 1e-14, max_iter: int = 200) -> np.ndarray:
    """h with G(h, *args) = 0, elementwise, for G increasing in h; ``GG(h, *args)`` returns
    (G, G_h) (one compiled function); ``args`` broadcastable to ``h0``.

    Newton from h0; the bracket [lo, hi] is tightened by the sign of G at every iterate; a
    step that leaves the bracket or does not halve |G| is replaced by bisection once both
    ends are known, and by a step four times longer towards the root before.  While most
    points are active the compiled function is evaluated on the broadcast arguments as given;
    the last few points are iterated alone.  Raises :class:`SolveError` if some root is not
    found."""
    u = np.array(h0, dtype=float)
    shape = u.shape
    lo, hi = np.full(shape, -np.inf), np.full(shape, np.inf)
    f_prev = np.full(shape, np.inf)
    u, lo, hi, f_prev = u.ravel(), lo.ravel(), hi.ravel(), f_prev.ravel()
    act = np.arange(u.size)
    flat = None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(max_iter):
            if act.size == 0:
                break
            if act.size > u.size // 2:  # evaluate everywhere on the arguments as given
                f, fp = _eval(GG, u.reshape(shape), args)
                f, fp = f.ravel()[act], fp.ravel()[act]
            else:
                if flat is None:
                    flat = _flat(args, shape)
                f, fp = _eval(GG, u[act], _take(flat, act))
            ua = u[act]
            newton = ua - f / fp
            af = np.abs(f)
            small = np.abs(newton - ua) <= tol * (1.0 + np.abs(ua))
            la = np.where(f < 0, ua, lo[act])
            ha = np.where(f > 0, ua, hi[act])
            bad = ~small & ((newton <= la) | (newton >= ha) | (af > 0.5 * f_prev[act]) | ~np.isfinite(newton))
            if bad.any():
                ib = np.flatnonzero(bad)
                l, r, x0, fb = la[ib], ha[ib], ua[ib], f[ib]
                both = np.isfinite(l) & np.isfinite(r)
                d = np.where(np.isfinite(newton[ib]), np.abs(newton[ib] - x0), 0.0)
                towards = np.where(fb < 0, 1.0, -1.0) * np.maximum(d, 1e-3 * (1.0 + np.abs(x0)))
                newton[ib] = np.where(both, 0.5 * (l + r), x0 + 4.0 * towards)
                small[ib] = both & (r - l <= tol * (1.0 + np.abs(x0)))
            newton = np.where(f == 0, ua, newton)
            f_prev[act], lo[act], hi[act], u[act] = af, la, ha, newton
            act = act[~(small | (f == 0))]
    if act.size:
        raise SolveError(Solution(RESULTS.max_steps_reached, max_iter, float("inf"),
                                  message=f"{act.size} proximal points did not converge"))
    return u.reshape(shape)


def increasing_root_scalar(GG, h0, *, tol, max_iter: int = 200, max_expand: int = 400):
    """The scalar version for any number type with +, -, *, /, abs and comparisons (e.g.
    mpmath.mpf): ``GG(h) -> (G, G_h)``.  Brackets the root by steps growing away from h0,
    then rtsafe."""
    x = h0
    g, gh = GG(x)
    if g == 0:
        return x
    up = g < 0
    step = abs(g) / gh if gh > 0 else 1
    step = max(step, tol * (1 + abs(x)) * 16)
    lo = hi = x
    for _ in range(max_expand):
        probe = x + step if up else x - step
        gp = GG(probe)[0]
        if (gp >= 0) if up else (gp <= 0):
            lo, hi = (x, probe) if up else (probe, x)
            break
        x = probe
        step *= 4
    else:
        raise SolveError(Solution(RESULTS.no_bracket, max_expand, float("inf"),
                                  message="proximal point not bracketed"))
    u = (lo + hi) / 2
    f_prev = None
    for _ in range(max_iter):
        f, fp = GG(u)
        if f == 0:
            return u
        if f < 0:
            lo = u
        else:
            hi = u
        un = u - f / fp
        if un <= lo or un >= hi or (f_prev is not None and abs(f) > abs(f_prev) / 2):
            un = (lo + hi) / 2
        f_prev = f
        if abs(un - u) <= tol * (1 + abs(un)) or hi - lo <= tol * (1 + abs(un)):
            return un
        u = un
    raise SolveError(Solution(RESULTS.max_steps_reached, max_iter, float("inf"),
                              message="proximal point did not converge"))
