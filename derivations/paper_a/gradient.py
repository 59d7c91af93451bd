"""Paper A, the gradient step in q (A.grad.q2) and the first readout step.

Model (a definition): y_hat = w^T X^T softmax(beta X q) + b, X in R^{L x d}; losses
l(y_hat; y) (the loss objects of ``derivations.paper_a.losses``, docs/conventions.md) and their derivatives l' = d l / d y_hat.

Step (i), the softmax Jacobian: d s / d g = diag(s) - s s^T for s = softmax(g)
  (``A.grad.softmax_outer`` is the s s^T part).
Step (ii), the chain rule: d y_hat = w^T X^T (d s) = w^T X^T J_s beta X dq, so
  grad_q y_hat = beta X^T (diag(s) - s s^T) X w                          (``A.grad.general``).
Step (iii), at q = 0 the softmax is uniform, s = 1/L, and J_s = (I - 1 1^T / L) / L
  (``A.grad.jacobian_at_zero``):
  grad_q y_hat |_{q=0} = (beta / L) X^T (I - 1 1^T / L) X w               (``A.grad.at_zero``).
Step (iv), the protocol (docs/conventions.md): zero init (q = w = 0, b^(0) = 0), mean loss
(1/n0) sum_i l(y_hat_i; y_i) on D0.
  steps 1-2: grad_w y_hat = X^T s, s = 1/L at q = 0 (``A.grad.softmax_at_zero``), grad_b y_hat = 1,
     grad_q y_hat = 0 at w = 0:
     w^(1) = (eta_w / n0) sum_i g_i X_i^T 1 / L                           (``A.grad.w1``),
     b^(1) = b^(0) + (eta_b / n0) sum_i g_i                               (``A.grad.b1``),
     q^(1) = 0,  g_i = -l'(b^(0); y_i);
  step 3: q^(2) = -(eta_q / n0) sum_i h_i grad_q y_hat_i |_{q=0, w=w^(1)}, h_i = l'(y_hat_i^(1); y_i)
          = -(eta_q beta / (n0 L)) sum_i h_i X_i^T (I - 1 1^T/L) X_i w^(1)   (``A.grad.q2``).

Every step is built at explicit sizes (L, d, and the labels of an n0-sample data set) with
every entry of X_i, w, q a SymPy symbol, so the expressions compile to numerical evaluators
and ``explicit_gradient_check`` can compare them with direct differentiation.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, flip_sign, mutant, step, times
from derivations.paper_a import losses as LS
from derivations.paper_a.losses import Loss

REF = "Paper A §4 (training protocol, step 3); docs/paper_a_alignment.md"

beta = sp.Symbol("beta", positive=True)
eta_q = sp.Symbol("eta_q", positive=True)
eta_w = sp.Symbol("eta_w", positive=True)
eta_b = sp.Symbol("eta_b", nonnegative=True)
n0 = sp.Symbol("n_0", positive=True, integer=True)
Ls = sp.Symbol("L", positive=True, integer=True)
ds = sp.Symbol("d", positive=True, integer=True)
yhat = sp.Symbol("yhat", real=True)
RATES = (eta_w, eta_b, eta_q, beta)

# --- definitions: the losses (docs/conventions.md; ``derivations.paper_a.losses``) and the model
#: the loss objects by name
LOSSES = {lo.name: lo for lo in LS.LOSSES}


@derivation
def loss_derivative(loss: Loss, y) -> sp.Expr:
    """l'(yhat; y) = d l / d yhat of the loss ``loss``, as an expression in ``yhat``
    (elementary functions)."""
    return sp.simplify(loss.derivative(yhat, y, elementary=True))


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


def centring(L: int) -> sp.Matrix:
    return sp.eye(L) - sp.ones(L, L) / L


# --- the derivation ---------------------------------------------------------------------------
def softmax_jacobian(s: sp.Matrix) -> sp.Matrix:
    """diag(s) - s s^T (step (i))."""
    outer = step("A.grad.softmax_outer", s * s.T)
    return step("A.grad.softmax_jacobian", sp.diag(*s) - outer)


@derivation
def gradient(L: int, d: int) -> dict:
    """grad_q y_hat in general (step (ii)) and at q = 0 (step (iii)), in the symbols of
    ``symbols(L, d)``."""
    X, w, q, b = symbols(L, d)
    J = softmax_jacobian(softmax(beta * X * q))
    general = step("A.grad.general", beta * X.T * J * X * w)
    J0 = step("A.grad.jacobian_at_zero", J.subs({qk: 0 for qk in q}).applyfunc(sp.simplify))
    at_zero = step("A.grad.at_zero", beta * X.T * J0 * X * w)
    return {"X": X, "w": w, "q": q, "b": b, "general": general, "jacobian_at_zero": J0, "at_zero": at_zero}


@derivation
def protocol(L: int, d: int, labels: tuple, loss: Loss) -> dict:
    """w^(1), b^(1) and q^(2) of the protocol (step (iv)) on a data set of ``len(labels)``
    samples with symbolic X_i (``data``) and the given labels, as expressions in the data
    and ``RATES``."""
    n = len(labels)
    Xs = [symbols(L, d, tag=f"^{i}")[0] for i in range(n)]
    s0 = step("A.grad.softmax_at_zero", sp.ones(L, 1) / L)  # softmax(beta X 0)
    g = [-loss_derivative(loss, y).subs(yhat, 0) for y in labels]
    w1 = step("A.grad.w1", eta_w / n * sum((g[i] * Xs[i].T * s0 for i in range(n)), sp.zeros(d, 1)))
    b1 = step("A.grad.b1", eta_b * sum(g) / n)
    grad = gradient(L, d)
    h, terms = [], []
    for i, y in enumerate(labels):
        at = {**dict(zip(grad["X"], Xs[i])), **dict(zip(grad["w"], w1))}
        yhat_i = (w1.T * Xs[i].T * s0)[0, 0] + b1  # y_hat at q = 0
        h.append(loss_derivative(loss, y).subs(yhat, yhat_i))
        terms.append(grad["at_zero"].xreplace(at))
    q2 = step("A.grad.q2", -eta_q / n * sum((h[i] * terms[i] for i in range(n)), sp.zeros(d, 1)))
    return {"data": Xs, "w1": w1, "b1": b1, "q2": q2}


# --- structural mutants (realistic errors in the steps above) -------------------------------
mutant("A.grad.softmax_outer:dropped", "A.grad.softmax_outer",
       "softmax Jacobian taken as diag(s) (the -s s^T term dropped)", times(0))
mutant("A.grad.jacobian_at_zero:no_1_over_L", "A.grad.jacobian_at_zero",
       "uniform-softmax Jacobian I - 11^T/L without its 1/L", lambda J: J * J.shape[0])
mutant("A.grad.general:sign", "A.grad.general", "sign of the chain-rule gradient flipped", flip_sign)
mutant("A.grad.softmax_at_zero:no_1_over_L", "A.grad.softmax_at_zero",
       "softmax at q = 0 taken as 1 instead of 1/L (w^(1) and y_hat^(1) without the 1/L)",
       lambda s: s * s.shape[0])
mutant("A.grad.q2:sign", "A.grad.q2", "q^(2) = q^(1) + eta_q grad (ascent instead of descent)", flip_sign)


def explicit_gradient(X, w, q, b) -> sp.Matrix:
    """grad_q y_hat by direct symbolic differentiation, entry by entry."""
    y = model(X, w, q, b)
    return sp.Matrix([sp.diff(y, qk) for qk in q])


def is_zero(M: sp.Matrix) -> bool:
    """Exact zero test for rational functions of exponentials: expand (so exp(a + b) becomes
    exp(a) exp(b)) and cancel over the exponentials as generators."""
    return all(sp.cancel(sp.expand(e)) == 0 for e in M)


@derivation
def softmax_jacobian_check(L: int) -> bool:
    g = sp.Matrix(L, 1, lambda i, _: sp.Symbol(f"g_{i}", real=True))
    s = softmax(g)
    return is_zero(s.jacobian(g) - softmax_jacobian(s))


@derivation
def explicit_gradient_check(L: int, d: int) -> dict:
    """Differentiate y_hat symbolically at sizes (L, d) and compare with the derived forms."""
    grad = gradient(L, d)
    direct = explicit_gradient(grad["X"], grad["w"], grad["q"], grad["b"])
    return {"general": is_zero(direct - grad["general"]),
            "at_zero": is_zero(direct.subs({qk: 0 for qk in grad["q"]}) - grad["at_zero"])}


def q2_explicit(Xs, ys, eta_w_, eta_b_, eta_q_, beta_, loss: Loss, b0=0):
    """q^(2), w^(1), b^(1) on an explicit data set by symbolic differentiation of the mean
    loss; used at small sizes to check the derived steps."""
    L, d = Xs[0].shape
    _, w, q, b = symbols(L, d)
    n = len(Xs)
    # steps 1-2: gradient of the mean loss at zero init
    subs0 = {**{wk: 0 for wk in w}, **{qk: 0 for qk in q}, b: b0}
    yh = [model(X, w, q, b).subs(beta, beta_) for X in Xs]
    dl = [loss_derivative(loss, t).subs(yhat, y_) for y_, t in zip(yh, ys)]
    grad_w = [sum(dl[i] * sp.diff(yh[i], wk) for i in range(n)) / n for wk in w]
    grad_b = sum(dl[i] * sp.diff(yh[i], b) for i in range(n)) / n
    grad_q = [sum(dl[i] * sp.diff(yh[i], qk) for i in range(n)) / n for qk in q]
    w1 = [-eta_w_ * gw.subs(subs0) for gw in grad_w]
    b1 = b0 - eta_b_ * grad_b.subs(subs0)
    q1 = [-eta_q_ * gq.subs(subs0) for gq in grad_q]
    subs1 = {**{wk: v for wk, v in zip(w, w1)}, **{qk: v for qk, v in zip(q, q1)}, b: b1}
    q2 = [q1k - eta_q_ * gq.subs(subs1) for q1k, gq in zip(q1, grad_q)]
    return {"w1": sp.Matrix(w1), "b1": b1, "q1": sp.Matrix(q1), "q2": sp.Matrix(q2)}


def protocol_at(Xs, ys, eta_w_, eta_b_, eta_q_, beta_, loss: Loss) -> dict:
    """The derived steps (``protocol``) evaluated exactly on an explicit data set."""
    L, d = Xs[0].shape
    pr = protocol(L, d, tuple(ys), loss)
    at = {s: v for X, Xv in zip(pr["data"], Xs) for s, v in zip(X, Xv)}
    at.update({eta_w: eta_w_, eta_b: eta_b_, eta_q: eta_q_, beta: beta_})
    return {k: pr[k].xreplace(at) for k in ("w1", "b1", "q2")}


# --- equations for `attncheck latex` ------------------------------------------------------
_X = sp.MatrixSymbol("X", Ls, ds)
_w = sp.MatrixSymbol("w", ds, 1)
_one = sp.MatrixSymbol(r"\mathbf{1}", Ls, 1)
_P = sp.Identity(Ls) - _one * _one.T / Ls
_s = sp.MatrixSymbol("s", Ls, 1)


class SampleSum:
    """``sum_{i in D_0} term_i``, as printed: the per-sample quantities (``g_i``, ``X_i``) sit
    inside the sum over the data set they belong to."""

    def __new__(cls, term):
        return sp.Basic.__new__(cls, term)

    def _latex(self, printer):
        inner = printer._print(self.args[0])
        return r"\sum_{i \in D_0} " + (rf"\left({inner}\right)" if isinstance(self.args[0], (sp.Add, sp.MatAdd))
                                        else inner)


class _ScalarSampleSum(SampleSum, sp.Expr):
    pass


class _MatrixSampleSum(SampleSum, sp.MatrixExpr):
    @property
    def shape(self):
        return self.args[0].shape


def sample_sum(term):
    """The sum over the samples of D_0 of a per-sample scalar or matrix term."""
    return (_MatrixSampleSum if isinstance(term, sp.MatrixExpr) else _ScalarSampleSum)(term)


def equations() -> list[Equation]:
    h_i, g_i = sp.symbols("h_i g_i", real=True)
    X_i = sp.MatrixSymbol("X_i", Ls, ds)
    w1 = sp.MatrixSymbol("w^{(1)}", ds, 1)
    return [
        Equation("A.grad.general", sp.Symbol(r"{\nabla_q \hat y}"),
                 beta * _X.T * (sp.MatrixSymbol(r"\mathrm{diag}(s)", Ls, Ls) - _s * _s.T) * _X * _w,
                 REF, (beta, Ls, ds, _X, _w, _s, sp.MatrixSymbol(r"\mathrm{diag}(s)", Ls, Ls)), "softmax chain rule, s = softmax(beta X q) (checked entrywise at small L, d)"),
        Equation("A.grad.at_zero", sp.Symbol(r"{\nabla_q \hat y|_{q=0}}"), beta / Ls * _X.T * _P * _X * _w,
                 REF, (beta, Ls, ds, _X, _w, _one), "at q = 0, s = 1/L [paper]", status="paper"),
        Equation("A.grad.w1", sp.Symbol("w^{(1)}"), eta_w / (n0 * Ls) * sample_sum(g_i * X_i.T * _one), REF,
                 (eta_w, n0, g_i, Ls, ds, X_i, _one), "g_i = -l'(b^(0); y_i) (ours)"),
        Equation("A.grad.b1", sp.Symbol("b^{(1)}"), eta_b / n0 * sample_sum(g_i), REF,
                 (eta_b, n0, g_i), "b^(0) = 0; g_i = -l'(b^(0); y_i) (ours)"),
        Equation("A.grad.q2", sp.Symbol("q^{(2)}"),
                 -eta_q * beta / (n0 * Ls) * sample_sum(h_i * X_i.T * _P * X_i * w1),
                 REF, (eta_q, beta, n0, Ls, h_i, ds, X_i, _one, w1),
                 "h_i = l'(y_hat_i^(1); y_i) [paper's prefactor]", status="paper"),
    ]
