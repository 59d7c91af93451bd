"""Paper A, the gradient step in q (A.grad.q2) and the first readout step.

Model: y_hat = w^T X^T softmax(beta X q) + b, X in R^{L x d}.

Step (i), explicit small sizes: with every entry of X, w, q a symbol, SymPy differentiates
y_hat in q_k and we check that the result equals the general matrix form

    grad_q y_hat = beta X^T (diag(s) - s s^T) X w,     s = softmax(beta X q),

identically (``explicit_gradient_check``), and that at q = 0, where s = 1/L,

    grad_q y_hat |_{q=0} = (beta / L) X^T (I - 1 1^T / L) X w.

Step (ii), general matrix form: the softmax Jacobian d s / d g = diag(s) - s s^T (checked
entrywise for symbolic L-vectors g by ``softmax_jacobian_check``) and the chain rule
d y_hat = w^T X^T (d s) = w^T X^T J_s beta X dq.

Step (iii), the protocol (docs/conventions.md): zero init (q = w = 0, b^(0) = 0), mean loss
(1/n0) sum_i l(y_hat_i; y_i) on D0.
  steps 1-2: grad_w y_hat = X^T s = X^T 1/L at q = 0, grad_b y_hat = 1, grad_q y_hat = 0 at w = 0:
     w^(1) = (eta_w / n0) sum_i g_i X_i^T 1 / L,  b^(1) = b^(0) + (eta_b / n0) sum_i g_i,
     q^(1) = 0,  g_i = -l'(b^(0); y_i);
  step 3: q^(2) = -(eta_q / n0) sum_i l'(y_hat_i^(1); y_i) grad_q y_hat_i |_{q=0, w=w^(1)}
          = -(eta_q beta / (n0 L)) sum_i h_i X_i^T (I - 1 1^T/L) X_i w^(1).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derivations.core import Equation

REF = "Paper A §4 (training protocol, step 3); docs/paper_a_alignment.md"

beta = sp.Symbol("beta", positive=True)
eta_q = sp.Symbol("eta_q", positive=True)
eta_w = sp.Symbol("eta_w", positive=True)
eta_b = sp.Symbol("eta_b", nonnegative=True)
n0 = sp.Symbol("n_0", positive=True, integer=True)
Ls = sp.Symbol("L", positive=True, integer=True)
ds = sp.Symbol("d", positive=True, integer=True)


def symbols(L: int, d: int, tag: str = ""):
    """Symbolic X (L x d), w (d), q (d), b."""
    X = sp.Matrix(L, d, lambda i, j: sp.Symbol(f"X{tag}_{i}{j}", real=True))
    w = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"w_{i}", real=True))
    q = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"q_{i}", real=True))
    return X, w, q, sp.Symbol("b", real=True)


def softmax(g: sp.Matrix) -> sp.Matrix:
    e = g.applyfunc(sp.exp)
    return e / sum(e)


def model(X, w, q, b) -> sp.Expr:
    """y_hat = w^T X^T softmax(beta X q) + b."""
    return (w.T * X.T * softmax(beta * X * q))[0, 0] + b


def softmax_jacobian(s: sp.Matrix) -> sp.Matrix:
    return sp.diag(*s) - s * s.T


def centring(L: int) -> sp.Matrix:
    return sp.eye(L) - sp.ones(L, L) / L


def general_gradient(X, w, q) -> sp.Matrix:
    """beta X^T (diag s - s s^T) X w."""
    s = softmax(beta * X * q)
    return beta * X.T * softmax_jacobian(s) * X * w


def gradient_at_zero(X, w) -> sp.Matrix:
    """(beta / L) X^T (I - 11^T/L) X w."""
    L = X.shape[0]
    return beta / L * X.T * centring(L) * X * w


def explicit_gradient(X, w, q, b) -> sp.Matrix:
    """grad_q y_hat by direct symbolic differentiation, entry by entry."""
    y = model(X, w, q, b)
    return sp.Matrix([sp.diff(y, qk) for qk in q])


@lru_cache(maxsize=8)
def softmax_jacobian_check(L: int) -> bool:
    g = sp.Matrix(L, 1, lambda i, _: sp.Symbol(f"g_{i}", real=True))
    s = softmax(g)
    J = s.jacobian(g)
    return is_zero(J - softmax_jacobian(s))


@lru_cache(maxsize=8)
def explicit_gradient_check(L: int, d: int) -> dict:
    """Differentiate y_hat symbolically at sizes (L, d) and compare with the matrix forms."""
    X, w, q, b = symbols(L, d)
    direct = explicit_gradient(X, w, q, b)
    general = general_gradient(X, w, q)
    return {"general": is_zero(direct - general),
            "at_zero": is_zero(direct.subs({qk: 0 for qk in q}) - gradient_at_zero(X, w))}


def is_zero(M: sp.Matrix) -> bool:
    """Exact zero test for rational functions of exponentials: expand (so exp(a + b) becomes
    exp(a) exp(b)) and cancel over the exponentials as generators."""
    return all(sp.cancel(sp.expand(e)) == 0 for e in M)


def q2_explicit(Xs, ys, eta_w_, eta_b_, eta_q_, beta_, loss_derivative, b0=0):
    """q^(2), w^(1), b^(1) on an explicit data set by symbolic differentiation of the mean
    loss (``loss_derivative(yhat, y)`` = l'); used at small sizes to check the closed form."""
    L, d = Xs[0].shape
    _, w, q, b = symbols(L, d)
    n = len(Xs)
    # steps 1-2: gradient of the mean loss at zero init
    subs0 = {**{wk: 0 for wk in w}, **{qk: 0 for qk in q}, b: b0}
    yh = [model(X, w, q, b).subs(beta, beta_) for X in Xs]
    dl = [loss_derivative(y_, t) for y_, t in zip(yh, ys)]
    grad_w = [sum(dl[i] * sp.diff(yh[i], wk) for i in range(n)) / n for wk in w]
    grad_b = sum(dl[i] * sp.diff(yh[i], b) for i in range(n)) / n
    grad_q = [sum(dl[i] * sp.diff(yh[i], qk) for i in range(n)) / n for qk in q]
    w1 = [-eta_w_ * gw.subs(subs0) for gw in grad_w]
    b1 = b0 - eta_b_ * grad_b.subs(subs0)
    q1 = [-eta_q_ * gq.subs(subs0) for gq in grad_q]
    subs1 = {**{wk: v for wk, v in zip(w, w1)}, **{qk: v for qk, v in zip(q, q1)}, b: b1}
    q2 = [q1k - eta_q_ * gq.subs(subs1) for q1k, gq in zip(q1, grad_q)]
    return {"w1": sp.Matrix(w1), "b1": b1, "q1": sp.Matrix(q1), "q2": sp.Matrix(q2)}


def q2_closed_form(Xs, ys, eta_w_, eta_b_, eta_q_, beta_, loss_derivative, b0=0):
    """The closed forms of step (iii) on an explicit data set."""
    L, d = Xs[0].shape
    n = len(Xs)
    ones = sp.ones(L, 1)
    g = [-loss_derivative(sp.Integer(b0) if b0 == 0 else b0, t) for t in ys]
    w1 = eta_w_ / n * sum((g[i] * Xs[i].T * ones / L for i in range(n)), sp.zeros(d, 1))
    b1 = b0 + eta_b_ * sum(g) / n
    h = [loss_derivative((w1.T * Xs[i].T * ones)[0, 0] / L + b1, ys[i]) for i in range(n)]
    P = centring(L)
    acc = sum((h[i] * Xs[i].T * P * Xs[i] * w1 for i in range(n)), sp.zeros(d, 1))
    return {"w1": w1, "b1": b1, "q2": -eta_q_ * beta_ / (n * L) * acc}


# --- equations for `attncheck latex` ------------------------------------------------------
_X = sp.MatrixSymbol("X", Ls, ds)
_w = sp.MatrixSymbol("w", ds, 1)
_one = sp.MatrixSymbol(r"\mathbf{1}", Ls, 1)
_P = sp.Identity(Ls) - _one * _one.T / Ls
_s = sp.MatrixSymbol("s", Ls, 1)


def equations() -> list[Equation]:
    h_i, g_i = sp.symbols("h_i g_i", real=True)
    sum_i = sp.Symbol(r"\sum_{i \in D_0}")
    return [
        Equation("A.grad.general", sp.Symbol(r"{\nabla_q \hat y}"),
                 beta * _X.T * (sp.MatrixSymbol(r"\mathrm{diag}(s)", Ls, Ls) - _s * _s.T) * _X * _w,
                 REF, (beta, Ls, ds, _X, _w, _s, sp.MatrixSymbol(r"\mathrm{diag}(s)", Ls, Ls)), "softmax chain rule, s = softmax(beta X q) (checked entrywise at small L, d)"),
        Equation("A.grad.at_zero", sp.Symbol(r"{\nabla_q \hat y|_{q=0}}"), beta / Ls * _X.T * _P * _X * _w,
                 REF, (beta, Ls, ds, _X, _w, _one), "at q = 0, s = 1/L [paper]", status="paper"),
        Equation("A.grad.w1", sp.Symbol("w^{(1)}"), eta_w / n0 * sum_i * g_i * _X.T * _one / Ls, REF,
                 (eta_w, n0, sum_i, g_i, Ls, ds, _X, _one), "g_i = -l'(b^(0); y_i) (ours)"),
        Equation("A.grad.b1", sp.Symbol("b^{(1)}"), eta_b / n0 * sum_i * g_i, REF, (eta_b, n0, sum_i, g_i),
                 "b^(0) = 0 (ours)"),
        Equation("A.grad.q2", sp.Symbol("q^{(2)}"),
                 -eta_q * beta / (n0 * Ls) * sum_i * h_i * _X.T * _P * _X * sp.MatrixSymbol("w^{(1)}", ds, 1),
                 REF, (eta_q, beta, n0, Ls, sum_i, h_i, ds, _X, _one, sp.MatrixSymbol("w^{(1)}", ds, 1)),
                 "h_i = l'(y_hat_i^(1); y_i), X = X_i [paper's prefactor]", status="paper"),
    ]
