"""Paper C: Cui, Behrens, Krzakala, Zdeborova, "A phase transition between positional and
semantic learning in a solvable model of dot-product attention" (arXiv 2402.03902)."""
