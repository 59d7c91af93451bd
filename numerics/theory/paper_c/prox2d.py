"""Vectorised global minimisation of a smooth objective in R^2 at many points at once.

Generic machinery: ``obj``, ``grad`` and ``hess`` are compiled SymPy expressions (callables of
(h_1, h_2, *args), numpy-vectorised).  From each start point a damped Newton iteration runs
with the Hessian shifted to be positive definite where it is not (Levenberg), and an Armijo
backtracking on the objective; the lowest converged minimum over the starts is kept.
Convergence: |grad| below ``tol`` (or a Newton step below 1e-13 relative: rounding) at every point and a positive definite Hessian there (a
minimum, so that the implicit function theorem applies).
"""
from __future__ import annotations

import numpy as np

from numerics.core.results import RESULTS, Solution


def _arr(out, *shape):
    n = shape[-1]
    return np.stack([np.broadcast_to(np.asarray(v, dtype=float), (n,)) for v in out]).reshape(shape)


def _newton(obj, grad, hess, h0, args, tol, max_steps, gradhess=None):
    """Damped Newton from h0 (2, N); only the points not yet converged are iterated
    (``gradhess``: gradient and Hessian in one call, sharing their subexpressions)."""
    h = np.array(h0, dtype=float)
    N = h.shape[1]
    args = tuple(np.broadcast_to(np.asarray(a, dtype=float), (N,)) for a in args)
    idx = np.arange(N)
    it = 0
    for it in range(1, max_steps + 1):
        a_ = tuple(a[idx] for a in args)
        hi = h[:, idx]
        if gradhess is None:
            g = _arr(grad(hi[0], hi[1], *a_), 2, idx.size)
            Hm = _arr(hess(hi[0], hi[1], *a_), 2, 2, idx.size)
        else:
            gh = _arr(gradhess(hi[0], hi[1], *a_), 6, idx.size)
            g, Hm = gh[:2], gh[2:].reshape(2, 2, idx.size)
        a, b, c = Hm[0, 0], 0.5 * (Hm[0, 1] + Hm[1, 0]), Hm[1, 1]
        lmin = 0.5 * (a + c) - np.sqrt(0.25 * (a - c) ** 2 + b * b)
        shift = np.where(lmin > 1e-8 * (np.abs(a) + np.abs(c) + 1e-300), 0.0, 1e-6 - lmin + 1e-3 * np.abs(lmin))
        a, c = a + shift, c + shift
        det = a * c - b * b
        d = np.stack([-(c * g[0] - b * g[1]) / det, -(-b * g[0] + a * g[1]) / det])
        f = obj(hi[0], hi[1], *a_)
        slope = np.sum(g * d, axis=0)
        t = np.ones_like(f)
        # the points still backtracking (only they are evaluated); the full step is taken
        # where the Hessian is positive definite and the gradient small (Newton's quadratic
        # region, where the objective's rounding cannot resolve the decrease)
        quad = (shift == 0) & (np.max(np.abs(g), axis=0) < 1e-7)
        hi = hi + np.where(quad, 1.0, 0.0) * d
        act = np.flatnonzero(~quad)
        for _ in range(40 if act.size else 0):
            ta = t[act]
            ht = hi[:, act] + ta * d[:, act]
            ft = np.broadcast_to(obj(ht[0], ht[1], *(a[act] for a in a_)), ta.shape)
            fa = f[act]
            ok = ft <= fa + 1e-4 * ta * slope[act] + 4e-16 * np.abs(fa)  # rounding slack near the minimum
            hi[:, act[ok]] = ht[:, ok]
            act = act[~ok]
            if act.size == 0:
                break
            t[act] /= 2
        h[:, idx] = hi
        small = (np.max(np.abs(g), axis=0) < tol) | (np.max(np.abs(t * d), axis=0) < 1e-13 * (1 + np.max(np.abs(hi), axis=0)))
        idx = idx[~small]
        if idx.size == 0:
            break
    g = _arr(grad(h[0], h[1], *args), 2, N)
    return h, obj(h[0], h[1], *args), np.max(np.abs(g), axis=0), it


def minimise(obj, grad, hess, starts, args, *, tol=1e-9, max_steps=100, gradhess=None) -> Solution:
    """The global minimiser over ``starts`` (a list of (2, N) arrays) of ``obj(h, *args)`` at
    N points.  Returns a Solution whose value is (h (2, N), objective (N,)); ``stats["minima"]``
    holds the point reached from each start (warm starts for a nearby problem).  A start equal
    (to 1e-6 relative) to an earlier one at a point is not run there again: its minimum is the
    earlier start's."""
    N = np.asarray(starts[0]).shape[1]
    args = tuple(np.broadcast_to(np.asarray(a, dtype=float), (N,)) for a in args)
    best_h, best_f, best_g, iters, minima = None, None, None, 0, []
    for k, h0 in enumerate(starts):
        h0 = np.asarray(h0, dtype=float)
        h, f, gn = np.empty((2, N)), np.full(N, np.inf), np.full(N, np.inf)
        new = np.ones(N, dtype=bool)
        for j in range(k):  # the points where this start repeats start j take start j's minimum
            same = new & np.all(np.abs(h0 - starts[j]) <= 1e-6 * (1 + np.abs(starts[j])), axis=0)
            h[:, same] = minima[j][:, same]
            new &= ~same
        idx = np.flatnonzero(new)
        if idx.size:
            hk, fk, gk, it = _newton(obj, grad, hess, h0[:, idx], tuple(a[idx] for a in args), tol, max_steps, gradhess)
            h[:, idx], f[idx], gn[idx] = hk, fk, gk
            iters = max(iters, it)
        minima.append(h)
        f = np.where(gn < tol * 10, f, np.inf)
        if best_h is None:
            best_h, best_f, best_g = h.copy(), f, gn
        else:
            better = f < best_f
            best_h = np.where(better, h, best_h)
            best_f = np.where(better, f, best_f)
            best_g = np.where(better, gn, best_g)
    res = float(np.max(best_g))
    Hm = _arr(hess(best_h[0], best_h[1], *args), 2, 2, best_h.shape[1])
    a, b, c = Hm[0, 0], 0.5 * (Hm[0, 1] + Hm[1, 0]), Hm[1, 1]
    pd = np.all((a > 0) & (a * c - b * b > 0))
    ok = np.all(np.isfinite(best_f)) and pd and res < tol * 10
    return Solution(RESULTS.successful if ok else RESULTS.failed, iters, res, (best_h, best_f),
                    "" if ok else "prox: no minimum found at some node", stats={"minima": minima})
