"""Paper B, §1 of our notes: the forward operator R_g and its adjoint on token pairs.

    R_g[X]_i = (1/(N-1)) * sum_{j != i} g(X_i, X_j),      i = 1..N          [paper]

Steps (each a named expression):

1. ``R_sum``: R_g written with a symbolic sum over j = 1..N minus the j = i term, so that N
   stays a symbol.
2. ``linearity_residual``: R_{a g + b h} - a R_g - b R_h, which SymPy reduces to 0 for symbolic
   N (Sum is linear in its summand).
3. Adjoint on one configuration (our statement).  Give outputs the per-token inner product
   <v, w>_tok = (1/N) sum_i v_i w_i (the normalisation of the loss 𝓔) and functions on token
   pairs the empirical pair measure <g, G>_pair = (1/(N(N-1))) sum_{i != j} g_ij G_ij (the
   empirical version of the exploration measure ρ).  Then

       <R g, v>_tok = <g, R* v>_pair   with   (R* v)_ij = v_i,

   i.e. the adjoint copies the token value to every pair whose *first* slot is that token.
   ``adjoint_residual(n)`` checks it for a concrete n with fully symbolic g_ij, v_i.
4. In expectation (exchangeable tokens, permutation-equivariant v):
   E <R_g, v>_tok = <g, R* v>_ρ with (R* v)(x, y) = E[v_1(X) | X_1 = x, X_2 = y].
   Worked example used by the claim ``B.forward.linearity``: d = 1, X_i i.i.d. U[-1, 1],
   v = R_c for a second pair function c.  Then
   (R* R_c)(x, y) = (c(x, y) + (N-2) c̄(x)) / (N-1),   c̄(x) = E c(x, X'),
   and ``adjoint_example`` is E <R_g, R_c>_tok exactly, as a function of symbolic N.

Pure SymPy; docs: docs/paper_b.md, "B.forward.linearity".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation

N = sp.Symbol("N", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
a, b = sp.symbols("a b", real=True)
x, y, z = sp.symbols("x y z", real=True)
g_ = sp.IndexedBase("g")
h_ = sp.IndexedBase("h")


def R_sum(G, i=i, n=N):
    """R_G[X]_i with G given as an indexed pair table G[i, j] = G(X_i, X_j)."""
    return (sp.Sum(G[i, j], (j, 1, n)) - G[i, i]) / (n - 1)


def linearity_residual():
    """R_{a g + b h} - a R_g - b R_h for symbolic N: reduces to 0."""
    combo = (sp.Sum(a * g_[i, j] + b * h_[i, j], (j, 1, N)) - (a * g_[i, i] + b * h_[i, i])) / (N - 1)
    return sp.simplify(sp.expand(combo - a * R_sum(g_) - b * R_sum(h_)))


def _tables(n: int):
    G = sp.Matrix(n, n, lambda p, q: sp.Symbol(f"g_{p + 1}{q + 1}"))
    v = sp.Matrix(n, 1, lambda p, _: sp.Symbol(f"v_{p + 1}"))
    return G, v


def forward_matrix(G: sp.Matrix) -> sp.Matrix:
    """R_G on one configuration of n tokens (G[p, q] = G(X_p, X_q)); diagonal ignored."""
    n = G.shape[0]
    return sp.Matrix(n, 1, lambda p, _: sum(G[p, q] for q in range(n) if q != p) / sp.Integer(n - 1))


def adjoint(v: sp.Matrix) -> sp.Matrix:
    """(R* v)_pq = v_p on off-diagonal pairs (the diagonal carries no pair mass)."""
    n = v.shape[0]
    return sp.Matrix(n, n, lambda p, q: v[p] if p != q else 0)


def token_inner(v, w) -> sp.Expr:
    n = v.shape[0]
    return sum(v[p] * w[p] for p in range(n)) / sp.Integer(n)


def pair_inner(G, H) -> sp.Expr:
    n = G.shape[0]
    return sum(G[p, q] * H[p, q] for p in range(n) for q in range(n) if p != q) / sp.Integer(n * (n - 1))


def adjoint_residual(n: int) -> sp.Expr:
    """<R g, v>_tok - <g, R* v>_pair for n tokens, g and v fully symbolic: expands to 0."""
    G, v = _tables(n)
    return sp.expand(token_inner(forward_matrix(G), v) - pair_inner(G, adjoint(v)))


# --- step 4: the worked example (d = 1, i.i.d. U[-1, 1] tokens) ---------------------------
def uniform_mean(expr, var):
    """E over var ~ U[-1, 1]."""
    return sp.integrate(expr, (var, -1, 1)) / 2


#: two pair functions of the worked example: g has a non-trivial dependence on both slots,
#: c has a non-zero conditional mean c̄(x) so that the (N-2)/(N-1) term matters.
G_EXAMPLE = x * y + y**2 + x / 2
C_EXAMPLE = x + y**2 + x**2 * y


def adjoint_example(g=G_EXAMPLE, c=C_EXAMPLE, n=N):
    """E <R_g, R_c>_tok = <g, R*(R_c)>_ρ, exact, for i.i.d. U[-1, 1] tokens (symbolic N)."""
    cbar = uniform_mean(c.subs(y, z), z)  # c̄(x) = E c(x, X')
    rstar = (c + (n - 2) * cbar) / (n - 1)  # (R* R_c)(x, y)
    return sp.simplify(uniform_mean(uniform_mean(g * rstar, x), y))


EQUATIONS = (
    Equation(
        "B.forward.operator",
        sp.Symbol("{R_g[X]_i}"),
        R_sum(g_),
        "Paper B, model (notes §1)",
        (),
        "R_g[X]_i = (1/(N-1)) sum_{j != i} g(X_i, X_j), written as the full sum minus j = i",
        status="paper",
    ),
    Equation(
        "B.forward.adjoint",
        sp.Symbol(r"\langle R_g, v\rangle_{tok}"),
        sp.Symbol(r"\langle g, R^{*}v\rangle_{\rho_N}") ,
        "docs/paper_b.md (ours)",
        (),
        "adjoint w.r.t. the per-token and empirical pair inner products: (R* v)(X_i, X_j) = v_i",
        status="derived",
    ),
    Equation(
        "B.forward.adjoint_example",
        sp.Symbol(r"E\langle R_g, R_c\rangle_{tok}"),
        adjoint_example(),
        "docs/paper_b.md (ours)",
        (N,),
        "worked example: d = 1, i.i.d. U[-1,1] tokens, g = xy + y^2 + x/2, c = x + y^2 + x^2 y",
        status="derived",
    ),
)
