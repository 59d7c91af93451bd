"""A third paper for attncheck, through its public extension points only: the spiked
sample covariance (the BBP transition of the top eigenvalue, the overlap of the top
eigenvector, the Marchenko-Pastur bulk edge).

``derivation`` (SymPy, named steps and structural mutants), ``simulator`` (numpy only),
``theory`` (the derivation compiled by attncheck's public compilers), ``claims`` (the CLAIMS
list named by the ``attncheck.claims`` entry point).  docs/adding-a-paper.md walks through it.
"""
