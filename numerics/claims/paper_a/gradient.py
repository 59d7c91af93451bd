"""Claim A.grad.q2: the gradient of the softmax model in q, and q^(2) of the protocol.

Theory: the derived steps of derivations/paper_a/gradient.py, compiled to mpmath: the
chain-rule gradient beta X^T (diag s - s s^T) X w at a random point (general q), its value
(beta/L) X^T (I - 11^T/L) X w at q = 0, and q^(2) = -(eta_q beta/(n0 L)) sum_i h_i X_i^T P X_i
w^(1) of the protocol on a small random data set (both losses).

Experiment: central finite differences at 40 digits of the model and the mean loss
themselves (their definitions, ``gradient.model`` and ``gradient.LOSSES``, compiled to mpmath;
no derived step).  The protocol's w^(1), b^(1) are finite-difference gradient steps from zero,
then q^(2) = -eta_q x the finite-difference gradient in q at (w^(1), b^(1), q = 0).

At a parameter point (``GRAD_SPACE``: ``verify --param``, ``explore``) the data set D0 and the X
of the gradient rows are drawn from the sparse-token model at the point's L, R, pi, theta, and
the rates and beta are the point's; the rows and their allowance are as at the design.

Allowance: the finite-difference error bound |D(h) - D(2h)| (the central-difference
truncation error is c h^2, so D(h) - D(2h) = -3 c h^2 bounds it) plus the rounding floor
10 * 10^-dps / h.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from derivations.core import derivation
from derivations.paper_a import gradient as G
from derivations.paper_a.losses import Loss
from dataclasses import replace

from numerics.claims.base import Claim, Comparison, memo
from numerics.core.backends import MPMATH, to_mpf
from numerics.core.params import ParamSpace
from numerics.experiments.paper_a.sparse_token import SparseTokenModel
from numerics.papers.paper_a import vocabulary

FD_DPS = 40
FD_STEP = mpmath.mpf("1e-10")
SIZES = {"quick": dict(L=4, d=3, n0=5), "full": dict(L=6, d=4, n0=8)}
LOSSES = tuple(G.LOSSES.values())

#: the points ``verify --param`` / ``explore`` run the identities at: the model's parameters
#: (Paper A's declarations) from which the data set is drawn, and the rates and beta of the
#: protocol; L at most 8 (the derivation is built symbolically per L and labels: a quick run at
#: L = 8 takes about 18 s CPU, measured)
GRAD_SPACE = ParamSpace(
    (replace(vocabulary.L, hi=8, typical=(2, 6)).with_default(4), vocabulary.R.with_default(1), vocabulary.PI.with_default(0.3),
     replace(vocabulary.THETA, typical=(0.0, 3.0)).with_default(1.0), vocabulary.ETA_W.with_default(0.5),
     vocabulary.ETA_B.with_default(0.5), vocabulary.ETA_Q.with_default(0.5), replace(vocabulary.BETA, typical=(0.2, 2.0)).with_default(1.0)),
    source="a small data set of the sparse-token model (Paper A §2) at pi != 1/2",
    fixed=(("d", "the token dimension and n0 of the data set are the --quick/--full sizes (3, 5 / 4, 8): "
                 "the identities are exact at any size"),),
)


# --- the definitions, compiled (for the finite differences) --------------------------------
@derivation
def _model(L: int, d: int):
    """y_hat(X, w, q, b, beta) of ``gradient.model``, compiled to mpmath."""
    X, w, q, b = G.symbols(L, d)
    return MPMATH.compile(G.model(X, w, q, b), list(X) + list(w) + list(q) + [b, G.beta], raw=True)


@derivation
def _loss(loss: Loss, y: int):
    """l(y_hat; y) of the loss object ``loss`` (``gradient.LOSSES``), compiled to mpmath."""
    return MPMATH.compile(loss.ell(G.yhat, y, elementary=True), (G.yhat,), raw=True)


def yhat_mp(X, w, q, b, beta):
    """The compiled model at nested lists X (L x d), w, q (d) and numbers b, beta."""
    return _model(len(X), len(w))(*[x for row in X for x in row], *w, *q, b, beta)


def mean_loss_mp(loss: Loss, Xs, ys, w, q, b, beta):
    return mpmath.fsum(_loss(loss, y)(yhat_mp(X, w, q, b, beta)) for X, y in zip(Xs, ys)) / len(Xs)


# --- the derived steps, compiled ---------------------------------------------------------
@derivation
def _gradient(L: int, d: int):
    grad = G.gradient(L, d)
    args = list(grad["X"]) + list(grad["w"]) + list(grad["q"]) + [G.beta]
    return {k: MPMATH.compile(list(grad[k]), args, raw=True) for k in ("general", "at_zero")}


@derivation
def _q2(L: int, d: int, labels: tuple, loss: Loss):
    pr = G.protocol(L, d, labels, loss)
    args = [s for X in pr["data"] for s in X] + list(G.RATES)
    return MPMATH.compile(list(pr["q2"]), args, raw=True)


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


def _draw(settings, claim):
    """The random point and data set (exact rationals), from the claim's seed path."""
    sizes = settings.pick(**SIZES)
    L, d, n0 = sizes["L"], sizes["d"], sizes["n0"]
    rng = claim.rng(settings, "point")
    beta = sp.Rational(int(rng.integers(5, 20)), 10)
    X = [[_rational(rng) for _ in range(d)] for _ in range(L)]
    w = [_rational(rng) for _ in range(d)]
    q = [_rational(rng) for _ in range(d)]
    b = _rational(rng)
    Xs = [[[_rational(rng, 0.5) for _ in range(d)] for _ in range(L)] for _ in range(n0)]
    ys = tuple([1, -1] + [int(rng.choice([-1, 1])) for _ in range(n0 - 2)])
    eta = {k: sp.Rational(int(rng.integers(2, 10)), 10) for k in ("w", "b", "q")}
    return dict(L=L, d=d, n0=n0, beta=beta, X=X, w=w, q=q, b=b, Xs=Xs, ys=ys, eta=eta)


def _draw_model(settings, claim, point: dict) -> dict:
    """At a parameter point: the data set D0 (and the X of the gradient rows) drawn from the
    sparse-token model at (L, R, pi, theta), the rates and beta of the point; w, q, b random
    rationals.  All from the claim's seed path."""
    sizes = settings.pick(**SIZES)
    d, n0, L = sizes["d"], sizes["n0"], point["L"]
    rng = claim.rng(settings, "model point")
    model = SparseTokenModel(L, point["R"], point["pi"], point["theta"], d)
    xi = model.signal_direction(rng)
    Xs, ys, _ = model.sample(rng, n0 + 1, xi)
    w = [_rational(rng) for _ in range(d)]
    q = [_rational(rng) for _ in range(d)]
    b = _rational(rng)
    eta = {k: point[f"eta_{k}"] for k in ("w", "b", "q")}
    return dict(L=L, d=d, n0=n0, beta=point["beta"], X=Xs[n0].tolist(), w=w, q=q, b=b, Xs=Xs[:n0].tolist(),
                ys=tuple(int(y) for y in ys[:n0]), eta=eta)


def _mp(x):
    """Nested lists of exact numbers as mpf at the working precision."""
    return [_mp(v) for v in x] if isinstance(x, (list, tuple)) else to_mpf(x)


def finite_differences(pt: dict) -> dict:
    """The experiment: finite-difference gradients of the compiled definitions."""
    with mpmath.workdps(FD_DPS):
        X, w, q, b, beta = _mp(pt["X"]), _mp(pt["w"]), _mp(pt["q"]), to_mpf(pt["b"]), to_mpf(pt["beta"])
        out = {"general": fd_grad(lambda z: yhat_mp(X, w, z, b, beta), q),
               "at_zero": fd_grad(lambda z: yhat_mp(X, w, z, b, beta), [mpmath.mpf(0)] * len(q))}
        Xs, ys = _mp(pt["Xs"]), pt["ys"]
        ew, eb, eq = (to_mpf(pt["eta"][k]) for k in ("w", "b", "q"))
        zero = [mpmath.mpf(0)] * pt["d"]
        for loss in LOSSES:
            # w^(1), b^(1) and q^(2) as finite-difference gradient steps from zero
            gw, _ = fd_grad(lambda z: mean_loss_mp(loss, Xs, ys, z, zero, 0, beta), zero)
            gb, _ = fd_grad(lambda z: mean_loss_mp(loss, Xs, ys, zero, zero, z[0], beta), [mpmath.mpf(0)])
            w1 = [-ew * g for g in gw]
            b1 = -eb * gb[0]
            gq, errq = fd_grad(lambda z: mean_loss_mp(loss, Xs, ys, w1, z, b1, beta), zero)
            # the bound propagates the FD error of w^(1) only to O(h^2) relative: doubled
            out[loss.name] = ([-eq * g for g in gq], [2 * eq * e for e in errq])
        return out


def theory(pt: dict) -> dict:
    """The derived steps at the same point and data."""
    L, d = pt["L"], pt["d"]
    with mpmath.workdps(FD_DPS):
        grad = _gradient(L, d)
        at = [*_mp([x for row in pt["X"] for x in row]), *_mp(pt["w"])]
        beta = to_mpf(pt["beta"])
        out = {"general": grad["general"](*at, *_mp(pt["q"]), beta),
               "at_zero": grad["at_zero"](*at, *([mpmath.mpf(0)] * d), beta)}
        data = [to_mpf(x) for X in pt["Xs"] for row in X for x in row]
        rates = [to_mpf(pt["eta"][k]) for k in ("w", "b", "q")] + [beta]
        for loss in LOSSES:
            out[loss.name] = _q2(L, d, pt["ys"], loss)(*data, *rates)
        return out


def experiment(settings, claim):
    pt = _draw_model(settings, claim, settings.point) if settings.point else _draw(settings, claim)
    fd = memo(settings, ("A.grad.q2", "finite differences"), lambda: finite_differences(pt))
    th = theory(pt)
    rows = []
    for key, label, at in (("general", "dyhat/dq_{k} (q random)", None), ("at_zero", "dyhat/dq_{k} (q = 0)", {"q": 0})):
        for k, (t, m, e) in enumerate(zip(th[key], *fd[key])):
            rows.append(Comparison(label.format(k=k), float(t), float(m), 0.0, float(e), at=at))
    for loss in LOSSES:
        for k, (t, m, e) in enumerate(zip(th[loss.name], *fd[loss.name])):
            rows.append(Comparison(f"q2_{k}[{loss}]", float(t), float(m), 0.0, float(e)))
    small = [r.label for r in rows if abs(r.theory) < 1e-6]
    if small and not settings.point:  # the design's rows carry the relative (+-5 %) test
        raise ValueError(f"theory values too close to 0 for a relative mutation test: {small}")
    sizes = {"L": pt["L"], "d": pt["d"], "n0": pt["n0"], "fd_dps": FD_DPS, "fd_step": str(FD_STEP)}
    if settings.point:
        sizes.update(data="drawn from the sparse-token model", **{k: settings.point[k] for k in ("R", "pi", "theta")})
    return rows, sizes, \
        {"beta": str(pt["beta"]), "etas": {k: str(v) for k, v in pt["eta"].items()}}


CLAIMS = [
    Claim(
        point_space=GRAD_SPACE,
        id="A.grad.q2",
        statement_eq=r"\nabla_q \hat y = \beta X^\top (\operatorname{diag} s - s s^\top) X w, \qquad \nabla_q \hat y\big|_{q = 0} = \frac{\beta}{L} X^\top \Bigl(I - \frac{\mathbf{1}\mathbf{1}^\top}{L}\Bigr) X w \\ q^{(2)} = -\frac{\eta_q \beta}{n_0 L} \sum_{i=1}^{n_0} h_i\, X_i^\top \Bigl(I - \frac{\mathbf{1}\mathbf{1}^\top}{L}\Bigr) X_i w^{(1)}",
        paper="A",
        reference="Paper A §4 (training protocol, step 3)",
        title="Gradient of the attention output in the query, and the trained query (step 3)",
        statement_tex=(r"$\nabla_q \hat y = \beta X^\top(\operatorname{diag} s - s s^\top) X w$, which is "
                       r"$(\beta/L)\, X^\top(I - \mathbf{1}\mathbf{1}^\top/L) X w$ at $q = 0$; hence $q^{(2)} = "
                       r"-\frac{\eta_q\beta}{n_0 L}\sum_i h_i X_i^\top (I - \mathbf{1}\mathbf{1}^\top/L) X_i "
                       r"w^{(1)}$."),
        statement="grad_q y_hat = beta X^T (diag s - s s^T) X w, = (beta/L) X^T (I - 11^T/L) X w at q = 0; "
                  "q^(2) = -(eta_q beta/(n0 L)) sum_i h_i X_i^T (I - 11^T/L) X_i w^(1)",
        experiment=experiment,
        equations=G.equations,
        status="paper",
        mutants=("A.grad.softmax_outer:dropped", "A.grad.jacobian_at_zero:no_1_over_L",
                 "A.grad.softmax_at_zero:no_1_over_L", "A.grad.general:sign", "A.grad.q2:sign"),
        outputs=("A.grad.general", "A.grad.at_zero"),
        uses_dps=False,  # the finite differences run at their own 40 digits
        allowance_note="central finite-difference error bound |D(h) - D(2h)| + 10^(1-dps)/h "
                       "(h = 1e-10, dps = 40); for q^(2) doubled to cover the FD error of w^(1), b^(1)",
        doc="docs/paper_a_alignment.md",
    ),
]
