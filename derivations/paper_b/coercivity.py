"""Paper B, Lemma 3.4 (coercivity) and the exact identity behind it.

Paper's statement [paper]:  (1/(N-1)) ||g - g*||²_ρ  <=  𝓔_∞(g) - 𝓔_∞(g*)   under A1.

Our derivation, h = g - g*, exchangeable tokens (``step`` names in brackets):

1. [``B.coercivity.loss_normalisation``, ``B.coercivity.risk``] 𝓔_∞(g) = E (1/N) Σ_i
   |Y_i - R_g[X]_i|², Y = R_{g*}[X] + η.  Then Y_i - R_g[X]_i = η_i - R_h[X]_i and
       𝓔_∞(g) - 𝓔_∞(g*) = (1/N) Σ_i ( E R_h[X]_i² - 2 E[η_i R_h[X]_i] ).
   With E[η_i | X] = 0 (zero-mean noise independent of X; correlation across tokens allowed)
   the cross term vanishes, and by exchangeability every E R_h[X]_i² equals E R_h[X]_1².
   The per-token normalisation (1/N) Σ_i of the loss is what makes the difference exactly
   E|R_h[X]_1|²; a loss summed over tokens (no 1/N) would give N E|R_h[X]_1|².
2. [``B.coercivity.off_diagonal``, ``B.coercivity.coefficients``] With the operator's weight
   w = 1/(N-1) (``forward_operator.weight``),
   E|R_h[X]_1|² = w² Σ_{j,k ∈ {2..N}} E[h(X_1,X_j) h(X_1,X_k)].  By exchangeability the
   summand is m2 = E h(X_1,X_2)² when j = k and c = E[h(X_1,X_2) h(X_1,X_3)] when j != k.
   Counting: (N-1) diagonal pairs, (N-1)(N-2) off-diagonal ones, so [``B.coercivity.identity``]
       E|R_h[X]_1|² = (1/(N-1)) m2 + ((N-2)/(N-1)) c.
3. ``lemma_gap``.  E|R_h|² - (1/(N-1)) m2 = ((N-2)/(N-1)) c, so for N >= 3 Lemma 3.4 holds
   for every h  iff  the cross moment c is >= 0 for every h.  (N = 2: equality, c absent.)
4. Conditionally i.i.d. tokens X_j = s Z + W_j (Z shared, W_j i.i.d., independent of Z):
   given (X_1, Z), X_2 and X_3 are i.i.d., so
       c = E[ E[h(X_1,X_2) | X_1, Z]² ] = E[ m_h(X_1, Z)² ] >= 0,
   and the lemma holds with constant 1/(N-1), with equality iff m_h = 0 a.s.
   [``B.coercivity.conditional_mean``, ``B.coercivity.cross_ciid``,
   ``B.coercivity.cross_value``] ``conditional_mean`` and ``cross_term_ciid`` compute m_h and
   c exactly for the law of the simulator (``Conditional``, d = 1): Z, W_j ~ U[-1, 1], s a
   rational shift; ``pair_moments`` computes (m2, c) by their definitions under the i.i.d.
   uniform, i.i.d. Gaussian and this conditional law, and ``pair_moments_finite`` by
   enumeration for a permutation law.

Pure SymPy; docs: docs/paper_b.md, "B.coercivity.*".
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp
from sympy.simplify.fu import TR8

from derivations.core import Equation, Named, derivation, drop, mutant, step, times
from derivations.paper_b import forward_operator as FO

N = FO.N
m2, c = sp.symbols("m_2 c", real=True)  # E h(X1,X2)², E h(X1,X2)h(X1,X3)
x1, x2, x3, w, zz = sp.symbols("x1 x2 x3 w z", real=True)
s = sp.Symbol("s", nonnegative=True)  # shift of the shared component
ER2_1 = sp.Symbol("ER2_1")  # E R_h[X]_1²


# --- step 1: the risk difference ------------------------------------------------------------
@derivation
def risk_difference(n: int = 4):
    """(𝓔_∞(g) - 𝓔_∞(g*)) in terms of per-token moments, then reduced.

    Symbols: Eeta2_i = E η_i², EetaR_i = E[η_i R_h,i], ER2_i = E R_h,i².  Returns
    (general, reduced) where reduced uses EetaR_i = 0 and ER2_i = ER2_1 (n tokens shown
    explicitly; the reduction does not depend on n when the loss averages over tokens)."""
    Eeta2 = sp.symbols(f"Eeta2_1:{n + 1}")
    EetaR = sp.symbols(f"EetaR_1:{n + 1}")
    ER2 = (ER2_1,) + sp.symbols(f"ER2_2:{n + 1}")
    norm = step("B.coercivity.loss_normalisation", sp.Rational(1, n))
    loss_g = norm * sum(Eeta2[k] - 2 * EetaR[k] + ER2[k] for k in range(n))
    loss_star = norm * sum(Eeta2)  # h = 0
    general = sp.expand(loss_g - loss_star)
    reduced = general.subs({**{EetaR[k]: 0 for k in range(n)}, **{ER2[k]: ER2_1 for k in range(n)}})
    return general, step("B.coercivity.risk", sp.simplify(reduced))


mutant("B.coercivity.loss_normalisation:summed", "B.coercivity.loss_normalisation",
       "loss summed over tokens instead of averaged (no 1/N)", lambda e: sp.Integer(1))


# --- step 2: the coefficients ------------------------------------------------------------------
def pair_counts(n=N):
    """Numbers of (j, k) ∈ {2..n}² with j = k and with j != k."""
    jj = sp.Symbol("j", integer=True)
    diagonal = sp.Sum(1, (jj, 2, n)).doit()
    total = diagonal**2
    off = step("B.coercivity.off_diagonal", sp.expand(total - diagonal))
    return sp.factor(diagonal), sp.factor(off)


mutant("B.coercivity.off_diagonal:diagonal_kept", "B.coercivity.off_diagonal",
       "off-diagonal count (N-1)^2 instead of (N-1)(N-2): the j = k pairs not removed",
       lambda e: sp.expand(e + (N - 1)))


def pair_counts_enumerated(n: int):
    """The same counts by listing the index pairs (independent check for concrete n)."""
    pairs = list(itertools.product(range(2, n + 1), repeat=2))
    return sum(1 for p, q in pairs if p == q), sum(1 for p, q in pairs if p != q)


@derivation
def coefficients():
    """(coefficient of m2, coefficient of c) in E|R_h[X]_1|² (symbolic N)."""
    diag, off = pair_counts(N)
    wt = FO.weight()
    return step("B.coercivity.coefficients", (sp.simplify(diag * wt**2), sp.simplify(off * wt**2)))


@derivation
def identity():
    """E|R_h[X]_1|² = coef_m2 m2 + coef_c c (symbolic N, m2, c)."""
    cm, cc = coefficients()
    return step("B.coercivity.identity", cm * m2 + cc * c)


mutant("B.coercivity.identity:cross_dropped", "B.coercivity.identity",
       "cross term dropped: E|R_h|^2 = m2/(N-1), the lemma's bound taken as the identity", drop(c))


def lemma_gap():
    """E|R_h|² - (1/(N-1)) m2: the lemma holds iff this is >= 0."""
    return sp.factor(identity() - m2 / (N - 1))


def identity_value(n, m2_value, c_value):
    """The right-hand side of the identity at concrete N and moments."""
    return sp.simplify(identity().subs({N: n, m2: m2_value, c: c_value}))


def excess_risk_value(n, m2_value, c_value):
    """𝓔_∞(g) - 𝓔_∞(g*) at concrete N and moments (steps 1 and 2)."""
    return sp.simplify(risk_difference(int(n))[1].subs(ER2_1, identity_value(n, m2_value, c_value)))


# --- step 4: moments under concrete laws (exact) --------------------------------------------
@dataclass(frozen=True)
class ExactLaw:
    """A token law whose pair moments are exact: ``name`` (the simulator's,
    numerics.experiments.paper_b.interacting_particles), the kind of its i.i.d. base variables
    (``"U"``: U[-1, 1], ``"G"``: N(0, 1)), whether a component Z ~ U[-1, 1] is shared by the
    sample (X_k = s Z + W_k), and whether a token in R^d is scaled by 1/sqrt(d)."""

    name: str
    kind: str
    shared: bool = False
    per_dimension: bool = False
    aliases: tuple = ()

    def tokens(self, shift):
        """Three tokens (X_1, X_2, X_3) in the base variables, and each base variable's kind."""
        if self.shared:
            return tuple(shift * _Z + wk for wk in _W), {**{wk: self.kind for wk in _W}, _Z: "U"}
        return tuple(_W), {wk: self.kind for wk in _W}

    def vector_tokens(self, X, d: int):
        """The tokens in R^d written in the coordinates ``X`` (three tuples of d symbols)."""
        return [tuple(v / sp.sqrt(d) for v in Xk) for Xk in X] if self.per_dimension else X

    def __str__(self):
        return self.name


#: token laws for the exact moments, matching numerics.experiments.paper_b.interacting_particles (d = 1):
#:   uniform      X_k = W_k,            W_k i.i.d. U[-1, 1]
#:   gaussian     X_k = G_k,            G_k i.i.d. N(0, 1)
#:   conditional  X_k = s Z + W_k,      Z, W_k i.i.d. U[-1, 1]   (Z shared by the sample)
#: and in R^d (``pair_moments_vector``): uniform on U[-1, 1]^d, or gaussian_dim N(0, I_d/d)
UNIFORM = ExactLaw("uniform", "U")
GAUSSIAN = ExactLaw("gaussian", "G")
CONDITIONAL = ExactLaw("conditional", "U", shared=True)
GAUSSIAN_DIM = ExactLaw("gaussian_dim", "G", per_dimension=True)
EXACT_LAWS = (UNIFORM, GAUSSIAN, CONDITIONAL)
VECTOR_LAWS = (UNIFORM, GAUSSIAN_DIM)
#: the law called ``name`` (an ExactLaw is returned as is); ValueError naming the choices
law_by_name = Named("law", ExactLaw, (*EXACT_LAWS, GAUSSIAN_DIM))
_W = sp.symbols("w1:4", real=True)
_Z = sp.Symbol("zeta", real=True)


def _tokens(law: ExactLaw, shift):
    if law not in EXACT_LAWS:
        raise ValueError(f"law must be one of {', '.join(map(str, EXACT_LAWS))}, got {law!r}")
    return law.tokens(shift)


def _moment(kind, k):
    if k % 2:
        return sp.Integer(0)
    return sp.Rational(1, k + 1) if kind == "U" else sp.factorial2(k - 1)


def _expect_base(expr, dists):
    """E over independent base variables; polynomials by their moments, otherwise by
    integration (uniform variables only)."""
    expr = sp.expand(expr)
    gens = list(dists)
    if expr.is_polynomial(*gens):
        poly = sp.Poly(expr, *gens)
        total = sp.Integer(0)
        for powers, coeff in poly.terms():
            term = coeff
            for var, k in zip(gens, powers):
                term *= _moment(dists[var], k)
            total += term
        return sp.simplify(total)
    # products of trig factors -> sums (TR8) so that each integral is elementary and fast
    expr = sp.expand(TR8(expr))
    for var, kind in dists.items():
        if kind != "U":
            raise ValueError("non-polynomial integrands are supported for uniform variables only")
        expr = sp.expand(sp.integrate(expr, (var, -1, 1)) / 2)
    return sp.simplify(expr)


@derivation
def pair_moments(h, law: ExactLaw = UNIFORM, shift=s):
    """(m2, c) = (E h(X1,X2)², E h(X1,X2)h(X1,X3)) exactly, h a SymPy expression in x1, x2."""
    (t1, t2, t3), dists = _tokens(law, shift)
    hm = h.subs({x1: t1, x2: t2}, simultaneous=True)
    hc = h.subs({x1: t1, x2: t3}, simultaneous=True)
    return _expect_base(hm**2, dists), _expect_base(hm * hc, dists)


@derivation
def conditional_mean(h, shift=s):
    """m_h(x, z) = E[h(x, X_2) | Z = z] with X_2 = shift z + W, W ~ U[-1, 1] (step 4)."""
    integral = sp.integrate(sp.expand(h.subs(x2, shift * zz + w)), (w, -1, 1))
    return step("B.coercivity.conditional_mean", sp.simplify(integral / 2))


mutant("B.coercivity.conditional_mean:density", "B.coercivity.conditional_mean",
       "conditional mean without the density 1/2 of W ~ U[-1, 1]", times(2))

_W1_COPY = sp.Symbol("w1_copy", real=True)  # an independent copy of W_1 (used by a mutant)


@derivation
def cross_term_ciid(h, shift=s):
    """c = E[m_h(X_1, Z) m_h(X_1, Z)] = E[m_h(X_1, Z)²] with X_1 = shift Z + W_1 (step 4) —
    exact.  The second factor is a named step: given (X_1, Z), X_2 and X_3 are i.i.d. with the
    same X_1 in both factors."""
    m = conditional_mean(h, shift).subs({x1: shift * _Z + _W[0], zz: _Z}, simultaneous=True)
    second = step("B.coercivity.cross_ciid", m)
    value = _expect_base(m * second, {_W[0]: "U", _W1_COPY: "U", _Z: "U"})
    return step("B.coercivity.cross_value", value)


mutant("B.coercivity.cross_ciid:given_Z_only", "B.coercivity.cross_ciid",
       "cross moment conditioned on Z only: E[m_h(X_1, Z) m_h(X_1', Z)] (X_1 not held fixed)",
       lambda e: e.subs(_W[0], _W1_COPY))


@derivation
def pair_moments_vector(h, d: int, law: ExactLaw = UNIFORM):
    """(m2, c) for tokens in R^d with i.i.d. coordinates: ``law`` UNIFORM (U[-1, 1]^d) or
    GAUSSIAN_DIM (N(0, I_d/d), the simulator's default Gaussian).  ``h(x, y)`` is a Python
    callable on two length-d tuples of SymPy symbols returning a polynomial."""
    if law not in VECTOR_LAWS:
        raise ValueError(f"law must be one of {', '.join(map(str, VECTOR_LAWS))}, got {law!r}")
    X = [sp.symbols(f"t{k}_1:{d + 1}", real=True) for k in (1, 2, 3)]
    toks = law.vector_tokens(X, d)
    dists = {v: law.kind for Xk in X for v in Xk}
    h12, h13 = h(toks[0], toks[1]), h(toks[0], toks[2])
    return _expect_base(h12**2, dists), _expect_base(h12 * h13, dists)


def pair_moments_finite(h, values):
    """(m2, c) for a uniformly random permutation of ``values`` (exact enumeration; needs at
    least 3 values for c)."""
    vals = [sp.nsimplify(v) for v in values]
    n = len(vals)
    hv = lambda p, q: h.subs({x1: vals[p], x2: vals[q]}, simultaneous=True)
    pairs = [(p, q) for p in range(n) for q in range(n) if p != q]
    triples = [(p, q, r) for p in range(n) for q in range(n) for r in range(n) if len({p, q, r}) == 3]
    m2_ = sp.nsimplify(sum(hv(p, q) ** 2 for p, q in pairs) / len(pairs))
    c_ = sp.nsimplify(sum(hv(p, q) * hv(p, r) for p, q, r in triples) / len(triples))
    return sp.simplify(m2_), sp.simplify(c_)


def cross_gram(basis, law: ExactLaw = UNIFORM, shift=s, values=None):
    """Gram matrix C[k, l] = E[b_k(X1,X2) b_l(X1,X3)]: c(Σ θ_k b_k) = θᵀ C θ.

    Under an i.i.d. or conditionally i.i.d. law C is a Gram matrix of the conditional means
    m_{b_k}(X1, Z), hence positive semidefinite: c(h) >= 0 on the whole span of ``basis``.
    With ``values`` (a permutation law) it is in general indefinite."""
    n = len(basis)
    if values is not None:
        vals = [sp.nsimplify(v) for v in values]
        trip = [(p, q, r) for p in range(len(vals)) for q in range(len(vals)) for r in range(len(vals))
                if len({p, q, r}) == 3]
        ev = lambda f, g: sum(f.subs({x1: vals[p], x2: vals[q]}, simultaneous=True)
                              * g.subs({x1: vals[p], x2: vals[r]}, simultaneous=True) for p, q, r in trip) / len(trip)
    else:
        (t1, t2, t3), dists = _tokens(law, shift)
        ev = lambda f, g: _expect_base(f.subs({x1: t1, x2: t2}, simultaneous=True)
                                       * g.subs({x1: t1, x2: t3}, simultaneous=True), dists)
    C = sp.zeros(n, n)
    for p in range(n):
        for q in range(p, n):
            C[p, q] = C[q, p] = sp.nsimplify(ev(basis[p], basis[q]))
    return C


#: monomials x1^a x2^b, a, b <= 2: the span used to check c(h) >= 0 exactly
MONOMIALS_2 = tuple(x1**p * x2**q for p in range(3) for q in range(3))


#: test functions of the claims (polynomials so that every moment is exact).
#: H_CROSS has a large conditional mean; H_NULL has m_h = 0 for *every* shift, since
#: ∫_{sz-1}^{sz+1} sin(π y) dy = 0 — the equality case of the lemma.
H_CROSS = x1 * x2 + x2**2 + x1
H_MIXED = x1**2 * x2 - x2 + sp.Rational(1, 2) * x1 * x2**2
H_NULL = x1 * sp.sin(sp.pi * x2)

#: vector-token test functions (d > 1): h(x, y) on length-d tuples.
A_VEC3 = sp.Matrix([[1, -2, 0], [sp.Rational(1, 2), 1, 1], [0, -1, 2]])
A_VEC2 = sp.Matrix([[1, -1], [2, sp.Rational(1, 2)]])


def _bilinear(x, A, y):
    return sum(x[p] * A[p, q] * y[q] for p in range(A.rows) for q in range(A.cols))


def H_VEC3(x, y):
    """d = 3: xᵀA y + |y|² + x_1."""
    return _bilinear(x, A_VEC3, y) + sum(v**2 for v in y) + x[0]


def H_VEC2(x, y):
    """d = 2: (xᵀA y)² + x_2 y_1."""
    return _bilinear(x, A_VEC2, y) ** 2 + x[1] * y[0]


def equations():
    return (
        Equation(
            "B.coercivity.risk",
            sp.Symbol(r"\mathcal{E}_\infty(g)-\mathcal{E}_\infty(g^*)"),
            risk_difference()[1].subs(ER2_1, sp.Symbol(r"{E|R_h[X]_1|^2}")),
            "Paper B, Lemma 3.4 proof; our derivation",
            (),
            "risk difference with per-token loss (1/N) sum_i, E[eta|X] = 0, exchangeable tokens",
            status="derived",
        ),
        Equation(
            "B.coercivity.identity",
            sp.Symbol(r"{E|R_h[X]_1|^2}"),
            identity(),
            "Paper B, Lemma 3.4; identity ours",
            (N, m2, c),
            "m2 = E h(X1,X2)^2, c = E h(X1,X2)h(X1,X3); exchangeable tokens",
            status="derived",
        ),
        Equation(
            "B.coercivity.gap",
            sp.Symbol(r"E|R_h[X]_1|^2-\frac{1}{N-1}\|h\|_\rho^2"),
            lemma_gap(),
            "Paper B, Lemma 3.4",
            (N, c),
            "the lemma holds iff the cross moment c >= 0",
            status="derived",
        ),
        Equation(
            "B.coercivity.conditionally_iid",
            sp.Symbol(r"{E[h(X_1,X_2)h(X_1,X_3)]}"),
            sp.Symbol(r"{E[(E[h(X_1,X_2)\mid X_1,Z])^2]}"),
            "Paper B, Lemma 3.4 under conditionally i.i.d. tokens (ours)",
            (),
            "cross moment is a conditional second moment, hence >= 0",
            status="derived",
        ),
    )
