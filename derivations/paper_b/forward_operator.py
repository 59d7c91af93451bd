"""Paper B, the model: the forward operator R_g and its adjoint on token pairs.

    R_g[X]_i = (1/(N-1)) * sum_{j != i} g(X_i, X_j),      i = 1..N          [paper]

Steps (each a named expression, ``step`` names in brackets):

1. [``B.forward.weight``] the normalisation w = 1/(N-1) (one term per other token);
   [``B.forward.operator``] R_g[X]_i = w (sum_{j=1}^N g(X_i, X_j) - g(X_i, X_i)), with a
   symbolic sum so that N stays a symbol.  ``forward_matrix(G)`` is the same operator on one
   configuration of n tokens (pair table G[p, q] = g(X_p, X_q)).
2. [``B.forward.linearity``] R_{a g + b h} = a R_g + b R_h: ``linearity_residual`` reduces
   R_{a g + b h} - (a R_g + b R_h) to 0 for symbolic N (a sum is linear in its summand).
3. Adjoint on one configuration (our statement).  Give outputs the per-token inner product
   <v, w>_tok = (1/N) sum_i v_i w_i (the normalisation of the loss) and functions on token
   pairs the empirical pair measure [``B.forward.pair_measure``]
   <g, G>_pair = (1/(N(N-1))) sum_{i != j} g_ij G_ij (the empirical exploration measure ρ).
   Then [``B.forward.adjoint``]

       <R g, v>_tok = <g, R* v>_pair   with   (R* v)_ij = v_i,

   the adjoint copies the token value to every pair whose *first* slot is that token.
   ``adjoint_residual(n)`` checks it for a concrete n with fully symbolic g_ij, v_i.
4. In expectation (exchangeable tokens, permutation-equivariant v):
   E <R_g, v>_tok = <g, R* v>_ρ with (R* v)(x, y) = E[v_k(X) | X_1 = x, X_2 = y], k the slot
   the adjoint copies (k = 1).  Worked example (claim ``B.forward.linearity``): d = 1, X_i
   i.i.d. U[-1, 1], v = R_c for a second pair function c.  Splitting the operator's sum into
   the terms j = 1, 2 and the N - 2 others, each of conditional mean c̄(x) = E c(x, X'),
   gives [``B.forward.adjoint_kernel``] (R* R_c)(x, y) = (c(x, y) + (N-2) c̄(x)) / (N-1), and
   ``adjoint_example`` is E <R_g, R_c>_tok exactly, as a function of symbolic N.

Pure SymPy; docs: docs/paper_b.md, "B.forward.linearity".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, drop, mutant, replace, step

N = sp.Symbol("N", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
a, b = sp.symbols("a b", real=True)
x, y, z = sp.symbols("x y z", real=True)
g_ = sp.IndexedBase("g")
h_ = sp.IndexedBase("h")


# --- step 1: the operator ----------------------------------------------------------------------
@derivation
def weight():
    """w = 1/(N-1): R_g averages over the N - 1 other tokens."""
    return step("B.forward.weight", 1 / (N - 1))


mutant("B.forward.weight:1/N", "B.forward.weight", "R_g normalised by 1/N instead of 1/(N-1)",
       replace(N - 1, N))


@derivation
def operator(G=g_):
    """R_G[X]_i = w (sum_{j=1}^N G[i, j] - G[i, i]), G an indexed pair table."""
    return step("B.forward.operator", weight() * (sp.Sum(G[i, j], (j, 1, N)) - G[i, i]))


mutant("B.forward.operator:diagonal", "B.forward.operator",
       "the j = i term not removed from the sum over tokens", drop(g_[i, i]))


def R_sum(G=g_):
    """R_G[X]_i with G an indexed pair table (the operator of step 1)."""
    return operator() if G is g_ else operator().xreplace({g_: G})


def on_table(expr, G: sp.Matrix) -> sp.Matrix:
    """An expression of the indexed table g[i, j] (free token index i, symbolic N) evaluated on
    one configuration of n tokens, for every token i: G[p, q] = g(X_p, X_q)."""
    n = G.shape[0]
    table = {g_[p + 1, q + 1]: G[p, q] for p in range(n) for q in range(n)}
    rows = [sp.expand(expr.subs(N, n).subs(i, p + 1).doit()).xreplace(table) for p in range(n)]
    return sp.Matrix(rows)


def forward_matrix(G: sp.Matrix) -> sp.Matrix:
    """R_G on one configuration of n tokens (G[p, q] = G(X_p, X_q))."""
    return on_table(operator(), G)


def tables(n: int, *names: str):
    """Fully symbolic n x n pair tables, one per name (symbols ``<name>_pq``)."""
    return tuple(sp.Matrix(n, n, lambda p, q, s=s: sp.Symbol(f"{s}_{p + 1}{q + 1}")) for s in names)


def token_vector(n: int, name: str = "v") -> sp.Matrix:
    return sp.Matrix(n, 1, lambda p, _: sp.Symbol(f"{name}_{p + 1}"))


# --- step 2: linearity -------------------------------------------------------------------------
def linearity_residual():
    """R_{a g + b h} - (a R_g + b R_h) for symbolic N: reduces to 0."""
    combo = operator().xreplace({g_: sp.IndexedBase("gh")})
    combo = combo.replace(lambda e: isinstance(e, sp.Indexed) and e.base.label == sp.Symbol("gh"),
                          lambda e: a * g_[e.indices] + b * h_[e.indices])
    return sp.simplify(sp.expand((combo - (a * operator() + b * operator(h_))).doit()))


@derivation
def linear_combination(n: int):
    """(tables G, H, R_{a g + b h} by linearity = a R_G + b R_H) on n tokens."""
    G, H = tables(n, "g", "h")
    return G, H, step("B.forward.linearity", a * forward_matrix(G) + b * forward_matrix(H))


# --- step 3: the adjoint on one configuration --------------------------------------------------
@derivation
def pair_weight():
    """The empirical pair measure puts 1/(N(N-1)) on every ordered pair i != j."""
    return step("B.forward.pair_measure", 1 / (N * (N - 1)))


mutant("B.forward.pair_measure:N^2", "B.forward.pair_measure",
       "empirical pair measure normalised by 1/N^2 (the diagonal counted)", replace(N - 1, N))


@derivation
def adjoint(n: int) -> sp.Matrix:
    """(R* v)_pq = v_p on off-diagonal pairs (the diagonal carries no pair mass)."""
    v = token_vector(n)
    return step("B.forward.adjoint", sp.Matrix(n, n, lambda p, q: v[p] if p != q else 0))


mutant("B.forward.adjoint:slot", "B.forward.adjoint",
       "adjoint copies the token value to the pair's second slot, (R* v)_ij = v_j", lambda A: A.T)


def token_inner(v, w) -> sp.Expr:
    n = v.shape[0]
    return sum(v[p] * w[p] for p in range(n)) / sp.Integer(n)


def pair_inner(G, H) -> sp.Expr:
    n = G.shape[0]
    w = pair_weight().subs(N, n)
    return w * sum(G[p, q] * H[p, q] for p in range(n) for q in range(n) if p != q)


@derivation
def adjoint_pairing(n: int):
    """(table G, <g, R* v>_pair) on n tokens: the adjoint side of <R g, v>_tok."""
    (G,) = tables(n, "g")
    return G, sp.expand(pair_inner(G, adjoint(n)))


def adjoint_residual(n: int) -> sp.Expr:
    """<R g, v>_tok - <g, R* v>_pair for n tokens, g and v fully symbolic: expands to 0."""
    G, pairing = adjoint_pairing(n)
    return sp.expand(token_inner(forward_matrix(G), token_vector(n)) - pairing)


def adjoint_slot() -> int:
    """The token (1 or 2) whose value the adjoint puts on the pair (X_1, X_2)."""
    entry = adjoint(3)[0, 1]
    v = token_vector(3)
    slots = [p + 1 for p in range(3) if entry.has(v[p])]
    if len(slots) != 1:
        raise ValueError(f"the adjoint's (1, 2) entry {entry} is not one token value")
    return slots[0]


# --- step 4: the worked example (d = 1, i.i.d. U[-1, 1] tokens) ---------------------------
def uniform_mean(expr, var):
    """E over var ~ U[-1, 1]."""
    return sp.integrate(expr, (var, -1, 1)) / 2


#: two pair functions of the worked example: g has a non-trivial dependence on both slots,
#: c has a non-zero conditional mean c̄(x) so that the (N-2)/(N-1) term matters.
G_EXAMPLE = x * y + y**2 + x / 2
C_EXAMPLE = x + y**2 + x**2 * y


@derivation
def adjoint_kernel(c=C_EXAMPLE):
    """(R* R_c)(x, y) = E[R_c[X]_k | X_1 = x, X_2 = y] (k = ``adjoint_slot()``), i.i.d.
    U[-1, 1] tokens: the operator's sum split into j = 1, 2 and the N - 2 others."""
    k = adjoint_slot()
    token = {1: x, 2: y}
    xk = token[k]
    cbar = sp.Symbol("cbar")

    def split(s):
        (jj, lo, hi), = s.limits
        rest = hi - 3 + 1  # terms j = 3..N, each with conditional mean cbar(X_k)
        return s.function.subs(jj, 1) + s.function.subs(jj, 2) + rest * cbar

    R = operator().subs(i, k).replace(lambda e: isinstance(e, sp.Sum), split)
    pair = lambda p, q: c.subs({x: p, y: q}, simultaneous=True)
    R = R.xreplace({g_[k, 1]: pair(xk, x), g_[k, 2]: pair(xk, y)})
    return step("B.forward.adjoint_kernel", sp.expand(R.subs(cbar, uniform_mean(pair(xk, z), z))))


mutant("B.forward.adjoint_kernel:second_slot", "B.forward.adjoint_kernel",
       "the j = 2 term of the kernel taken at the pair (x, x): c(x, x) in place of c(x, y)",
       replace(y, x))


@derivation
def adjoint_example(g=G_EXAMPLE, c=C_EXAMPLE):
    """E <R_g, R_c>_tok = <g, R*(R_c)>_ρ, exact, for i.i.d. U[-1, 1] tokens (symbolic N)."""
    return sp.factor(sp.simplify(uniform_mean(uniform_mean(sp.expand(g * adjoint_kernel(c)), x), y)))


def equations():
    return (
        Equation(
            "B.forward.operator",
            sp.Symbol("{R_g[X]_i}"),
            R_sum(g_),
            "Paper B, model",
            (),
            "R_g[X]_i = (1/(N-1)) sum_{j != i} g(X_i, X_j), written as the full sum minus j = i",
            status="paper",
        ),
        Equation(
            "B.forward.adjoint",
            sp.Symbol(r"\langle R_g, v\rangle_{tok}"),
            sp.Symbol(r"\langle g, R^{*}v\rangle_{\rho_N}"),
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
