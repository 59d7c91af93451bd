"""A third paper for attncheck, through its public extension points only: the spiked
sample covariance (the BBP transition of the top eigenvalue, the overlap of the top
eigenvector, the Marchenko-Pastur bulk edge).

``derivation`` (SymPy, named steps and structural mutants), ``simulator`` (numpy only),
``theory`` (the derivation compiled by attncheck's public compilers), ``claims`` (the claims)
and ``paper`` (the ``PAPER`` named by the ``attncheck.papers`` entry point).
docs/adding-a-paper.md walks through it.
"""
