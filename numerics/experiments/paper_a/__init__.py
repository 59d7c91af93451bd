"""Paper A's simulators and experiment drivers (they never import ``derivations`` or ``numerics.theory``)."""
