"""Paper B's simulator, estimator and rate experiments (they never import ``derivations`` or ``numerics.theory``)."""
