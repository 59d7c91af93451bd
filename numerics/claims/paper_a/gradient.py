"""Claim A.grad.q2: the gradient of the softmax model in q, and q^(2) of the protocol.

Theory: the SymPy derivation (derivations/paper_a/gradient.py) — the symbolic gradient
d y_hat / d q_k at a random point (general q), the paper's form (beta/L) X^T (I - 11^T/L) X w
at q = 0, and the closed form q^(2) = -(eta_q beta/(n0 L)) sum_i h_i X_i^T P X_i w^(1) on a
small random data set (both losses).  Before the numbers, the symbolic identities are checked
exactly (explicit L x d = 3 x 2 differentiation equals the matrix forms).

Experiment: an independent mpmath implementation of y_hat and of the mean loss (written here,
no SymPy), differentiated by central finite differences at 40 digits.  The protocol's w^(1),
b^(1) are themselves finite-difference gradient steps from zero, then q^(2) = -eta_q x the
finite-difference gradient in q at (w^(1), b^(1), q = 0).

Allowance: the finite-difference error bound |D(h) - D(2h)| (the central-difference
truncation error is c h^2, so D(h) - D(2h) = -3 c h^2 bounds it) plus the rounding floor
10 * 10^-dps / h.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from derivations.paper_a import gradient as G
from numerics.claims.base import Claim, Comparison

FD_DPS = 40
FD_STEP = mpmath.mpf("1e-10")
SIZES = {"quick": dict(L=4, d=3, n0=5), "full": dict(L=6, d=4, n0=8)}


# --- the independent numeric model (mpmath) ------------------------------------------------
def yhat_mp(X, w, q, b, beta):
    """w^T X^T softmax(beta X q) + b, with a max-shift for stability."""
    g = [beta * mpmath.fsum(x * qk for x, qk in zip(row, q)) for row in X]
    top = max(g)
    e = [mpmath.exp(gi - top) for gi in g]
    tot = mpmath.fsum(e)
    scores = [mpmath.fsum(x * wk for x, wk in zip(row, w)) for row in X]
    return mpmath.fsum(ei * si for ei, si in zip(e, scores)) / tot + b


def loss_mp(loss, yh, y):
    if loss == "logistic":
        return mpmath.log1p(mpmath.exp(-y * yh))
    return (yh - y) ** 2 / 2


def mean_loss_mp(loss, Xs, ys, w, q, b, beta):
    return mpmath.fsum(loss_mp(loss, yhat_mp(X, w, q, b, beta), y) for X, y in zip(Xs, ys)) / len(Xs)


def fd_grad(f, x, h=FD_STEP):
    """Central differences of f at the list x; returns (gradient, error bound) lists."""
    grads, errs = [], []
    for k in range(len(x)):
        def at(t):
            z = list(x)
            z[k] = z[k] + t
            return f(z)
        d1 = (at(h) - at(-h)) / (2 * h)
        d2 = (at(2 * h) - at(-2 * h)) / (4 * h)
        grads.append(d1)
        errs.append(abs(d1 - d2) + 10 * mpmath.mpf(10) ** (-mpmath.mp.dps) / h)
    return grads, errs


def _rational(rng, scale=1.0):
    return sp.Rational(int(rng.integers(-1000, 1001)), int(1000 / scale))


def experiment(settings, claim):
    sizes = SIZES[settings.mode]
    L, d, n0 = sizes["L"], sizes["d"], sizes["n0"]
    rng = claim.rng(settings, "point")
    checks = {"softmax_jacobian_L3": G.softmax_jacobian_check(3),
              **{f"explicit_3x2_{k}": v for k, v in G.explicit_gradient_check(3, 2).items()}}
    if not all(checks.values()):
        raise AssertionError(f"symbolic gradient identities failed: {checks}")
    rows = []
    beta_ = sp.Rational(int(rng.integers(5, 20)), 10)
    with mpmath.workdps(FD_DPS):
        # (a) general q and (b) q = 0: symbolic gradient vs finite differences of y_hat
        X, w, q, b = G.symbols(L, d)
        vals = {s: _rational(rng) for s in list(X) + list(w) + list(q)}
        vals[b] = _rational(rng)
        grad_sym = G.explicit_gradient(X, w, q, b).subs(G.beta, beta_)
        Xn = [[mpmath.mpf(sp.N(vals[X[i, j]], FD_DPS + 10)) for j in range(d)] for i in range(L)]
        wn = [mpmath.mpf(sp.N(vals[wk], FD_DPS + 10)) for wk in w]
        qn = [mpmath.mpf(sp.N(vals[qk], FD_DPS + 10)) for qk in q]
        bn = mpmath.mpf(sp.N(vals[b], FD_DPS + 10))
        bm = mpmath.mpf(sp.N(beta_, FD_DPS + 10))
        fd, err = fd_grad(lambda z: yhat_mp(Xn, wn, z, bn, bm), qn)
        theory = [sp.N(gk.subs(vals), FD_DPS) for gk in grad_sym]
        for k in range(d):
            rows.append(Comparison(f"dyhat/dq_{k} (q random)", float(theory[k]), float(fd[k]), 0.0, float(err[k])))
        at0 = G.gradient_at_zero(X, w).subs(G.beta, beta_)
        fd0, err0 = fd_grad(lambda z: yhat_mp(Xn, wn, z, bn, bm), [mpmath.mpf(0)] * d)
        for k in range(d):
            t = sp.N(at0[k].subs(vals), FD_DPS)
            rows.append(Comparison(f"dyhat/dq_{k} (q = 0)", float(t), float(fd0[k]), 0.0, float(err0[k])))
        # (c) the protocol's q^(2) on a small data set, both losses
        Xs = [sp.Matrix(L, d, lambda i, j: _rational(rng, 0.5)) for _ in range(n0)]
        ys = [1, -1] + [int(rng.choice([-1, 1])) for _ in range(n0 - 2)]
        eta = {k: sp.Rational(int(rng.integers(2, 10)), 10) for k in ("w", "b", "q")}
        Xs_mp = [[[mpmath.mpf(sp.N(M[i, j], FD_DPS + 10)) for j in range(d)] for i in range(L)] for M in Xs]
        for loss in ("logistic", "square"):
            def dl(yh, y, loss=loss):
                return -y / (1 + sp.exp(y * yh)) if loss == "logistic" else yh - y
            closed = G.q2_closed_form(Xs, ys, eta["w"], eta["b"], eta["q"], beta_, dl)
            # experiment: w^(1), b^(1) and q^(2) as finite-difference gradient steps from zero
            zero_d = [mpmath.mpf(0)] * d
            gw, _ = fd_grad(lambda z: mean_loss_mp(loss, Xs_mp, ys, z, zero_d, 0, bm), zero_d)
            gb, _ = fd_grad(lambda z: mean_loss_mp(loss, Xs_mp, ys, zero_d, zero_d, z[0], bm), [mpmath.mpf(0)])
            ew, eb, eq = (mpmath.mpf(sp.N(eta[k], FD_DPS + 10)) for k in ("w", "b", "q"))
            w1 = [-ew * gk for gk in gw]
            b1 = -eb * gb[0]
            gq, errq = fd_grad(lambda z: mean_loss_mp(loss, Xs_mp, ys, w1, z, b1, bm), zero_d)
            for k in range(d):
                t = sp.N(closed["q2"][k], FD_DPS)
                # the bound propagates the FD error of w^(1) only to O(h^2) relative: ~ errq
                rows.append(Comparison(f"q2_{k}[{loss}]", float(t), float(-eq * gq[k]), 0.0,
                                       float(eq * errq[k] * 2)))
    small = [r.label for r in rows if abs(r.theory) < 1e-6]
    if small:
        raise AssertionError(f"theory values too close to 0 for a relative mutation test: {small}")
    return rows, {"L": L, "d": d, "n0": n0, "fd_dps": FD_DPS, "fd_step": str(FD_STEP)}, \
        {"symbolic_checks": checks, "beta": str(beta_), "etas": {k: str(v) for k, v in eta.items()}}


CLAIMS = [
    Claim(
        id="A.grad.q2",
        paper="A",
        reference="Paper A §4 (training protocol, step 3)",
        statement="grad_q y_hat = beta X^T (diag s - s s^T) X w, = (beta/L) X^T (I - 11^T/L) X w at q = 0; "
                  "q^(2) = -(eta_q beta/(n0 L)) sum_i h_i X_i^T (I - 11^T/L) X_i w^(1)",
        experiment=experiment,
        equations=G.equations,
        status="paper",
        allowance_note="central finite-difference error bound |D(h) - D(2h)| + 10^(1-dps)/h "
                       "(h = 1e-10, dps = 40); for q^(2) doubled to cover the FD error of w^(1), b^(1)",
        doc="docs/paper_a_alignment.md",
    ),
]
