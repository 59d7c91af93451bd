"""A small Wick/Isserlis calculus for the Gaussian moments of Paper A's step-3 analysis.

Two pieces, both pure SymPy:

1. ``expect_poly(expr, zeta)``: E over a standard normal zeta of a polynomial in zeta,
   E[zeta^k] = (k-1)!! for even k, 0 for odd k (one-dimensional Isserlis).  Used for the
   square-loss h-moments, which are polynomials in the Gaussian prediction.

2. Bilinear forms through the centring projector P = I_L - 1 1^T / L in R^L.  A per-sample
   L-vector is a linear combination (``LVec``) of *fixed* vectors (``v``, the signal
   positions; ``one``, the all-ones vector) and *Gaussian* vectors (independent standard
   N(0, I_L) vectors, e.g. ``c = Z xi`` and ``e = Z w_n / |w_n|``).  ``expect_forms`` gives
   E[prod_k a_k^T P b_k] by Isserlis' theorem: expand bilinearly, pair the Gaussian slots of
   the same name in every possible way, and contract the index graph.  Each connected
   component is either a path between two fixed vectors, worth f^T P g (P^k = P), or a closed
   loop, worth tr P = L - 1.  The only geometric data are

       v^T P v = R (1 - R/L) =: r,   v^T P 1 = 1^T P 1 = 0,   tr P = L - 1 =: m.

This is exactly what the leave-one-out reduction of docs/paper_a_alignment.md needs: the
Gaussian parts of P u_i are independent of the prediction y_hat_i (which only sees the
1-component of the same vectors), so every E[h_i^k * (P-forms)] factorises into an h-moment
times a moment computed here.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

FIXED = ("v", "one")


def gaussian_moment(k: int) -> sp.Integer:
    """E[zeta^k] for zeta ~ N(0, 1): (k-1)!! for even k, else 0."""
    if k < 0:
        raise ValueError("k must be >= 0")
    return sp.Integer(0) if k % 2 else sp.factorial2(k - 1) if k else sp.Integer(1)


def expect_poly(expr: sp.Expr, zeta: sp.Symbol) -> sp.Expr:
    """E over zeta ~ N(0, 1) of a polynomial in zeta (coefficients may be symbolic)."""
    poly = sp.Poly(sp.expand(expr), zeta)
    return sp.expand(sum(c * gaussian_moment(k) for (k,), c in poly.terms()))


@dataclass(frozen=True)
class LVec:
    """A symbolic L-vector sum_name coeff * basis(name); basis is fixed (``v``, ``one``) or
    an independent standard Gaussian vector (any other name)."""

    terms: tuple[tuple[str, sp.Expr], ...]

    @staticmethod
    def of(**coeffs) -> "LVec":
        return LVec(tuple((k, sp.sympify(c)) for k, c in coeffs.items() if sp.sympify(c) != 0))

    def __add__(self, other: "LVec") -> "LVec":
        d: dict[str, sp.Expr] = {}
        for k, c in self.terms + other.terms:
            d[k] = d.get(k, 0) + c
        return LVec(tuple((k, c) for k, c in d.items() if c != 0))

    def scale(self, a) -> "LVec":
        return LVec(tuple((k, a * c) for k, c in self.terms))


def _fixed_inner(f: str, g: str, r: sp.Expr) -> sp.Expr:
    """f^T P g for fixed f, g in {v, one}."""
    return r if (f, g) == ("v", "v") else sp.Integer(0)


def _pairings(items: list[int]):
    """All perfect matchings of a list of slot indices."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for j, partner in enumerate(rest):
        for tail in _pairings(rest[:j] + rest[j + 1 :]):
            yield [(first, partner)] + tail


def _monomial_expectation(names: list[str], m: sp.Expr, r: sp.Expr) -> sp.Expr:
    """E[prod_k x_{2k}^T P x_{2k+1}] for basis vectors named ``names`` (slots 2k, 2k+1)."""
    gauss = [i for i, n in enumerate(names) if n not in FIXED]
    total = sp.Integer(0)
    for pairing in _pairings(gauss):
        if any(names[a] != names[b] for a, b in pairing):
            continue  # distinct Gaussian vectors are independent
        partner = {}
        for a, b in pairing:
            partner[a], partner[b] = b, a
        seen, value = set(), sp.Integer(1)
        # paths: start at a fixed slot, alternate P-edge (slot <-> slot ^ 1) and pair-edge
        for s0 in range(len(names)):
            if names[s0] not in FIXED or s0 in seen:
                continue
            node = s0
            while True:
                seen.add(node)
                node = node ^ 1  # through P
                seen.add(node)
                if names[node] in FIXED:
                    break
                node = partner[node]  # through the Wick pairing (identity)
            value *= _fixed_inner(names[s0], names[node], r)
        # what is left are closed loops P -> pair -> P ...: each is tr(P^k) = tr P = m
        node_left = [i for i in range(len(names)) if i not in seen]
        while node_left:
            node = node_left[0]
            while node not in seen:
                seen.add(node)
                seen.add(node ^ 1)
                node = partner[node ^ 1]
            value *= m
            node_left = [i for i in range(len(names)) if i not in seen]
        total += value
    return total


def expect_forms(forms: list[tuple[LVec, LVec]], m: sp.Expr, r: sp.Expr) -> sp.Expr:
    """E[prod_k a_k^T P b_k] by Isserlis' theorem (see module docstring)."""
    slots = [vec for pair in forms for vec in pair]
    total = sp.Integer(0)
    for choice in itertools.product(*[vec.terms for vec in slots]):
        coeff = sp.Mul(*[c for _, c in choice])
        total += coeff * _monomial_expectation([n for n, _ in choice], m, r)
    return sp.expand(total)
