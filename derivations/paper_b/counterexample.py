"""Paper B, Lemma 3.4 under plain finite exchangeability: a counterexample (erratum) and the
exact worst case.  Exact rational arithmetic throughout.

Setting.  A finite exchangeable law of N tokens, h a function on token pairs.  Lemma 3.4 (as
stated, "A1: exchangeable tokens") claims E|R_h[X]_1|² >= (1/(N-1)) ||h||²_ρ.  We measure

    ratio(h) = E|R_h[X]_1|² / ((1/(N-1)) ||h||²_ρ)        (the lemma says ratio >= 1).

1. ``permutation_example`` [``B.counterexample.example``] — N = 3, X a uniformly random
   permutation of {a, b, c},
   h(x, y) = f(y), f(a) = 1, f(b) = -1, f(c) = 0.  Since Σ f = 0, R_h[X]_1 = -f(X_1)/2, so
   E|R_h|² = 1/6, ||h||²_ρ = 2/3, cross moment c = -1/3 and ratio = 1/2 < 1: the lemma fails.
   (R_h uses the operator of ``forward_operator``, the bound the lemma's constant 1/(N-1).)
2. Urn laws.  ``urn_sequences(N, labels)``: the N tokens are the first N of a uniformly
   random permutation of k balls carrying the values ``labels`` (k = len(labels) >= N;
   repeated labels allowed).  k = N is a random permutation of a fixed multiset (the extreme
   points of the finitely exchangeable laws); k > N is drawing without replacement.
3. ``quadratic_forms``: Q(h) = E|R_h[X]_1|² = hᵀ A h and P(h) = ||h||²_ρ = hᵀ B h over the
   support of ρ = Law(X_1, X_2).  A is block diagonal in the first argument (R_h[X]_1 only
   sees h(X_1, ·)) and B is diagonal, so the minimum of the ratio is (N-1) times the smallest
   generalised eigenvalue of (A, B), found exactly block by block (``min_ratio``).
4. Closed form for k distinct values (``ratio_min``, [``B.counterexample.p1``,
   ``B.counterexample.p2``, ``B.counterexample.ratio_min``]).  For a row u = h(a, ·) on the
   k-1 other values, with S the random (N-1)-subset seen by token 1, P(b ∈ S) = p1 =
   (N-1)/(k-1) and P(b, c ∈ S) = p2 = (N-1)(N-2)/((k-1)(k-2)), so E(Σ_{b∈S} u_b)² = p1 q + p2 (σ² - q) with
   q = Σ u_b², σ = Σ u_b.  The ratio is minimised by zero row sums (p2 >= 0), giving
        min_h ratio = (k-1)(p1 - p2)/(N-1) = (k - N)/(k - 2).
   k = N: the minimum is 0 — every h with zero row sums has R_h[X] = 0 for *every* sample
   ([``B.counterexample.null_dimension``]: N(N-1) ordered pairs of distinct values minus N
   row-sum constraints = N(N-2) independent such h): g* and g* + h give the same data law, so
   g* is not even
   identifiable from ρ-data.  Repeated labels are the same balls with h lifted to ball pairs,
   and ratios of mixtures are >= the smallest ratio of the parts, so **every law that is the
   N-marginal of a k-exchangeable law has ratio >= (k-N)/(k-2)**, sharp; as k -> ∞
   (infinitely extendable = conditionally i.i.d. by de Finetti) the constant 1/(N-1) of
   Lemma 3.4 is recovered.  ``search`` checks all this exactly for N ∈ {3, 4, 5}.

Status: erratum (the paper's A1 must be stronger than finite exchangeability, e.g.
conditionally i.i.d. / infinitely extendable).  Docs: docs/paper_b.md.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from derivations.core import Equation, derivation, mutant, replace, step
from derivations.paper_b import coercivity as CO
from derivations.paper_b import forward_operator as FO

N = sp.Symbol("N", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
q_, sigma_ = sp.symbols("q sigma", real=True)  # Σ u_b², Σ u_b of one row


# --- 1. the N = 3 permutation example --------------------------------------------------------
@derivation
def permutation_example():
    """Exact E|R_h|², ||h||²_ρ, cross moment, lemma bound and ratio for the N = 3 example."""
    n = 3
    f = {"a": sp.Integer(1), "b": sp.Integer(-1), "c": sp.Integer(0)}
    perms = list(itertools.permutations("abc"))
    h = lambda x, y: f[y]
    wt = FO.weight().subs(FO.N, n)
    R1 = [wt * (h(p[0], p[1]) + h(p[0], p[2])) for p in perms]
    ER2 = sum(r**2 for r in R1) / len(perms)
    norm2 = sum(h(p[0], p[1]) ** 2 for p in perms) / len(perms)
    cross = sum(h(p[0], p[1]) * h(p[0], p[2]) for p in perms) / len(perms)
    lemma_rhs = CO.coefficients()[0].subs(CO.N, n) * norm2  # the lemma's (1/(N-1)) ||h||²
    ER2, lemma_rhs, cross = step("B.counterexample.example", (ER2, lemma_rhs, cross))
    return {"E|R_h|^2": ER2, "||h||^2": norm2, "cross": cross, "lemma_rhs": lemma_rhs,
            "ratio": sp.simplify(ER2 / lemma_rhs)}


# --- 2-3. urn laws and their quadratic forms ----------------------------------------------------
def urn_sequences(n: int, labels):
    """Equally likely token sequences: first n of a random permutation of the balls."""
    return [tuple(labels[b] for b in balls) for balls in itertools.permutations(range(len(labels)), n)]


def quadratic_forms(seqs, n: int):
    """(pairs, A, B) exact: Q(h) = hᵀAh = E|R_h[X]_1|², P(h) = hᵀBh = E h(X_1,X_2)²."""
    pairs = sorted({(s[0], s[1]) for s in seqs})
    index = {p: t for t, p in enumerate(pairs)}
    m = len(pairs)
    A = [[Fraction(0)] * m for _ in range(m)]
    Bd = [Fraction(0)] * m
    w = Fraction(1, len(seqs))
    for s in seqs:
        coef: dict[int, Fraction] = {}
        for t in range(1, n):
            p = index[(s[0], s[t])]
            coef[p] = coef.get(p, Fraction(0)) + Fraction(1, n - 1)
        for p, cp in coef.items():
            for r, cr in coef.items():
                A[p][r] += w * cp * cr
        Bd[index[(s[0], s[1])]] += w
    to = lambda v: sp.Rational(v.numerator, v.denominator)
    return pairs, sp.Matrix(m, m, lambda p, r: to(A[p][r])), sp.diag(*[to(v) for v in Bd])


def min_ratio(pairs, A, B, n: int):
    """Exact min over h != 0 of (n-1) hᵀAh / hᵀBh, and the dimension of {h : Q(h) = 0}."""
    lam = sp.Symbol("lam")
    firsts = sorted({p[0] for p in pairs})
    best, nullity = None, 0
    for a in firsts:
        idx = [t for t, p in enumerate(pairs) if p[0] == a]
        Ab = A.extract(idx, idx)
        Bb = B.extract(idx, idx)
        C = Bb.inv() * Ab  # similar to B^{-1/2} A B^{-1/2}: real, non-negative spectrum
        poly = sp.Poly(C.charpoly(lam).as_expr(), lam)
        roots = poly.all_roots()
        nullity += sum(1 for r in roots if r == 0)
        low = min(roots, key=lambda r: sp.N(r, 50))
        best = low if best is None or sp.N(low, 50) < sp.N(best, 50) else best
    return sp.nsimplify(best * (n - 1)) if best.is_rational else best * (n - 1), nullity


# --- 4. closed form ----------------------------------------------------------------------------
@derivation
def ratio_min_derivation():
    """Steps of item 4; returns (row moment, ratio at σ = 0, excess for σ != 0)."""
    p1 = step("B.counterexample.p1", (N - 1) / (k - 1))
    p2 = step("B.counterexample.p2", (N - 1) * (N - 2) / ((k - 1) * (k - 2)))
    row_second_moment = p1 * q_ + p2 * (sigma_**2 - q_)  # E (Σ_{b∈S} u_b)²
    # ratio = (N-1) * [(1/k) Σ_a E R_a² / (N-1)²] / [(1/(k(k-1))) Σ_a q_a], one row suffices
    ratio = (N - 1) * (row_second_moment / (N - 1) ** 2) / (q_ / (k - 1))
    at_zero = sp.factor(sp.simplify(ratio.subs(sigma_, 0)))
    excess = sp.factor(sp.simplify(ratio - ratio.subs(sigma_, 0)))
    return sp.simplify(row_second_moment), step("B.counterexample.ratio_min", at_zero), excess


mutant("B.counterexample.p1:k", "B.counterexample.p1",
       "P(b in S) = (N-1)/k: the ball of token 1 itself counted among the candidates",
       replace(k - 1, k))
mutant("B.counterexample.p2:with_replacement", "B.counterexample.p2",
       "P(b, c in S) = p1^2, as if the N-1 other tokens were drawn with replacement",
       lambda e: ((N - 1) / (k - 1)) ** 2)


def ratio_min():
    """min_h (N-1) E|R_h|² / ||h||²_ρ = (k - N)/(k - 2) for the first N of k distinct values."""
    return ratio_min_derivation()[1]


@derivation
def null_dimension():
    """dim{h : R_h[X] = 0 on every sample} for a random permutation of N distinct values:
    the N(N-1) values of h on ordered pairs of distinct values, minus one zero-row-sum
    constraint per value."""
    pairs = N * (N - 1)
    constraints = N
    return step("B.counterexample.null_dimension", sp.factor(pairs - constraints))


mutant("B.counterexample.null_dimension:no_constraints", "B.counterexample.null_dimension",
       "null dimension N(N-1): the row-sum constraints not subtracted", lambda e: sp.factor(e + N))


def null_h_example():
    """An h != 0 with R_h[X] = 0 on every permutation of {a, b, c}: zero row sums."""
    table = {("a", "b"): 1, ("a", "c"): -1, ("b", "a"): 2, ("b", "c"): -2, ("c", "a"): 0, ("c", "b"): 0}
    worst = max(
        abs(sp.Rational(table[(p[0], p[1])] + table[(p[0], p[2])], 2)) for p in itertools.permutations("abc")
    )
    return table, worst


def search(Ns=(3, 4, 5), extra=3, multiset_k=(0, 1)):
    """Exact minimum ratio over urn laws: for each N, k distinct labels (k = N..N+extra) and
    every multiset pattern of k = N + e balls, e in ``multiset_k`` (partitions of k with at
    least 2 distinct values and at least one repeat).
    Returns rows (N, description, k, min ratio, nullity, closed form (k-N)/(k-2))."""
    rows = []
    for n in Ns:
        for kk in range(n, n + extra + 1):
            seqs = urn_sequences(n, list(range(kk)))
            pairs, A, B = quadratic_forms(seqs, n)
            r, nul = min_ratio(pairs, A, B, n)
            rows.append((n, "distinct", kk, r, nul, ratio_min().subs({N: n, k: kk})))
        for kk in multiset_k:
            for part in sp.utilities.iterables.partitions(n + kk):
                mult = [size for size, count in part.items() for _ in range(count)]
                if len(mult) < 2 or len(mult) == n + kk:
                    continue  # one value: trivial; all distinct: done above
                labels = [lab for lab, mlt in enumerate(mult) for _ in range(mlt)]
                seqs = urn_sequences(n, labels)
                pairs, A, B = quadratic_forms(seqs, n)
                r, nul = min_ratio(pairs, A, B, n)
                rows.append((n, f"multiset {sorted(mult, reverse=True)}", n + kk, r, nul,
                             ratio_min().subs({N: n, k: n + kk})))
    return rows


def equations():
    return (
        Equation(
            "B.coercivity.counterexample",
            sp.Symbol(r"\frac{E|R_h[X]_1|^2}{\frac{1}{N-1}\|h\|_\rho^2}"),
            permutation_example()["ratio"],
            "Paper B, Lemma 3.4 (erratum)",
            (),
            "N = 3, random permutation of {a,b,c}, h(x,y) = f(y), f = (1,-1,0): 1/6 < 1/3",
            status="erratum",
        ),
        Equation(
            "B.coercivity.worst_ratio",
            sp.Symbol(r"\min_h \frac{(N-1)E|R_h[X]_1|^2}{\|h\|_\rho^2}"),
            ratio_min(),
            "docs/paper_b.md (ours)",
            (N, k),
            "first N of a random permutation of k distinct values (k-extendable laws: a lower bound)",
            status="erratum",
        ),
        Equation(
            "B.coercivity.null_dimension",
            sp.Symbol(r"\dim\{h: R_h[X]=0\}"),
            null_dimension(),
            "docs/paper_b.md (ours)",
            (N,),
            "random permutation of N distinct values: h with zero row sums are invisible",
            status="erratum",
        ),
    )
